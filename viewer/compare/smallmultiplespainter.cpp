#include "smallmultiplespainter.h"

#include "timeline/analysisoverlay.h"

#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

// Step numbers sit on the step's own colour (light blue-grey to red), on paper or a dark desktop.
const QColor kOnStepText(0x1f, 0x29, 0x37);

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
    // The steps the rank completed: a cut-off last step is no step time.
    std::vector<TimeNs> d;
    for (const Step &s : rank.steps)
        if (!s.incomplete)
            d.push_back(s.range.duration());
    if (d.empty())
        return 0;
    std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(d.size() / 2), d.end());
    return d[d.size() / 2];
}

} // namespace

QColor SmallMultiplesPainter::incompleteStepColor()
{
    return {0xe5, 0xe7, 0xeb};
}

void SmallMultiplesPainter::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_rows.clear();
    m_valueMax = 0;
    m_evidence.build(m_session.get(), m_analysis.get());
}

void SmallMultiplesPainter::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_analysis = std::move(analysis);
    m_evidence.build(m_session.get(), m_analysis.get());
}

void SmallMultiplesPainter::setRanks(const std::vector<RankId> &ranks)
{
    m_rows.clear();
    m_valueMax = 0;
    if (!m_session)
        return;
    for (RankId id : ranks) {
        const Rank *r = m_session->rank(id);
        if (!r)
            continue;
        RowData row;
        row.rank = id;
        row.info = r;
        row.allocated = counterOf(*m_session, *r, TrackKind::MemoryAllocated);
        row.reserved = counterOf(*m_session, *r, TrackKind::MemoryReserved);
        row.peak = maxOf(row.allocated);
        m_valueMax = std::max({m_valueMax, row.peak, maxOf(row.reserved)});
        m_rows.push_back(row);
    }
}

std::vector<RankId> SmallMultiplesPainter::ranks() const
{
    std::vector<RankId> out;
    for (const RowData &r : m_rows)
        out.push_back(r.rank);
    return out;
}

QColor SmallMultiplesPainter::oomColor()
{
    return QColor(0xc9, 0x1d, 0x2e);
}

QColor SmallMultiplesPainter::referenceColor(const Palette &colors)
{
    // The reference rank's curve over every other row: the strongest neutral of the theme.
    return colors.isDark() ? QColor(0xe6, 0xe8, 0xec, 170) : QColor(0x30, 0x34, 0x3a, 150);
}

QColor SmallMultiplesPainter::stepColor(TimeNs duration, TimeNs reference)
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

QPen SmallMultiplesPainter::reservedPen(RankId rank, const Palette &colors)
{
    return QPen(RankColors::textColor(rank, colors), 1.0, Qt::DashLine);
}

QFont SmallMultiplesPainter::smallFont(const QFont &font)
{
    // A pixel-sized font (the exported figures use one) has no point size to scale.
    QFont small = font;
    if (font.pixelSize() > 0)
        small.setPixelSize(std::max(8, int(std::lround(font.pixelSize() * 0.85))));
    else
        small.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.85));
    return small;
}

TimeNs SmallMultiplesPainter::offsetOf(RankId rank) const
{
    const auto it = m_offsets.find(rank);
    return it != m_offsets.end() ? it->second : 0;
}

SmallMultiplesPainter::Geometry SmallMultiplesPainter::geometry(const QRect &rect) const
{
    Geometry g;
    g.rows = int(m_rows.size());
    const int body = std::max(0, rect.height() - kAxisHeight);
    g.rowHeight = g.rows > 0 ? std::max(1, body / g.rows) : 0;
    const int used = g.rowHeight * g.rows;
    g.labels = QRect(rect.left(), rect.top(), m_labelWidth, used);
    g.plots = QRect(rect.left() + m_labelWidth, rect.top(), std::max(1, rect.width() - m_labelWidth - 8), used);
    g.axis = QRect(g.plots.left(), rect.top() + used, g.plots.width(), kAxisHeight);
    return g;
}

QRect SmallMultiplesPainter::plotsRect(const QRect &rect) const
{
    return geometry(rect).plots;
}

QRect SmallMultiplesPainter::plotRect(RankId rank, const QRect &rect) const
{
    const Geometry g = geometry(rect);
    for (int i = 0; i < g.rows; ++i)
        if (m_rows[std::size_t(i)].rank == rank) {
            const int top = g.plots.top() + i * g.rowHeight;
            return QRect(g.plots.left(), top + 4, g.plots.width(), std::max(1, g.rowHeight - kStripHeight - 8));
        }
    return {};
}

