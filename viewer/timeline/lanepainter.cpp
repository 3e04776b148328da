#include "lanepainter.h"

#include "counterformat.h"
#include "logstyle.h"
#include "timeformat.h"
#include "timelinecontext.h"

#include <QPainter>

#include <algorithm>
#include <climits>
#include <cmath>

namespace rs {

namespace {

const QColor kCounterFill(0x5b, 0x8d, 0xc9, 90);
const QColor kCounterLine(0x2f, 0x5f, 0x9a);
const QColor kInstant(0xc2, 0x41, 0x0c);
const QColor kOom(0xd1, 0x1a, 0x2a);

// Labels need room for a few characters; below this they are noise.
constexpr double kMinLabelWidth = 28.0;

} // namespace

LanePainter::LanePainter(QPainter &painter, TimelineContext &context, const TimeScale &viewScale, TimeNs dataOffset,
                         int groupWidth)
    : m_p(painter)
    , m_ctx(context)
    , m_view(viewScale)
    , m_scale(viewScale.shifted(dataOffset))
    , m_left(static_cast<int>(viewScale.x0))
    , m_right(groupWidth)
{
}

QRectF LanePainter::spanRect(const TimeScale &scale, const Lane &lane, const Span &span)
{
    const double x1 = scale.toX(span.start);
    const double x2 = std::max(scale.toX(span.end()), x1 + 1.0);
    const double y = lane.top + LaneLayout::kLanePadding + span.depth * LaneLayout::kRowHeight;
    return {x1, y, x2 - x1, LaneLayout::kRowHeight - 1.0};
}

void LanePainter::grid(int top, int height)
{
    if (!m_ctx.ticks)
        return;
    // The grid belongs to the axis, so it uses view time, not the rank's shifted data time.
    auto line = [&](TimeNs t, const QColor &c) {
        const int x = static_cast<int>(std::floor(m_view.toX(t)));
        if (x < m_left || x >= m_right)
            return;
        m_p.setPen(c);
        m_p.drawLine(x, top, x, top + height - 1);
    };
    for (const RulerTick &t : m_ctx.ticks->minor)
        line(t.time, m_ctx.colors->color(Palette::Role::GridMinor));
    for (const RulerTick &t : m_ctx.ticks->major)
        line(t.time, m_ctx.colors->color(Palette::Role::GridMajor));
}

void LanePainter::label(const QRectF &r, const QString &text, const QColor &background)
{
    // Labels stay inside the visible part of the span, so a span entering from the left still
    // says what it is.
    const double left = std::max(r.left(), static_cast<double>(m_left));
    const double right = std::min(r.right(), static_cast<double>(m_right));
    const double w = right - left - 6;
    if (w < kMinLabelWidth || text.isEmpty())
        return;
    const QFontMetrics fm = m_p.fontMetrics();
    const int full = fm.horizontalAdvance(text);
    const QRectF box(left + 3, r.top(), w, r.height());
    m_p.setPen(SpanPalette::textOn(background));
    if (full <= w) {
        m_p.drawText(box, Qt::AlignCenter, text);
        return;
    }
    const QString elided = fm.elidedText(text, Qt::ElideRight, static_cast<int>(w));
    // "a…" or "ate…" tells nothing; below four characters leave the span plain.
    if (elided.size() < 5)
        return;
    m_p.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, elided);
}

void LanePainter::folded(const QRectF &r, const Span &sample, std::uint32_t count)
{
    // Busy blocks carry the family colour of a span from their middle (kernels stay green,
    // collectives red) but muted and hatched, so they read as "many small things", never as one span.
    const std::string_view category = m_ctx.session->str(sample.category);
    QColor base = SpanPalette::familyColor(SpanPalette::family(sample.flags, category));
    base.setHsl(base.hslHue(), base.hslSaturation() * 3 / 4, std::min(255, base.lightness() + 12));
    m_p.fillRect(r, base);
    QColor hatch = base.darker(135);
    hatch.setAlpha(150);
    m_p.fillRect(r, QBrush(hatch, Qt::BDiagPattern));
    if (r.width() >= 48)
        label(r, QStringLiteral("%L1 ×").arg(count), base);
}

