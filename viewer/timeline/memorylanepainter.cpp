#include "memorylanepainter.h"

#include "lod.h"
#include "logstyle.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "timeline/analysisoverlay.h"
#include "timeline/timelinecontext.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

const QColor kOom(0xc9, 0x1d, 0x2e);

// 1, 2, 2.5 or 5 × a power of 1024 reads well as GiB/MiB labels; aim for about four grid lines.
double niceByteStep(double maxBytes)
{
    const double target = maxBytes / 4.0;
    double unit = 1;
    while (unit * 1024 <= target)
        unit *= 1024;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0, 200.0, 250.0, 500.0})
        if (unit * m >= target)
            return unit * m;
    return unit * 1024;
}

} // namespace

std::vector<MemoryLanePainter::Curve> MemoryLanePainter::curvesOf(const Session &s, const std::vector<TrackId> &tracks,
                                                                      RankId rank)
{
    std::vector<Curve> areas, lines;
    if (tracks.empty())
        return areas;
    const int device = s.tracks()[tracks.front()].device;
    for (TrackId id : tracks) {
        const Track &t = s.tracks()[id];
        const QString suffix = t.device != device ? tr(" (GPU %1)").arg(t.device) : QString();
        // The same reading as the screen: snapshot totals dotted in the rank's colours (the same
        // allocator), nvidia-smi dashed and neutral (the whole device, not just PyTorch).
        const bool snapshot = t.source < s.sources().size() && s.sources()[t.source].format == "memory-snapshot";
        switch (t.kind) {
        case TrackKind::MemoryAllocated:
            if (snapshot)
                lines.push_back({id, tr("snapshot allocated") + suffix, RankColors::color(rank), Style::Dotted});
            else
                areas.push_back({id, tr("allocated") + suffix, RankColors::color(rank), Style::Area});
            break;
        case TrackKind::MemoryReserved:
            lines.push_back({id, (snapshot ? tr("snapshot reserved") : tr("reserved")) + suffix, RankColors::textColor(rank),
                             snapshot ? Style::Dotted : Style::Line});
            break;
        default:
            lines.push_back({id, tr("used (nvidia-smi)") + suffix, QColor(0x37, 0x41, 0x51), Style::Dashed});
            break;
        }
    }
    areas.insert(areas.end(), lines.begin(), lines.end());
    return areas;
}

QPen MemoryLanePainter::pen(Style style, const QColor &color)
{
    switch (style) {
    case Style::Area:
    case Style::Line: return QPen(color, 1);
    case Style::Dashed: {
        QPen p(color, 1.5);
        p.setDashPattern({4, 3});
        return p;
    }
    case Style::Dotted: {
        QPen p(color, 1.5);
        p.setDashPattern({1, 2});
        return p;
    }
    }
    return QPen(color);
}

QPen MemoryLanePainter::capacityPen()
{
    return QPen(QColor(0xc9, 0x1d, 0x2e, 170), 1, Qt::DashDotLine);
}

MemoryLanePainter::MemoryLanePainter(QPainter &painter, TimelineContext &context, const TimeScale &view, TimeNs dataOffset)
    : m_p(painter)
    , m_ctx(context)
    , m_view(view)
    , m_scale(view.shifted(dataOffset))
{
}