QRect SmallMultiplesPainter::stripRect(RankId rank, const QRect &rect) const
{
    const QRect plot = plotRect(rank, rect);
    return plot.isEmpty() ? QRect() : QRect(plot.left(), plot.bottom() + 2, plot.width(), kStripHeight);
}

int SmallMultiplesPainter::rowAt(const QRect &rect, int y) const
{
    const Geometry g = geometry(rect);
    if (g.rowHeight <= 0 || y < g.plots.top() || y >= g.plots.top() + g.rows * g.rowHeight)
        return -1;
    return (y - g.plots.top()) / g.rowHeight;
}

TimeNs SmallMultiplesPainter::timeAt(const QRect &rect, int x) const
{
    const QRect plots = geometry(rect).plots;
    const TimeRange vis = m_view.visible;
    return vis.begin + static_cast<TimeNs>(double(x - plots.left()) * double(vis.duration()) / double(plots.width()));
}

TimeNs SmallMultiplesPainter::referenceStep() const
{
    if (m_analysis)
        if (const RankMetrics *m = m_analysis->metricsOf(m_reference); m && m->stepTimeMedianNs)
            return *m->stepTimeMedianNs;
    const Rank *r = m_session ? m_session->rank(m_reference) : nullptr;
    return r ? medianStep(*r) : 0;
}

void SmallMultiplesPainter::paint(QPainter &p, const QRect &rect) const
{
    p.save();
    p.fillRect(rect, m_colors->color(Palette::Role::Base));
    p.setFont(m_font);
    if (m_rows.empty() || m_view.visible.isEmpty()) {
        p.setPen(m_colors->color(Palette::Role::Muted));
        p.drawText(rect, Qt::AlignCenter, m_session ? tr("No ranks to compare (all hidden?)") : tr("No session loaded"));
        p.restore();
        return;
    }
    const Geometry g = geometry(rect);
    for (int i = 0; i < g.rows; ++i)
        paintRow(p, g, i);
    paintAxis(p, g);
    p.restore();
}