void LanePainter::spans(const Lane &lane, TrackId trackId, const QRect &exposed)
{
    const Track &track = m_ctx.session->tracks()[trackId];
    const double npp = m_scale.nsPerPixel();
    const TimeRange range = m_scale.range;
    for (std::uint16_t d = 0; d < track.levelCount(); ++d) {
        const int y = lane.top + LaneLayout::kLanePadding + d * LaneLayout::kRowHeight;
        if (y > exposed.bottom() || y + LaneLayout::kRowHeight < exposed.top())
            continue;
        foldSpans(track, d, range, npp, m_ctx.spanItems);
        for (const SpanDrawItem &item : m_ctx.spanItems) {
            const Span &first = track.spans[item.first];
            double x1 = std::floor(m_scale.toX(item.start));
            double x2 = std::floor(m_scale.toX(item.end));
            x1 = std::max(x1, static_cast<double>(m_left - 2));
            x2 = std::min(x2, static_cast<double>(m_right + 2));
            if (x2 <= x1)
                x2 = x1 + 1;
            if (item.isFolded()) {
                folded(QRectF(x1, y, x2 - x1, LaneLayout::kRowHeight - 1), track.spans[item.first + item.count / 2],
                       item.count);
                continue;
            }
            const QRgb color = m_ctx.palette.color(first);
            // A 1 px gap at the right separates back-to-back spans once they are wide enough.
            const double w = x2 - x1 > 4 ? x2 - x1 - 1 : x2 - x1;
            const QRectF r(x1, y, w, LaneLayout::kRowHeight - 1);
            m_p.fillRect(r, QColor::fromRgb(color));
            if (w >= kMinLabelWidth)
                label(r, m_ctx.text(first.name), QColor::fromRgb(color));
        }
    }
}

void LanePainter::outline(const Lane &lane, const Span &span, bool selected)
{
    QRectF r = spanRect(m_scale, lane, span);
    r.setLeft(std::max(r.left(), static_cast<double>(m_left - 3)));
    r.setRight(std::min(r.right(), static_cast<double>(m_right + 3)));
    m_p.setBrush(Qt::NoBrush);
    if (selected) {
        m_p.setPen(QPen(m_ctx.colors->color(Palette::Role::Outline), 2));
        m_p.drawRect(r.adjusted(-1, -1, 1, 1));
    } else {
        QColor hover = m_ctx.colors->color(Palette::Role::Outline);
        hover.setAlpha(150);
        m_p.setPen(QPen(hover, 1));
        m_p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
    }
}

void LanePainter::steps(const Lane &lane, const Rank &rank)
{
    const TimeRange range = m_scale.range;
    auto it = std::partition_point(rank.steps.begin(), rank.steps.end(),
                                   [&](const Step &s) { return s.range.end <= range.begin; });
    const int y = lane.top + 1;
    const int h = lane.height - 3;
    for (; it != rank.steps.end() && it->range.begin < range.end; ++it) {
        double x1 = std::max(std::floor(m_scale.toX(it->range.begin)), static_cast<double>(m_left));
        double x2 = std::min(std::floor(m_scale.toX(it->range.end)), static_cast<double>(m_right));
        if (x2 - x1 < 1)
            x2 = x1 + 1;
        const QColor bg = (it->number % 2 == 0) ? m_ctx.colors->color(Palette::Role::StepA) : m_ctx.colors->color(Palette::Role::StepB);
        const QRectF r(x1, y, x2 - x1 - (x2 - x1 > 3 ? 1 : 0), h);
        m_p.fillRect(r, bg);
        if (r.width() >= 16) {
            // The longest form that fits: "Step 12 · 48.2 ms", "Step 12", then just "12".
            const QFontMetrics fm = m_p.fontMetrics();
            const QString number = QString::number(it->number);
            for (const QString &text : {QStringLiteral("Step %1 · %2").arg(number, TimeFormat::duration(it->range.duration())),
                                        QStringLiteral("Step %1").arg(number), number}) {
                if (fm.horizontalAdvance(text) <= r.width() - 6) {
                    m_p.setPen(m_ctx.colors->color(Palette::Role::StepText));
                    m_p.drawText(r, Qt::AlignCenter, text);
                    break;
                }
            }
        }
    }
}