void MemoryLanePainter::plot(const QRect &area, const std::vector<Curve> &curves, double valueMax, double capacity,
                               RankId rank, const Highlight &highlight)
{
    if (area.width() < 2 || area.height() < 8)
        return;
    // Headroom so the peak does not touch the lane above, as on screen.
    const double top = valueMax > 0 ? valueMax * 1.1 : 1.0;
    const double plotTop = area.top() + 4;
    const double plotBottom = area.bottom() - 1;
    auto yOf = [&](double v) { return plotBottom - std::clamp(v / top, 0.0, 1.05) * (plotBottom - plotTop); };

    m_p.save();
    m_p.setClipRect(area);
    QFont small = m_p.font();
    small.setPixelSize(10);
    m_p.setFont(small);
    const QFontMetrics fm(small);

    // Value grid and its labels; labels are drawn last so curves never hide them.
    std::vector<std::pair<double, QString>> labels;
    if (valueMax > 0) {
        const double step = niceByteStep(top);
        for (double v = step; v <= top; v += step) {
            const double y = std::floor(yOf(v)) + 0.5;
            m_p.setPen(m_ctx.colors->color(Palette::Role::ChartGrid));
            m_p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
            labels.emplace_back(y, TimeFormat::bytes(v));
        }
    }
    m_p.setPen(m_ctx.colors->color(Palette::Role::ChromeBorder));
    m_p.drawLine(QPointF(area.left(), plotBottom + 0.5), QPointF(area.right(), plotBottom + 0.5));

    if (highlight.contains(rank) && !highlight.range.isEmpty()) {
        const double x0 = m_view.toX(highlight.range.begin);
        const double x1 = std::max(m_view.toX(highlight.range.end), x0 + 2);
        m_p.fillRect(QRectF(x0, area.top(), x1 - x0, area.height()), AnalysisOverlay::highlightColor(34));
    }

    // Spikes under the curves: an amber band over each rise with its size on top.
    const QColor amber = AnalysisOverlay::highlightColor();
    if (m_ctx.analysis) {
        for (const Spike &s : m_ctx.analysis->spikes) {
            if (s.rank != rank)
                continue;
            const double x0 = m_view.toX(s.timeNs);
            const double x1 = std::max(x0 + 3, m_view.toX(s.timeNs + s.durationNs));
            if (x1 < area.left() || x0 > area.right())
                continue;
            QColor band = amber;
            band.setAlpha(50);
            m_p.fillRect(QRectF(x0, plotTop + (plotBottom - plotTop) * 0.12, x1 - x0, (plotBottom - plotTop) * 0.88), band);
            const QString text = QStringLiteral("+%1").arg(TimeFormat::bytes(static_cast<double>(s.bytes)));
            m_p.setPen(QColor(0x8a, 0x55, 0x00));
            m_p.drawText(QPointF(x1 + 3, plotTop + fm.ascent() + 1), text);
        }
    }

    // Curves: decimated to one min/max column per pixel, stepped like a counter.
    m_p.setRenderHint(QPainter::Antialiasing, true);
    std::vector<CounterColumn> &cols = m_ctx.columns;
    for (const Curve &c : curves) {
        if (c.track >= m_ctx.session->tracks().size())
            continue;
        decimateCounter(m_ctx.session->tracks()[c.track].counter, m_scale.range, m_scale.nsPerPixel(), cols);
        if (cols.empty())
            continue;
        auto xOf = [&](TimeNs t) { return std::clamp(m_scale.toX(t), area.left() - 2.0, area.right() + 2.0); };
        QPolygonF line;
        double lastY = yOf(cols.front().first);
        for (const CounterColumn &col : cols) {
            const double x = xOf(col.firstTime);
            if (!line.isEmpty())
                line << QPointF(x, lastY);
            line << QPointF(x, yOf(col.first));
            if (col.count > 1)
                line << QPointF(x, yOf(col.max)) << QPointF(x, yOf(col.min)) << QPointF(xOf(col.lastTime), yOf(col.last));
            lastY = yOf(col.last);
        }
        line << QPointF(xOf(cols.back().lastTime), lastY);
        if (c.style == Style::Area) {
            QPolygonF fill = line;
            fill.prepend(QPointF(line.front().x(), plotBottom));
            fill << QPointF(line.back().x(), plotBottom);
            QColor f = c.color;
            f.setAlpha(70);
            m_p.setPen(Qt::NoPen);
            m_p.setBrush(f);
            m_p.drawPolygon(fill);
        }
        QPen pn = pen(c.style, c.color);
        if (c.style == Style::Area || c.style == Style::Line)
            pn.setWidthF(1.3);
        m_p.setPen(pn);
        m_p.setBrush(Qt::NoBrush);
        m_p.drawPolyline(line);
    }

    if (capacity > 0 && capacity <= top) {
        m_p.setPen(capacityPen());
        const double y = yOf(capacity);
        m_p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
    }

    // OOM moments: a red rule, the stop-sign marker and what was asked for.
    QFont bold = small;
    bold.setBold(true);
    // One OOM is often reported twice a few pixels apart (the profiler's instant and the log's
    // message): the second label would smear over the first, so a label overlapping one already
    // drawn is left out (its rule and marker stay). Timed OOMs go first: their label is exact, a
    // placed one's ("≈") only estimated.
    std::vector<OomMarker> ooms = m_ctx.evidence.ooms(rank);
    std::stable_partition(ooms.begin(), ooms.end(), [](const OomMarker &m) { return !m.placed; });
    std::vector<QRectF> oomLabels;
    for (const OomMarker &m : ooms) {
        const double x = std::floor(m_scale.toX(m.time)) + 0.5;
        if (x < area.left() - 1 || x > area.right() + 1)
            continue;
        m_p.setPen(QPen(kOom, 1.5));
        m_p.drawLine(QPointF(x, plotTop), QPointF(x, plotBottom));
        LogStyle::paintMarker(m_p, QPointF(x, plotTop + 6), LogStyle::Mark::Oom, 5.5);
        QString text = m.requested > 0 ? tr("OOM · %1").arg(TimeFormat::bytes(static_cast<double>(m.requested))) : tr("OOM");
        if (m.placed)
            text = QStringLiteral("≈ ") + text;
        m_p.setFont(bold);
        const QFontMetrics bfm(bold);
        const int w = bfm.horizontalAdvance(text);
        // Left of the line when the line is near the right edge, so the label stays inside.
        const double tx = x + 9 + w > area.right() ? x - 9 - w : x + 9;
        const QRectF box(tx - 2, plotTop + 6 - bfm.height() / 2.0, w + 4, bfm.height());
        if (std::any_of(oomLabels.begin(), oomLabels.end(), [&](const QRectF &r) { return r.intersects(box); }))
            continue;
        oomLabels.push_back(box);
        m_p.fillRect(box, m_ctx.colors->color(Palette::Role::LegendBox));
        m_p.setPen(kOom);
        m_p.drawText(box, Qt::AlignCenter, text);
        m_p.setFont(small);
    }
    m_p.setRenderHint(QPainter::Antialiasing, false);

    m_p.setFont(small);
    for (const auto &[y, text] : labels) {
        if (y - fm.height() < area.top() - 2)
            continue;
        const QRectF box(area.left() + 3, y - fm.height() + 1, fm.horizontalAdvance(text) + 4, fm.height() - 1);
        QColor behind = m_ctx.colors->color(Palette::Role::LegendBox);
        behind.setAlpha(200);
        m_p.fillRect(box, behind);
        m_p.setPen(m_ctx.colors->color(Palette::Role::Muted));
        m_p.drawText(box, Qt::AlignCenter, text);
    }
    m_p.restore();
}

