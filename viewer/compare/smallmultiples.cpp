#include "smallmultiples.h"

#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

// The device allocator counter of a rank with the most samples (a rank normally has one GPU).
const Track *counterOf(const Session &s, const Rank &rank, TrackKind kind)
{
    const Track *best = nullptr;
    for (TrackId id : rank.tracks) {
        const Track &t = s.tracks()[id];
        if (t.kind == kind && t.device >= 0 && !t.counter.empty() && (!best || t.counter.size() > best->counter.size()))
            best = &t;
    }
    return best;
}

double maxOf(const Track *t)
{
    return t && !t->counter.empty() ? *std::max_element(t->counter.values.begin(), t->counter.values.end()) : 0.0;
}

QColor mix(const QColor &a, const QColor &b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

TimeNs medianStep(const Rank &rank)
{
    if (rank.steps.empty())
        return 0;
    std::vector<TimeNs> d;
    for (const Step &s : rank.steps)
        d.push_back(s.range.duration());
    std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(d.size() / 2), d.end());
    return d[d.size() / 2];
}

} // namespace

SmallMultiples::SmallMultiples(ViewState *state, QWidget *parent) : QWidget(parent), m_state(state)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::ClickFocus);
    if (state) {
        const auto repaint = [this] { update(); };
        connect(state, &ViewState::visibleRangeChanged, this, repaint);
        connect(state, &ViewState::fullRangeChanged, this, repaint);
        connect(state, &ViewState::clockOffsetsChanged, this, repaint);
        connect(state, &ViewState::selectedRankChanged, this, repaint);
        connect(state, &ViewState::highlightChanged, this, repaint);
        connect(state, &ViewState::rankHiddenChanged, this, [this] {
            rebuildRows();
            updateGeometry();
            update();
        });
    }
}

void SmallMultiples::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_evidence.build(m_session.get(), m_analysis.get());
    rebuildRows();
    updateGeometry();
    update();
}

void SmallMultiples::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_analysis = std::move(analysis);
    m_evidence.build(m_session.get(), m_analysis.get());
    update();
}

void SmallMultiples::setReferenceRank(RankId rank)
{
    if (rank == m_reference)
        return;
    m_reference = rank;
    update();
}

void SmallMultiples::setShowReference(bool show)
{
    if (show == m_showReference)
        return;
    m_showReference = show;
    update();
}

void SmallMultiples::rebuildRows()
{
    m_rows.clear();
    m_valueMax = 0;
    if (!m_session)
        return;
    for (const Rank &r : m_session->ranks()) {
        if (m_state && m_state->isRankHidden(r.id))
            continue;
        RowData row;
        row.rank = r.id;
        row.info = &r;
        row.allocated = counterOf(*m_session, r, TrackKind::MemoryAllocated);
        row.reserved = counterOf(*m_session, r, TrackKind::MemoryReserved);
        row.peak = maxOf(row.allocated);
        m_valueMax = std::max({m_valueMax, row.peak, maxOf(row.reserved)});
        m_rows.push_back(row);
    }
}

std::vector<RankId> SmallMultiples::shownRanks() const
{
    std::vector<RankId> out;
    for (const RowData &r : m_rows)
        out.push_back(r.rank);
    return out;
}

QColor SmallMultiples::oomColor()
{
    return QColor(0xc9, 0x1d, 0x2e);
}

QColor SmallMultiples::referenceColor()
{
    return QColor(0x30, 0x34, 0x3a, 150);
}

QColor SmallMultiples::stepColor(TimeNs duration, TimeNs reference)
{
    const QColor neutral(0xc4, 0xcf, 0xdc);
    if (reference <= 0)
        return neutral;
    const double dev = double(duration) / double(reference) - 1.0;
    if (std::abs(dev) < 0.02)
        return neutral;
    if (dev > 0)
        return dev < 0.25 ? mix(neutral, QColor(0xf5, 0xa0, 0x4a), dev / 0.25)
                          : mix(QColor(0xf5, 0xa0, 0x4a), QColor(0xd9, 0x3a, 0x30), (dev - 0.25) / 0.75);
    return mix(neutral, QColor(0x4f, 0xa8, 0x9c), -dev / 0.5);
}