void LanePainter::counter(const Lane &lane, TrackId trackId)
{
    const Track &track = m_ctx.session->tracks()[trackId];
    const double fixed = CounterFormat::fixedMax(CounterFormat::unit(*m_ctx.session, track));
    const double maxValue = fixed > 0 ? fixed : trackId < m_ctx.counterMax.size() ? m_ctx.counterMax[trackId] : 0;
    if (!(maxValue > 0))
        return;
    decimateCounter(track.counter, m_scale.range, m_scale.nsPerPixel(), m_ctx.columns);
    if (m_ctx.columns.empty())
        return;
    const double bottom = lane.top + lane.height - 2;
    const double h = lane.height - 6;
    auto yOf = [&](double v) { return bottom - std::clamp(v / maxValue, 0.0, 1.0) * h; };
    auto xOf = [&](TimeNs t) { return std::clamp(m_scale.toX(t), m_left - 2.0, m_right + 2.0); };
    // A step line through first/max/min/last of each column, closed down to the baseline for the fill.
    QPolygonF &poly = m_ctx.polygon;
    poly.clear();
    poly << QPointF(xOf(m_ctx.columns.front().firstTime), bottom);
    double lastY = bottom;
    for (const CounterColumn &c : m_ctx.columns) {
        const double x = xOf(c.firstTime);
        poly << QPointF(x, lastY) << QPointF(x, yOf(c.first)) << QPointF(x, yOf(c.max)) << QPointF(x, yOf(c.min));
        lastY = yOf(c.last);
        poly << QPointF(xOf(c.lastTime), yOf(c.min)) << QPointF(xOf(c.lastTime), lastY);
    }
    const CounterColumn &tail = m_ctx.columns.back();
    const double endX = xOf(tail.lastTime);
    poly << QPointF(endX, lastY) << QPointF(endX, bottom);
    m_p.setPen(Qt::NoPen);
    m_p.setBrush(kCounterFill);
    m_p.drawPolygon(poly);
    poly.removeFirst();
    poly.removeLast();
    m_p.setPen(QPen(kCounterLine, 1));
    m_p.setBrush(Qt::NoBrush);
    m_p.drawPolyline(poly);
}

void LanePainter::instants(const Lane &lane, const Track &track)
{
    const TimeRange range = m_scale.range;
    auto it = std::lower_bound(track.instants.begin(), track.instants.end(), range.begin,
                               [](const Instant &i, TimeNs t) { return i.time < t; });
    const int mid = lane.top + (lane.height - 1) / 2;
    int lastX = INT_MIN;
    m_p.setRenderHint(QPainter::Antialiasing, true);
    for (; it != track.instants.end() && it->time < range.end; ++it) {
        const int x = static_cast<int>(std::floor(m_scale.toX(it->time)));
        // Out-of-memory records are the reason most incidents are opened: never hidden, drawn larger.
        const bool oom = it->flags & SpanFlagOutOfMemory;
        if (x == lastX && !oom)
            continue; // one mark per pixel column is all the eye can see
        lastX = x;
        const double r = oom ? 6.5 : 4.0;
        const QColor c = oom ? kOom : kInstant;
        const QPointF diamond[4] = {{x + 0.5, mid - r}, {x + 0.5 + r, double(mid)}, {x + 0.5, mid + r}, {x + 0.5 - r, double(mid)}};
        m_p.setPen(QPen(c.darker(130), 1));
        m_p.setBrush(c);
        m_p.drawPolygon(diamond, 4);
    }
    m_p.setRenderHint(QPainter::Antialiasing, false);
}

QPointF LanePainter::logMarkerCenter(const TimeScale &scale, const Lane &lane, TimeNs t)
{
    return {std::floor(scale.toX(t)) + 0.5, lane.top + (lane.height - 1) / 2.0};
}

