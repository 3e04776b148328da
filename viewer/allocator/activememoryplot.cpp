#include "activememoryplot.h"

#include "models/segmentmodel.h"
#include "palette.h"
#include "rankcolors.h"
#include "charts/byteaxisticker.h"
#include "charts/timeaxisticker.h"
#include "timeformat.h"

#include <QHelpEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace rs {

namespace {

} // namespace

// Draws the bands as rectangles in pixel space: a few hundred thousand at most, and only those
// that reach into the visible range.
class ActiveMemoryPlot::Bands : public QCPLayerable
{
public:
    explicit Bands(ActiveMemoryPlot *plot)
        : QCPLayerable(plot)
        , m_plot(plot)
    {
    }

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override { painter->setAntialiasing(false); }
    QRect clipRect() const override { return m_plot->axisRect()->rect(); }

    void draw(QCPPainter *painter) override
    {
        const ActiveMemory *m = m_plot->m_layout.get();
        if (!m)
            return;
        QCPAxis *x = m_plot->xAxis;
        QCPAxis *y = m_plot->yAxis;
        const TimeNs lo = m_plot->timeOf(x->range().lower);
        const TimeNs hi = m_plot->timeOf(x->range().upper) + 1;
        const auto rect = [&](TimeNs t0, TimeNs t1, double bottom, double height) {
            const double x0 = x->coordToPixel(m_plot->keyOf(std::max(t0, lo)));
            const double x1 = x->coordToPixel(m_plot->keyOf(std::min(t1, hi)));
            const double y0 = y->coordToPixel(bottom + height);
            const double y1 = y->coordToPixel(bottom);
            // At least a pixel wide: a block alive for a microsecond of a minute still shows.
            return QRectF(QPointF(std::floor(x0), std::round(y0)), QPointF(std::max(std::floor(x0) + 1, std::ceil(x1)), std::round(y1)));
        };
        for (std::size_t i = 0; i < m->bands.size(); ++i) {
            const ActiveMemory::Band &b = m->bands[i];
            if (b.begin >= hi || b.end <= lo)
                continue;
            const QColor fill = m_plot->m_colors[i];
            // Level of detail: a band that moves many times within one pixel column is drawn once
            // there, at its first offset; the rest of its stretches start where the last ended.
            double drawnTo = -1e300;
            const auto first = std::upper_bound(b.times.begin(), b.times.end(), lo);
            for (auto k = static_cast<std::size_t>(first == b.times.begin() ? 0 : first - b.times.begin() - 1); k < b.times.size(); ++k) {
                const TimeNs t0 = b.times[k];
                if (t0 >= hi)
                    break;
                const TimeNs t1 = k + 1 < b.times.size() ? b.times[k + 1] : b.end;
                if (t1 <= lo)
                    continue;
                // Edges are rounded from exact offsets, so neighbours abut: a band under half a
                // pixel rounds to nothing, and no gap opens where it would have been.
                QRectF area = rect(t0, t1, static_cast<double>(b.offsets[k]), static_cast<double>(b.size));
                if (area.right() <= drawnTo)
                    continue;
                area.setLeft(std::max(area.left(), drawnTo));
                drawnTo = area.right();
                if (area.height() > 0)
                    painter->fillRect(area, fill);
                // Jump to the stretch under the next pixel: a band above busy small ones moves at
                // nearly every entry, and those in the column just drawn would all be skipped.
                const TimeNs next = m_plot->timeOf(x->pixelToCoord(drawnTo));
                const auto cover = static_cast<std::size_t>(
                    std::upper_bound(b.times.begin() + static_cast<std::ptrdiff_t>(k) + 1, b.times.end(), next) - b.times.begin()) - 1;
                if (cover > k)
                    k = cover - 1;
            }
        }
        // The summed smaller allocations on top, in one quiet colour. Thousands of them come and go
        // within a pixel column: each column gets one rectangle from the lowest bottom to the
        // highest top it saw (min/max per column), longer stretches their own.
        const QColor rest = Palette::screen().color(Palette::Role::SummedBand);
        const ActiveMemory::Rest &r = m->rest;
        double column = -1, low = 0, high = 0; // the pending column's x and its extent (pixels)
        const auto flush = [&] {
            if (column >= 0 && high > low)
                painter->fillRect(QRectF(column, low, 1, high - low), rest);
            column = -1;
        };
        const auto from = std::upper_bound(r.times.begin(), r.times.end(), lo);
        for (auto k = static_cast<std::size_t>(from == r.times.begin() ? 0 : from - r.times.begin() - 1); k < r.times.size(); ++k) {
            const TimeNs t0 = r.times[k];
            if (t0 >= hi)
                break;
            const TimeNs t1 = k + 1 < r.times.size() ? r.times[k + 1] : m->range.end;
            if (t1 <= lo || r.height[k] == 0)
                continue;
            const QRectF area = rect(t0, t1, static_cast<double>(r.bottom[k]), static_cast<double>(r.height[k]));
            if (area.width() <= 1) {
                if (area.left() != column) {
                    flush();
                    column = area.left();
                    low = area.top();
                    high = area.bottom();
                } else {
                    low = std::min(low, area.top());
                    high = std::max(high, area.bottom());
                }
                continue;
            }
            flush();
            if (area.height() > 0)
                painter->fillRect(area, rest);
        }
        flush();
        if (m_plot->m_selected >= 0 && static_cast<std::size_t>(m_plot->m_selected) < m->bands.size()) {
            const ActiveMemory::Band &b = m->bands[static_cast<std::size_t>(m_plot->m_selected)];
            painter->setPen(QPen(Palette::screen().color(Palette::Role::Outline), 2));
            painter->setBrush(Qt::NoBrush);
            for (std::size_t k = 0; k < b.times.size(); ++k) {
                const TimeNs t1 = k + 1 < b.times.size() ? b.times[k + 1] : b.end;
                if (t1 > lo && b.times[k] < hi)
                    painter->drawRect(rect(b.times[k], t1, static_cast<double>(b.offsets[k]), static_cast<double>(b.size)));
            }
        }
    }

private:
    ActiveMemoryPlot *m_plot;
};