QSize SmallMultiples::sizeHint() const
{
    return {720, int(std::max<std::size_t>(m_rows.size(), 1)) * kRowHeight + kAxisHeight};
}

QSize SmallMultiples::minimumSizeHint() const
{
    return {kLabelWidth + 160, int(std::max<std::size_t>(m_rows.size(), 1)) * kMinRowHeight + kAxisHeight};
}

SmallMultiples::Geometry SmallMultiples::geometry(const QRect &rect) const
{
    Geometry g;
    g.rows = int(m_rows.size());
    const int body = std::max(0, rect.height() - kAxisHeight);
    g.rowHeight = g.rows > 0 ? std::max(1, body / g.rows) : 0;
    const int used = g.rowHeight * g.rows;
    g.labels = QRect(rect.left(), rect.top(), kLabelWidth, used);
    g.plots = QRect(rect.left() + kLabelWidth, rect.top(), std::max(1, rect.width() - kLabelWidth - 8), used);
    g.axis = QRect(g.plots.left(), rect.top() + used, g.plots.width(), kAxisHeight);
    return g;
}

QRect SmallMultiples::plotRect(RankId rank, const QRect &rect) const
{
    const Geometry g = geometry(rect);
    for (int i = 0; i < g.rows; ++i)
        if (m_rows[std::size_t(i)].rank == rank) {
            const int top = g.plots.top() + i * g.rowHeight;
            return QRect(g.plots.left(), top + 4, g.plots.width(), std::max(1, g.rowHeight - kStripHeight - 8));
        }
    return {};
}

QRect SmallMultiples::stripRect(RankId rank, const QRect &rect) const
{
    const QRect plot = plotRect(rank, rect);
    return plot.isEmpty() ? QRect() : QRect(plot.left(), plot.bottom() + 2, plot.width(), kStripHeight);
}

int SmallMultiples::rowAt(const Geometry &g, int y) const
{
    if (g.rowHeight <= 0 || y < g.plots.top() || y >= g.plots.top() + g.rows * g.rowHeight)
        return -1;
    return (y - g.plots.top()) / g.rowHeight;
}

TimeNs SmallMultiples::timeAt(const Geometry &g, int x) const
{
    const TimeRange vis = m_state ? m_state->visibleRange() : TimeRange{};
    return vis.begin + static_cast<TimeNs>(double(x - g.plots.left()) * double(vis.duration()) / double(g.plots.width()));
}

TimeNs SmallMultiples::referenceStep() const
{
    if (m_analysis)
        if (const RankMetrics *m = m_analysis->metricsOf(m_reference); m && m->stepTimeMedianNs)
            return *m->stepTimeMedianNs;
    const Rank *r = m_session ? m_session->rank(m_reference) : nullptr;
    return r ? medianStep(*r) : 0;
}

void SmallMultiples::render(QPainter &painter, const QRect &rect) const
{
    paintFigure(painter, rect, false);
}

void SmallMultiples::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    paintFigure(p, rect(), true);
}

void SmallMultiples::paintFigure(QPainter &p, const QRect &rect, bool interactive) const
{
    p.save();
    p.fillRect(rect, Qt::white);
    p.setFont(font());
    if (m_rows.empty() || !m_state) {
        p.setPen(QColor(0x6b, 0x72, 0x80));
        p.drawText(rect, Qt::AlignCenter, m_session ? tr("No ranks to compare (all hidden?)") : tr("No session loaded"));
        p.restore();
        return;
    }
    const Geometry g = geometry(rect);
    for (int i = 0; i < g.rows; ++i)
        paintRow(p, g, i, interactive);
    paintAxis(p, g);
    if (interactive && m_hoverX >= g.plots.left() && m_hoverX <= g.plots.right()) {
        // The same aligned instant in every row: where the eye compares ranks.
        p.setPen(QPen(QColor(0x1f, 0x29, 0x37, 150), 1, Qt::DashLine));
        p.drawLine(m_hoverX, g.plots.top(), m_hoverX, g.axis.top());
    }
    p.restore();
}