void LanePainter::logs(const Lane &lane, RankId rank, const EventRef &hovered, const EventRef &selected)
{
    const EvidenceIndex &ev = m_ctx.evidence;
    const TimeRange range{m_scale.range.begin - static_cast<TimeNs>(m_scale.nsPerPixel() * kLogMarkerRadius),
                          m_scale.range.end + static_cast<TimeNs>(m_scale.nsPerPixel() * kLogMarkerRadius) + 1};
    // INFO: one tick per pixel column, found by jumping to the next column with a binary search, so
    // a 100k-line log costs as much as its visible columns.
    const std::vector<TimedLog> &all = ev.logs(rank);
    auto [i, end] = EvidenceIndex::inRange(all, range);
    const double npp = m_scale.nsPerPixel();
    while (i < end) {
        const TimedLog &l = all[i];
        const QPointF c = logMarkerCenter(m_scale, lane, l.time);
        if (l.mark == LogStyle::Mark::Info)
            LogStyle::paintMarker(m_p, c, LogStyle::Mark::Info, kLogMarkerRadius);
        // Next column starts one pixel right of this marker.
        const TimeNs nextColumn = m_scale.range.begin + static_cast<TimeNs>(std::ceil((c.x() + 0.5 - m_scale.x0) * npp));
        if (nextColumn <= l.time) {
            ++i;
            continue;
        }
        i = static_cast<std::size_t>(std::lower_bound(all.begin() + static_cast<std::ptrdiff_t>(i) + 1, all.begin() + static_cast<std::ptrdiff_t>(end), nextColumn,
                                                      [](const TimedLog &x, TimeNs t) { return x.time < t; })
                                     - all.begin());
    }
    // Warnings, then errors, then OOMs, so the most severe mark of a crowded column is on top.
    const std::vector<TimedLog> &notable = ev.notableLogs(rank);
    const auto [lo, hi] = EvidenceIndex::inRange(notable, range);
    for (LogStyle::Mark pass : {LogStyle::Mark::Warning, LogStyle::Mark::Error, LogStyle::Mark::Oom}) {
        int lastX = INT_MIN;
        for (std::size_t k = lo; k < hi; ++k) {
            if (notable[k].mark != pass)
                continue;
            const QPointF c = logMarkerCenter(m_scale, lane, notable[k].time);
            if (static_cast<int>(c.x()) == lastX)
                continue;
            lastX = static_cast<int>(c.x());
            LogStyle::paintMarker(m_p, c, pass, kLogMarkerRadius);
        }
    }
    // Rings last, over whatever shares their column.
    for (const auto &[ref, ring] : {std::pair{hovered, 1}, std::pair{selected, 2}}) {
        if (ref.kind != EventRef::Kind::LogRecord || ref.index >= m_ctx.session->logs().records.size())
            continue;
        const LogRecord &r = m_ctx.session->logs().records[ref.index];
        if (r.rank != rank || r.time == kNoTime || !range.contains(r.time))
            continue;
        LogStyle::paintMarker(m_p, logMarkerCenter(m_scale, lane, r.time), LogStyle::mark(r), kLogMarkerRadius, ring);
    }
}

void LanePainter::oomLines(RankId rank, int top, int bottom)
{
    QColor c = kOom;
    c.setAlpha(150);
    m_p.setPen(QPen(c, 1));
    for (const OomMarker &m : m_ctx.evidence.ooms(rank)) {
        if (!m_scale.range.contains(m.time))
            continue;
        const int x = static_cast<int>(std::floor(m_scale.toX(m.time)));
        m_p.drawLine(x, top, x, bottom);
    }
}

void LanePainter::summary(const Lane &lane, const std::vector<TrackId> &tracks, const QColor &color)
{
    QColor fill = color;
    fill.setAlpha(tracks.size() > 1 ? 110 : 200);
    const int y = lane.top + 3;
    const int h = lane.height - 7;
    for (TrackId id : tracks) {
        const Track &track = m_ctx.session->tracks()[id];
        foldSpans(track, 0, m_scale.range, m_scale.nsPerPixel(), m_ctx.spanItems, 1.0);
        for (const SpanDrawItem &item : m_ctx.spanItems) {
            const double x1 = std::max(std::floor(m_scale.toX(item.start)), static_cast<double>(m_left));
            const double x2 = std::min(std::floor(m_scale.toX(item.end)), static_cast<double>(m_right));
            m_p.fillRect(QRectF(x1, y, std::max(1.0, x2 - x1), h), fill);
        }
    }
}

} // namespace rs