ActiveMemoryPlot::ActiveMemoryPlot(QWidget *parent)
    : QCustomPlot(parent)
{
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal);
    axisRect()->setRangeZoom(Qt::Horizontal);
    yAxis->setTicker(QSharedPointer<ByteAxisTicker>::create()); // the memory charts' byte axis
    m_bands = new Bands(this);
    m_bands->setLayer(QStringLiteral("main"));
    setMouseTracking(true);
    applyColors(Palette::screen());
}

double ActiveMemoryPlot::keyOf(TimeNs t) const
{
    if (m_layout && !m_layout->clocked)
        return static_cast<double>(t - m_layout->range.begin) / 1000.0; // the importer's 1 µs per entry
    return static_cast<double>(t + m_clockOffset - m_keyOrigin);
}

TimeNs ActiveMemoryPlot::timeOf(double key) const
{
    if (m_layout && !m_layout->clocked)
        return m_layout->range.begin + static_cast<TimeNs>(std::llround(key * 1000.0));
    return static_cast<TimeNs>(std::llround(key)) + m_keyOrigin - m_clockOffset;
}

void ActiveMemoryPlot::setLayout(std::shared_ptr<const ActiveMemory> layout, SessionPtr session, TimeNs keyOrigin, TimeNs clockOffset)
{
    m_layout = std::move(layout);
    m_session = std::move(session);
    m_keyOrigin = keyOrigin;
    m_clockOffset = clockOffset;
    m_selected = -1;
    m_colors.clear();
    if (m_layout) {
        // One colour per top user frame: a layer's activations share a colour wherever they sit.
        std::unordered_map<std::string, int> frameColor;
        // The rank colours without their greys: grey says "no stack" here.
        std::vector<QColor> frameColors;
        for (int i = 0; i < RankColors::fixedCount(); ++i)
            if (const QColor c = RankColors::color(i); c.hslSaturation() >= 60)
                frameColors.push_back(c);
        for (const ActiveMemory::Band &b : m_layout->bands) {
            const std::vector<StackFrame> *frames = stackFrames(m_session->allocator(), b.stack);
            if (!frames) {
                m_colors.push_back(Palette::screen().color(Palette::Role::NoStack));
                continue;
            }
            const int top = firstUserFrame(*frames);
            const std::string key = top < 0 ? std::string("?") : (*frames)[static_cast<std::size_t>(top)].filename + ":"
                    + std::to_string((*frames)[static_cast<std::size_t>(top)].line);
            const auto it = frameColor.emplace(key, static_cast<int>(frameColor.size())).first;
            m_colors.push_back(frameColors[static_cast<std::size_t>(it->second) % frameColors.size()]);
        }
    }
    const bool clocked = !m_layout || m_layout->clocked;
    if (clocked) {
        xAxis->setTicker(QSharedPointer<TimeAxisTicker>::create());
        xAxis->setLabel(QString());
    } else {
        xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        xAxis->setLabel(tr("trace entry (the snapshot has no clock)"));
    }
    const double top = m_layout ? std::max<double>(1.0, static_cast<double>(m_layout->peak) * 1.08) : 1.0;
    yAxis->setRange(0, top);
    if (m_layout)
        xAxis->setRange(keyOf(m_layout->range.begin), keyOf(m_layout->range.end));
    replot();
}