void MemoryLanePainter::legend(int left, int top, int width, int bottom, const std::vector<Curve> &curves, double capacity)
{
    QFont small = m_p.font();
    small.setPixelSize(11);
    m_p.save();
    m_p.setFont(small);
    const int row = 15;
    int y = top;
    auto swatch = [&](const Curve &c) {
        if (c.style == Style::Area) {
            QColor f = c.color;
            f.setAlpha(140);
            m_p.fillRect(QRect(left + 2, y + 5, 14, 6), f);
        } else {
            m_p.setPen(pen(c.style, c.color));
            m_p.drawLine(QPointF(left + 2, y + 8), QPointF(left + 17, y + 8));
        }
    };
    for (const Curve &c : curves) {
        if (y + row > bottom)
            break;
        swatch(c);
        const double peak = c.track < m_ctx.counterMax.size() ? m_ctx.counterMax[c.track] : 0;
        m_p.setPen(m_ctx.colors->color(Palette::Role::Muted));
        m_p.drawText(QRect(left + 20, y, width - 20, row), Qt::AlignLeft | Qt::AlignVCenter, c.name);
        m_p.setPen(m_ctx.colors->color(Palette::Role::Title));
        m_p.drawText(QRect(left + 20, y, width - 20, row), Qt::AlignRight | Qt::AlignVCenter,
                     tr("peak %1").arg(TimeFormat::bytes(peak)));
        y += row;
    }
    if (capacity > 0 && y + row <= bottom) {
        m_p.setPen(capacityPen());
        m_p.drawLine(QPointF(left + 2, y + 8), QPointF(left + 17, y + 8));
        m_p.setPen(m_ctx.colors->color(Palette::Role::Muted));
        m_p.drawText(QRect(left + 20, y, width - 20, row), Qt::AlignLeft | Qt::AlignVCenter, tr("GPU capacity"));
        m_p.setPen(m_ctx.colors->color(Palette::Role::Title));
        m_p.drawText(QRect(left + 20, y, width - 20, row), Qt::AlignRight | Qt::AlignVCenter, TimeFormat::bytes(capacity));
    }
    m_p.restore();
}

} // namespace rs