void SmallMultiples::paintCurve(QPainter &p, const QRect &area, const CounterSeries &series, TimeNs offset,
                                const QPen &pen, const QColor &fill) const
{
    const TimeRange vis = m_state->visibleRange();
    const double npp = double(vis.duration()) / double(area.width());
    const TimeRange window{vis.begin - offset, vis.end - offset};
    decimateCounter(series, window, npp, m_columns);
    if (m_columns.empty() || m_valueMax <= 0)
        return;
    const double bottom = area.bottom() + 1;
    const double scale = double(area.height()) / m_valueMax;
    const auto xOf = [&](TimeNs t) { return area.left() + double(t - window.begin) / npp; };
    const auto yOf = [&](double v) { return bottom - std::max(0.0, v) * scale; };
    QPolygonF line;
    line.reserve(qsizetype(m_columns.size() * 4 + 2));
    double prevLast = m_columns.front().first;
    for (const CounterColumn &c : m_columns) {
        const double x = std::clamp(xOf(c.firstTime), double(area.left()) - 1, double(area.right()) + 2);
        line << QPointF(x, yOf(prevLast)) << QPointF(x, yOf(c.first));
        if (c.count > 1)
            line << QPointF(x, yOf(c.max)) << QPointF(x, yOf(c.min));
        line << QPointF(x, yOf(c.last));
        prevLast = c.last;
    }
    // The last value holds to the right edge only while the series still has samples beyond it.
    const double xEnd = std::min(double(area.right()) + 2, xOf(series.times.back()));
    line << QPointF(std::max(line.back().x(), xEnd), yOf(prevLast));
    p.save();
    p.setClipRect(area.adjusted(0, -2, 1, 1));
    if (fill.alpha() > 0) {
        QPolygonF poly = line;
        poly << QPointF(line.back().x(), bottom) << QPointF(line.front().x(), bottom);
        p.setPen(Qt::NoPen);
        p.setBrush(fill);
        p.drawPolygon(poly);
    }
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(line);
    p.restore();
}