int ActiveMemoryPlot::bandAt(QPointF pos) const
{
    if (!m_layout || !axisRect()->rect().contains(pos.toPoint()))
        return -1;
    return m_layout->bandAt(timeOf(xAxis->pixelToCoord(pos.x())), yAxis->pixelToCoord(pos.y()));
}

void ActiveMemoryPlot::setSelectedBand(int band)
{
    if (band == m_selected)
        return;
    m_selected = band;
    replot();
}

QColor ActiveMemoryPlot::bandColor(int band) const
{
    return band >= 0 && static_cast<std::size_t>(band) < m_colors.size() ? m_colors[static_cast<std::size_t>(band)] : QColor();
}

QString ActiveMemoryPlot::describe(int band) const
{
    if (!m_layout || band < 0 || static_cast<std::size_t>(band) >= m_layout->bands.size())
        return {};
    const ActiveMemory::Band &a = m_layout->bands[static_cast<std::size_t>(band)];
    const std::vector<StackFrame> *frames = stackFrames(m_session->allocator(), a.stack);
    const QString where = frames ? topFrameText(m_session->allocator(), a.stack) : tr("no stack recorded");
    QString text = QStringLiteral("%1 · 0x%2 · %3%4")
                       .arg(TimeFormat::bytes(static_cast<double>(a.size)), QString::number(a.address, 16), where,
                            a.allocation == ActiveMemory::kBeforeTrace ? tr(" · allocated before the trace began, alive at the snapshot")
                            : a.alive                                  ? tr(" · alive at the snapshot")
                                                                       : QString());
    // The stack itself, innermost first, as the stack list shows it on a click.
    if (frames) {
        constexpr std::size_t kShown = 14;
        for (std::size_t i = 0; i < frames->size() && i < kShown; ++i)
            text += QLatin1Char('\n') + formatStackFrame((*frames)[i]);
        if (frames->size() > kShown)
            text += QLatin1Char('\n') + tr("… %1 more frames").arg(frames->size() - kShown);
    }
    return text;
}

void ActiveMemoryPlot::applyColors(const Palette &palette)
{
    setBackground(palette.color(Palette::Role::Base));
    axisRect()->setBackground(palette.color(Palette::Role::Base));
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->setBasePen(QPen(palette.color(Palette::Role::AxisLine)));
        axis->setTickPen(QPen(palette.color(Palette::Role::AxisLine)));
        axis->setSubTickPen(QPen(palette.color(Palette::Role::AxisLine)));
        axis->setTickLabelColor(palette.color(Palette::Role::AxisText));
        axis->setLabelColor(palette.color(Palette::Role::AxisText));
        axis->grid()->setPen(QPen(palette.color(Palette::Role::ChartGrid)));
    }
    replot();
}

void ActiveMemoryPlot::mousePressEvent(QMouseEvent *event)
{
    m_pressPos = event->pos();
    QCustomPlot::mousePressEvent(event);
}

void ActiveMemoryPlot::mouseReleaseEvent(QMouseEvent *event)
{
    QCustomPlot::mouseReleaseEvent(event);
    // A click, not the end of a drag.
    if (event->button() == Qt::LeftButton && (event->pos() - m_pressPos).manhattanLength() < 4) {
        const int band = bandAt(event->position());
        setSelectedBand(band);
        Q_EMIT bandClicked(band);
    }
}

bool ActiveMemoryPlot::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int band = bandAt(help->pos());
        if (band >= 0)
            QToolTip::showText(help->globalPos(), describe(band), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QCustomPlot::event(event);
}

} // namespace rs