void SmallMultiplesPainter::paintCurve(QPainter &p, const QRect &area, const CounterSeries &series, TimeNs offset,
                                       const QPen &pen, const QColor &fill) const
{
    const TimeRange vis = m_view.visible;
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

void SmallMultiplesPainter::paintLabel(QPainter &p, const RowData &row, const QRect &full) const
{
    // Colour stripe, name, badges; then the peak and the steps when the row is tall enough.
    const int top = full.top();
    p.fillRect(QRect(full.left(), top + 2, 4, full.height() - 4), RankColors::color(row.rank));
    QFont bold = m_font;
    bold.setBold(true);
    const QFont small = smallFont(m_font);
    const QFontMetrics fm(bold);
    const QFontMetrics sm(small);
    const int textLeft = full.left() + 10;
    p.setFont(bold);
    p.setPen(RankColors::textColor(row.rank, *m_colors));
    const QString name = tr("rank %1").arg(row.rank);
    p.drawText(QPoint(textLeft, top + 4 + fm.ascent()), name);
    int badgeX = textLeft + fm.horizontalAdvance(name) + 6;
    p.setFont(small);
    const auto badge = [&](const QString &text, const QColor &bg, const QColor &fg) {
        const QRect r(badgeX, top + 5, sm.horizontalAdvance(text) + 8, sm.height());
        p.setPen(Qt::NoPen);
        p.setBrush(bg);
        p.drawRoundedRect(r, 3, 3);
        p.setPen(fg);
        p.drawText(r, Qt::AlignCenter, text);
        badgeX = r.right() + 4;
    };
    if (!m_evidence.ooms(row.rank).empty() || m_evidence.oomCount(row.rank) > 0)
        badge(tr("OOM"), oomColor(), Qt::white);
    if (row.rank == m_reference)
        badge(m_referenceBadge, QColor(0x37, 0x41, 0x51), Qt::white);
    p.setPen(m_colors->color(Palette::Role::Caption));
    const int line2 = top + 4 + fm.height() + sm.ascent() + 1;
    if (full.height() >= fm.height() + sm.height() + 6)
        p.drawText(QPoint(textLeft, line2), row.allocated ? tr("peak %1").arg(TimeFormat::bytes(row.peak)) : tr("no memory data"));
    if (full.height() >= fm.height() + 2 * sm.height() + 8 && !row.info->steps.empty())
        p.drawText(QPoint(textLeft, line2 + sm.height()),
                   tr("%1, median %2")
                       .arg(countOf(qint64(row.info->steps.size()), tr("step"), tr("steps")), TimeFormat::duration(medianStep(*row.info))));
    p.setFont(m_font);
}

void SmallMultiplesPainter::paintRow(QPainter &p, const Geometry &g, int index) const
{
    const RowData &row = m_rows[std::size_t(index)];
    const int top = g.plots.top() + index * g.rowHeight;
    const QRect full(g.labels.left(), top, g.labels.width() + g.plots.width() + 8, g.rowHeight);
    const bool isRef = row.rank == m_reference;
    const Highlight &hl = m_view.highlight;
    if (m_view.selected == row.rank)
        p.fillRect(full, RankColors::tint(row.rank, 34));
    else if (index % 2)
        p.fillRect(full, m_colors->color(Palette::Role::FaintRow));
    if (hl.contains(row.rank))
        p.fillRect(full, AnalysisOverlay::highlightColor(22));
    paintLabel(p, row, QRect(full.left(), top, g.labels.width(), g.rowHeight));

    const QFont small = smallFont(m_font);
    const QFontMetrics sm(small);
    const QRect plot(g.plots.left(), top + 4, g.plots.width(), std::max(1, g.rowHeight - kStripHeight - 8));
    const QRect strip(plot.left(), plot.bottom() + 2, plot.width(), kStripHeight);
    p.setPen(m_colors->color(Palette::Role::PlotEdge));
    p.setBrush(Qt::NoBrush);
    p.drawLine(plot.left(), plot.top(), plot.right(), plot.top());
    p.drawLine(plot.left(), plot.bottom(), plot.right(), plot.bottom());
    const TimeNs off = offsetOf(row.rank);
    const TimeRange vis = m_view.visible;
    const double npp = double(vis.duration()) / double(plot.width());
    const auto xOf = [&](TimeNs viewTime) { return plot.left() + double(viewTime - vis.begin) / npp; };

    // Highlighted window of the selected finding.
    if (!hl.range.isEmpty() && hl.contains(row.rank)) {
        const double x0 = std::max(double(plot.left()), xOf(hl.range.begin));
        const double x1 = std::min(double(plot.right()), xOf(hl.range.end));
        if (x1 > x0)
            p.fillRect(QRectF(x0, plot.top(), x1 - x0, plot.height()), AnalysisOverlay::highlightColor(30));
    }

    if (!row.allocated && !row.reserved) {
        p.setPen(m_colors->color(Palette::Role::AxisLine));
        p.setFont(small);
        p.drawText(plot, Qt::AlignCenter, tr("no allocator memory events in this rank's trace"));
        p.setFont(m_font);
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    if (row.allocated) {
        const QColor c = RankColors::color(row.rank);
        QColor fill = c;
        fill.setAlpha(70);
        paintCurve(p, plot, row.allocated->counter, off, QPen(c.darker(115), 1.2), fill);
    }
    if (row.reserved)
        paintCurve(p, plot, row.reserved->counter, off, reservedPen(row.rank, *m_colors), QColor(0, 0, 0, 0));
    if (m_showReference && !isRef && m_session)
        if (const Rank *ref = m_session->rank(m_reference))
            if (const Track *t = counterOf(*m_session, *ref, TrackKind::MemoryAllocated))
                paintCurve(p, plot, t->counter, offsetOf(m_reference), QPen(referenceColor(*m_colors), 1.4), QColor(0, 0, 0, 0));
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
        // A cut-off step is no faster or slower than anything: hatched grey, never a deviation.
        if (s.incomplete) {
            p.fillRect(r, incompleteStepColor());
            p.fillRect(r, QBrush(m_colors->color(Palette::Role::Muted), Qt::BDiagPattern));
        } else {
            p.fillRect(r, stepColor(s.range.duration(), refStep));
        }
        const QString label = QString::number(s.number);
        if (r.width() > sm.horizontalAdvance(label) + 6) {
            p.setPen(kOnStepText); // on the step's own (light) colour, whatever the theme
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
        p.setFont(m_font);
    }
    p.setPen(m_colors->color(Palette::Role::RowRule));
    p.drawLine(full.left(), top + g.rowHeight - 1, full.right(), top + g.rowHeight - 1);
}

void SmallMultiplesPainter::paintAxis(QPainter &p, const Geometry &g) const
{
    const TimeRange vis = m_view.visible;
    const TimeNs origin = m_view.origin;
    const TimeNs step = TimeFormat::niceStep(double(vis.duration()) * 90.0 / double(g.plots.width()));
    const double npp = double(vis.duration()) / double(g.plots.width());
    const QFont small = smallFont(m_font);
    p.setFont(small);
    const QFontMetrics fm(small);
    const TimeNs firstRel = ((vis.begin - origin) / step) * step;
    for (TimeNs rel = firstRel; origin + rel <= vis.end; rel += step) {
        const double x = g.plots.left() + double(origin + rel - vis.begin) / npp;
        if (x < g.plots.left() || x > g.plots.right())
            continue;
        p.setPen(m_colors->color(Palette::Role::AxisGrid));
        p.drawLine(QPointF(x, g.plots.top()), QPointF(x, g.axis.top()));
        p.setPen(m_colors->color(Palette::Role::AxisLine));
        p.drawLine(QPointF(x, g.axis.top()), QPointF(x, g.axis.top() + 4));
        const QString label = TimeFormat::tick(rel, step, vis.end - origin);
        p.setPen(m_colors->color(Palette::Role::AxisText));
        p.drawText(QPointF(x + 3, g.axis.top() + 4 + fm.ascent()), label);
    }
    p.setPen(m_colors->color(Palette::Role::AxisLine));
    p.drawLine(g.axis.topLeft(), g.axis.topRight());
    // The shared y scale, said once for every row.
    p.setPen(m_colors->color(Palette::Role::Caption));
    const QString scale = m_valueMax > 0 ? tr("rows: 0 \u2013 %1").arg(TimeFormat::bytes(m_valueMax)) : tr("no memory data");
    p.drawText(QRect(g.labels.left() + 6, g.axis.top(), g.labels.width() - 8, g.axis.height()), Qt::AlignVCenter | Qt::AlignLeft, scale);
}

QString SmallMultiplesPainter::hoverText(int index, TimeNs viewTime) const
{
    const RowData &row = m_rows[std::size_t(index)];
    const TimeNs off = offsetOf(row.rank);
    const TimeNs t = viewTime - off;
    QStringList lines;
    lines << tr("<b>rank %1</b>%2 at %3")
                 .arg(row.rank)
                 .arg(row.rank == m_reference ? tr(" (reference)") : QString())
                 .arg(TimeFormat::precise(viewTime - m_view.origin));
    double v = 0;
    if (row.allocated && counterValueAt(row.allocated->counter, t, &v))
        lines << tr("allocated %1").arg(TimeFormat::bytes(v));
    if (row.reserved && counterValueAt(row.reserved->counter, t, &v))
        lines << tr("reserved %1").arg(TimeFormat::bytes(v));
    if (m_reference != row.rank && m_session)
        if (const Rank *ref = m_session->rank(m_reference))
            if (const Track *rt = counterOf(*m_session, *ref, TrackKind::MemoryAllocated);
                rt && counterValueAt(rt->counter, viewTime - offsetOf(m_reference), &v))
                lines << tr("reference rank %1 allocated %2").arg(m_reference).arg(TimeFormat::bytes(v));
    for (const Step &s : row.info->steps)
        if (s.range.contains(t)) {
            const TimeNs ref = referenceStep();
            QString line = tr("step %1: %2").arg(s.number).arg(TimeFormat::duration(s.range.duration()));
            if (s.incomplete)
                line += tr(" (cut off: the rank stopped inside it)");
            else if (ref > 0)
                line += tr(" (%1%2 % vs reference median)")
                            .arg(s.range.duration() >= ref ? QStringLiteral("+") : QString())
                            .arg((double(s.range.duration()) / double(ref) - 1.0) * 100, 0, 'f', 1);
            lines << line;
        }
    for (const OomMarker &m : m_evidence.ooms(row.rank))
        if (std::abs(m.time - t) <= std::max<TimeNs>(m_view.visible.duration() / 200, 1))
            lines << QStringLiteral("<span style='color:#c91d2e'>%1</span>").arg(tr("out of memory"));
    return lines.join(QStringLiteral("<br>"));
}

} // namespace rs