void SmallMultiples::paintRow(QPainter &p, const Geometry &g, int index, bool) const
{
    const RowData &row = m_rows[std::size_t(index)];
    const int top = g.plots.top() + index * g.rowHeight;
    const QRect full(g.labels.left(), top, g.labels.width() + g.plots.width() + 8, g.rowHeight);
    const bool selected = m_state->selectedRank() == row.rank;
    const bool isRef = row.rank == m_reference;
    if (selected)
        p.fillRect(full, RankColors::tint(row.rank, 34));
    else if (index % 2)
        p.fillRect(full, QColor(0xfa, 0xfb, 0xfc));
    if (m_state->highlight().contains(row.rank))
        p.fillRect(full.left(), full.top(), full.width(), full.height(), QColor(0xe0, 0x8e, 0x00, 22));

    // Label column: colour stripe, name, peak, badges.
    p.fillRect(QRect(full.left(), top + 2, 4, g.rowHeight - 4), RankColors::color(row.rank));
    QFont bold = p.font();
    bold.setBold(true);
    QFont small = p.font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    const QFontMetrics fm(bold);
    const int textLeft = full.left() + 10;
    p.setFont(bold);
    p.setPen(RankColors::textColor(row.rank));
    p.drawText(QPoint(textLeft, top + 4 + fm.ascent()), tr("rank %1").arg(row.rank));
    int badgeX = textLeft + fm.horizontalAdvance(tr("rank %1").arg(row.rank)) + 6;
    p.setFont(small);
    const QFontMetrics sm(small);
    const auto badge = [&](const QString &text, const QColor &bg, const QColor &fg) {
        const QRect r(badgeX, top + 5, sm.horizontalAdvance(text) + 8, sm.height());
        p.setPen(Qt::NoPen);
        p.setBrush(bg);
        p.drawRoundedRect(r, 3, 3);
        p.setPen(fg);
        p.drawText(r, Qt::AlignCenter, text);
        badgeX = r.right() + 4;
    };
    const bool oom = !m_evidence.ooms(row.rank).empty() || m_evidence.oomCount(row.rank) > 0;
    if (oom)
        badge(tr("OOM"), oomColor(), Qt::white);
    if (isRef)
        badge(tr("ref"), QColor(0x37, 0x41, 0x51), Qt::white);
    p.setPen(QColor(0x55, 0x5d, 0x68));
    const int line2 = top + 4 + fm.height() + sm.ascent() + 1;
    if (g.rowHeight >= fm.height() + sm.height() + 6)
        p.drawText(QPoint(textLeft, line2), row.allocated ? tr("peak %1").arg(TimeFormat::bytes(row.peak)) : tr("no memory data"));
    if (g.rowHeight >= fm.height() + 2 * sm.height() + 8 && !row.info->steps.empty()) {
        const TimeNs med = medianStep(*row.info);
        p.drawText(QPoint(textLeft, line2 + sm.height()),
                   tr("%1, median %2").arg(countOf(qint64(row.info->steps.size()), tr("step"), tr("steps")), TimeFormat::duration(med)));
    }
    p.setFont(font());

    const QRect plot(g.plots.left(), top + 4, g.plots.width(), std::max(1, g.rowHeight - kStripHeight - 8));
    const QRect strip(plot.left(), plot.bottom() + 2, plot.width(), kStripHeight);
    p.setPen(QColor(0xe3, 0xe6, 0xea));
    p.setBrush(Qt::NoBrush);
    p.drawLine(plot.left(), plot.top(), plot.right(), plot.top());
    p.drawLine(plot.left(), plot.bottom(), plot.right(), plot.bottom());
    const TimeNs off = m_state->clockOffset(row.rank);
    const TimeRange vis = m_state->visibleRange();
    const double npp = double(vis.duration()) / double(plot.width());
    const auto xOf = [&](TimeNs viewTime) { return plot.left() + double(viewTime - vis.begin) / npp; };

    // Highlighted window of the selected finding.
    if (!m_state->highlight().range.isEmpty() && m_state->highlight().contains(row.rank)) {
        const double x0 = std::max(double(plot.left()), xOf(m_state->highlight().range.begin));
        const double x1 = std::min(double(plot.right()), xOf(m_state->highlight().range.end));
        if (x1 > x0)
            p.fillRect(QRectF(x0, plot.top(), x1 - x0, plot.height()), QColor(0xe0, 0x8e, 0x00, 30));
    }

    if (!row.allocated && !row.reserved) {
        p.setPen(QColor(0x9a, 0xa0, 0xa6));
        p.setFont(small);
        p.drawText(plot, Qt::AlignCenter, tr("no allocator memory events in this rank's trace"));
        p.setFont(font());
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    if (row.allocated) {
        const QColor c = RankColors::color(row.rank);
        QColor fill = c;
        fill.setAlpha(70);
        paintCurve(p, plot, row.allocated->counter, off, QPen(c.darker(115), 1.2), fill);
    }
    if (row.reserved)
        paintCurve(p, plot, row.reserved->counter, off, QPen(RankColors::textColor(row.rank), 1.0, Qt::DashLine), QColor(0, 0, 0, 0));
    if (m_showReference && !isRef && m_session) {
        if (const Rank *ref = m_session->rank(m_reference))
            if (const Track *t = counterOf(*m_session, *ref, TrackKind::MemoryAllocated))
                paintCurve(p, plot, t->counter, m_state->clockOffset(m_reference), QPen(referenceColor(), 1.4), QColor(0, 0, 0, 0));
    }
    p.setRenderHint(QPainter::Antialiasing, false);

    // Steps, coloured against the reference's median step.
    const TimeNs refStep = referenceStep();
    p.save();
    p.setClipRect(strip);
    p.setFont(small);
    for (const Step &s : row.info->steps) {
        const double x0 = xOf(s.range.begin + off), x1 = xOf(s.range.end + off);
        if (x1 < strip.left() || x0 > strip.right() + 1)
            continue;
        const QRectF r(x0, strip.top(), std::max(1.0, x1 - x0 - 1), strip.height());
        p.fillRect(r, stepColor(s.range.duration(), refStep));
        const QString label = QString::number(s.number);
        if (r.width() > sm.horizontalAdvance(label) + 6) {
            p.setPen(QColor(0x1f, 0x29, 0x37));
            p.drawText(r, Qt::AlignCenter, label);
        }
    }
    p.restore();

    // Out-of-memory moments: a solid red rule through the plot with a marker on top.
    for (const OomMarker &m : m_evidence.ooms(row.rank)) {
        const int x = int(std::lround(xOf(m.time + off)));
        if (x < plot.left() || x > plot.right())
            continue;
        p.fillRect(QRect(x - 1, plot.top(), 2, plot.height() + kStripHeight + 2), oomColor());
        const QPolygon tri({QPoint(x - 5, plot.top()), QPoint(x + 5, plot.top()), QPoint(x, plot.top() + 6)});
        p.setPen(Qt::NoPen);
        p.setBrush(oomColor());
        p.drawPolygon(tri);
        p.setFont(small);
        p.setPen(oomColor());
        const QString label = m.requested > 0 ? tr("OOM %1").arg(TimeFormat::bytes(double(m.requested))) : tr("OOM");
        const int w = sm.horizontalAdvance(label);
        const int tx = x + 4 + w < plot.right() ? x + 4 : x - 4 - w;
        p.drawText(QPoint(tx, plot.top() + 6 + sm.ascent()), label);
        p.setFont(font());
    }
    p.setPen(QColor(0xd5, 0xd9, 0xde));
    p.drawLine(full.left(), top + g.rowHeight - 1, full.right(), top + g.rowHeight - 1);
}

void SmallMultiples::paintAxis(QPainter &p, const Geometry &g) const
{
    const TimeRange vis = m_state->visibleRange();
    const TimeNs origin = m_state->fullRange().begin;
    const TimeNs step = TimeFormat::niceStep(double(vis.duration()) * 90.0 / double(g.plots.width()));
    const double npp = double(vis.duration()) / double(g.plots.width());
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    p.setFont(small);
    const QFontMetrics fm(small);
    const TimeNs firstRel = ((vis.begin - origin) / step) * step;
    for (TimeNs rel = firstRel; origin + rel <= vis.end; rel += step) {
        const double x = g.plots.left() + double(origin + rel - vis.begin) / npp;
        if (x < g.plots.left() || x > g.plots.right())
            continue;
        p.setPen(QColor(0x00, 0x00, 0x00, 18));
        p.drawLine(QPointF(x, g.plots.top()), QPointF(x, g.axis.top()));
        p.setPen(QColor(0x9a, 0xa0, 0xa6));
        p.drawLine(QPointF(x, g.axis.top()), QPointF(x, g.axis.top() + 4));
        const QString label = TimeFormat::tick(rel, step, vis.end - origin);
        p.setPen(QColor(0x4b, 0x55, 0x63));
        p.drawText(QPointF(x + 3, g.axis.top() + 4 + fm.ascent()), label);
    }
    p.setPen(QColor(0x9a, 0xa0, 0xa6));
    p.drawLine(g.axis.topLeft(), g.axis.topRight());
    // The shared y scale and the reference, said once for every row.
    p.setPen(QColor(0x55, 0x5d, 0x68));
    const QString scale = m_valueMax > 0 ? tr("rows: 0 \u2013 %1").arg(TimeFormat::bytes(m_valueMax)) : tr("no memory data");
    p.drawText(QRect(g.labels.left() + 6, g.axis.top(), g.labels.width() - 8, g.axis.height()), Qt::AlignVCenter | Qt::AlignLeft, scale);
}

QString SmallMultiples::hoverText(const RowData &row, TimeNs viewTime) const
{
    const TimeNs off = m_state->clockOffset(row.rank);
    const TimeNs t = viewTime - off;
    QStringList lines;
    lines << tr("<b>rank %1</b>%2 at %3")
                 .arg(row.rank)
                 .arg(row.rank == m_reference ? tr(" (reference)") : QString())
                 .arg(TimeFormat::precise(viewTime - m_state->fullRange().begin));
    double v = 0;
    if (row.allocated && counterValueAt(row.allocated->counter, t, &v))
        lines << tr("allocated %1").arg(TimeFormat::bytes(v));
    if (row.reserved && counterValueAt(row.reserved->counter, t, &v))
        lines << tr("reserved %1").arg(TimeFormat::bytes(v));
    if (m_reference != row.rank && m_session)
        if (const Rank *ref = m_session->rank(m_reference))
            if (const Track *rt = counterOf(*m_session, *ref, TrackKind::MemoryAllocated);
                rt && counterValueAt(rt->counter, viewTime - m_state->clockOffset(m_reference), &v))
                lines << tr("reference rank %1 allocated %2").arg(m_reference).arg(TimeFormat::bytes(v));
    for (const Step &s : row.info->steps)
        if (s.range.contains(t)) {
            const TimeNs ref = referenceStep();
            QString line = tr("step %1: %2").arg(s.number).arg(TimeFormat::duration(s.range.duration()));
            if (ref > 0)
                line += tr(" (%1%2 % vs reference median)")
                            .arg(s.range.duration() >= ref ? QStringLiteral("+") : QString())
                            .arg((double(s.range.duration()) / double(ref) - 1.0) * 100, 0, 'f', 1);
            lines << line;
        }
    for (const OomMarker &m : m_evidence.ooms(row.rank))
        if (std::abs(m.time - t) <= std::max<TimeNs>(m_state->visibleRange().duration() / 200, 1))
            lines << QStringLiteral("<span style='color:#c91d2e'>%1</span>").arg(tr("out of memory"));
    return lines.join(QStringLiteral("<br>"));
}

void SmallMultiples::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_state)
        return QWidget::mousePressEvent(event);
    m_pressed = true;
    m_dragging = false;
    m_pressPos = event->position().toPoint();
    m_pressRange = m_state->visibleRange();
}

void SmallMultiples::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_state)
        return;
    const Geometry g = geometry(rect());
    const QPoint pos = event->position().toPoint();
    if (m_pressed) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() >= 4)
            m_dragging = true;
        if (m_dragging) {
            const double npp = double(m_pressRange.duration()) / double(g.plots.width());
            const auto shift = static_cast<TimeNs>(double(m_pressPos.x() - pos.x()) * npp);
            m_state->setVisibleRange({m_pressRange.begin + shift, m_pressRange.end + shift}, ViewState::Change::Continuous);
            setCursor(Qt::ClosedHandCursor);
        }
    }
    const int row = rowAt(g, pos.y());
    m_hoverX = g.plots.contains(pos) ? pos.x() : -1;
    update();
    if (row >= 0 && m_hoverX >= 0 && !m_dragging)
        QToolTip::showText(event->globalPosition().toPoint(), hoverText(m_rows[std::size_t(row)], timeAt(g, pos.x())), this);
    else
        QToolTip::hideText();
}

void SmallMultiples::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_state || !m_pressed)
        return QWidget::mouseReleaseEvent(event);
    m_pressed = false;
    unsetCursor();
    if (m_dragging) {
        m_dragging = false;
        m_state->endGesture();
        return;
    }
    const int row = rowAt(geometry(rect()), event->position().toPoint().y());
    if (row >= 0)
        m_state->setSelectedRank(m_rows[std::size_t(row)].rank);
}

void SmallMultiples::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (m_state && event->button() == Qt::LeftButton)
        m_state->resetZoom();
}

void SmallMultiples::wheelEvent(QWheelEvent *event)
{
    if (!m_state)
        return QWidget::wheelEvent(event);
    const Geometry g = geometry(rect());
    const QPoint pos = event->position().toPoint();
    const QPoint delta = event->angleDelta();
    // Inside a scroll area that cannot show every row, the plain wheel scrolls; Ctrl always zooms.
    const bool clipped = visibleRegion().boundingRect().height() < height();
    if (delta.x() != 0 && delta.y() == 0) {
        m_state->panBy(static_cast<TimeNs>(-double(delta.x()) / 120.0 * 0.1 * double(m_state->visibleRange().duration())));
    } else if ((event->modifiers() & Qt::ControlModifier) || !clipped) {
        const double factor = std::pow(0.85, double(delta.y()) / 120.0);
        m_state->zoomBy(factor, timeAt(g, std::clamp(pos.x(), g.plots.left(), g.plots.right())));
    } else {
        return event->ignore();
    }
    event->accept();
}

void SmallMultiples::leaveEvent(QEvent *event)
{
    m_hoverX = -1;
    update();
    QWidget::leaveEvent(event);
}

} // namespace rs
