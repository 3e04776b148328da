#include "rankgroupwidget.h"

#include "placements.h"

#include "analysisoverlay.h"
#include "charts/memoryplot.h"
#include "counterformat.h"
#include "findingsstrip.h"
#include "gutterpainter.h"
#include "lanepainter.h"
#include "logstyle.h"
#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "timelinecontext.h"

#include <QFileInfo>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

const QColor kSeparator(0xe7, 0xe9, 0xee);

constexpr int kDragThreshold = 4; // pixels before a press becomes a drag
constexpr int kHitTolerancePx = 3;

QString fromView(std::string_view v)
{
    return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

// The curves of the memory lane, areas first so every line stays visible on top of them.
std::vector<MemoryPlot::Series> memorySeries(const Session &s, const std::vector<TrackId> &tracks, RankId rank)
{
    std::vector<MemoryPlot::Series> areas, lines;
    const int device = s.tracks()[tracks.front()].device;
    for (TrackId id : tracks) {
        const Track &t = s.tracks()[id];
        const QString suffix = t.device != device ? RankGroupWidget::tr(" (GPU %1)").arg(t.device) : QString();
        // The allocator snapshot replays the same allocator as the profiler's counters, so it keeps
        // the rank's colours but is dotted; nvidia-smi sees the whole device (CUDA context, NCCL,
        // other processes) and gets a neutral dashed line of its own.
        const bool snapshot = t.source < s.sources().size() && s.sources()[t.source].format == "memory-snapshot";
        switch (t.kind) {
        case TrackKind::MemoryAllocated:
            if (snapshot)
                lines.push_back({&t.counter, RankGroupWidget::tr("snapshot allocated") + suffix, RankColors::color(rank), MemoryPlot::Style::Dotted, id});
            else
                areas.push_back({&t.counter, RankGroupWidget::tr("allocated") + suffix, RankColors::color(rank), MemoryPlot::Style::Area, id});
            break;
        case TrackKind::MemoryReserved:
            lines.push_back({&t.counter, (snapshot ? RankGroupWidget::tr("snapshot reserved") : RankGroupWidget::tr("reserved")) + suffix, RankColors::textColor(rank),
                             snapshot ? MemoryPlot::Style::Dotted : MemoryPlot::Style::Line, id});
            break;
        default:
            lines.push_back({&t.counter, RankGroupWidget::tr("used (nvidia-smi)") + suffix, QColor(0x37, 0x41, 0x51), MemoryPlot::Style::Dashed, id});
            break;
        }
    }
    areas.insert(areas.end(), lines.begin(), lines.end());
    return areas;
}

} // namespace

RankGroupWidget::RankGroupWidget(TimelineContext &context, RankId rank, QWidget *parent)
    : QWidget(parent)
    , m_ctx(context)
    , m_rank(rank)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);

    const Rank &r = rankData();
    std::size_t spans = 0;
    int lanes = 0;
    double peak = 0;
    for (TrackId id : r.tracks) {
        const Track &t = m_ctx.session->tracks()[id];
        spans += t.spans.size();
        lanes += (t.spans.empty() && t.counter.empty() && t.instants.empty()) ? 0 : 1;
        if (t.kind == TrackKind::MemoryAllocated && id < m_ctx.counterMax.size())
            peak = std::max(peak, m_ctx.counterMax[id]);
    }
    QStringList parts;
    if (lanes > 0)
        parts << countOf(lanes, tr("lane"), tr("lanes"));
    if (spans > 0)
        parts << countOf(static_cast<qint64>(spans), tr("span"), tr("spans"));
    if (!r.steps.empty())
        parts << countOf(static_cast<qint64>(r.steps.size()), tr("step"), tr("steps"));
    if (peak > 0)
        parts << tr("peak allocated %1").arg(TimeFormat::bytes(peak));
    const std::size_t timed = m_ctx.evidence.logs(m_rank).size();
    const std::size_t logs = timed + m_ctx.evidence.untimedLogCount(m_rank);
    if (logs > 0) {
        const QString records = countOf(static_cast<qint64>(logs), tr("log record"), tr("log records"));
        parts << (timed == logs ? records
                  : timed == 0  ? tr("%1, none timed").arg(records)
                                : tr("%1 (%2 untimed)").arg(records).arg(QLocale().toString(static_cast<qint64>(logs - timed))));
    }
    if (const DeviceInfo *d = LaneLayout::deviceInfo(r, LaneLayout::rankDevice(*m_ctx.session, r)))
        parts << tr("GPU %1: %2").arg(d->id).arg(QString::fromStdString(d->name));
    // A placeholder rank stands for a process whose log never said its rank: say which process.
    if (!r.unknownProcess.empty())
        parts.prepend(tr("rank unknown: process %1").arg(QString::fromStdString(r.unknownProcess)));
    m_summary = parts.join(QStringLiteral("  ·  "));
    if (const std::size_t ooms = m_ctx.evidence.oomCount(m_rank))
        m_alerts << (ooms == 1 ? tr("OOM") : tr("%1 OOMs").arg(ooms));
    if (const std::size_t errors = m_ctx.evidence.errorCount(m_rank))
        m_alerts << countOf(static_cast<qint64>(errors), tr("error"), tr("errors"));
    relayout();
    analysisChanged();
}

namespace {

// The memory chart's OOM markers of `rank`; an OOM placed by an anchor is labelled "≈".
std::vector<MemoryPlot::OomMark> oomMarksOf(const EvidenceIndex &evidence, RankId rank)
{
    std::vector<MemoryPlot::OomMark> marks;
    for (const OomMarker &m : evidence.ooms(rank)) {
        QString label = m.requested > 0 ? RankGroupWidget::tr("OOM · %1").arg(TimeFormat::bytes(static_cast<double>(m.requested)))
                                        : RankGroupWidget::tr("OOM");
        if (m.placed)
            label = QStringLiteral("≈ ") + label; // no time stamp of its own: placed by an anchor
        marks.push_back({m.time, label});
    }
    return marks;
}

} // namespace

void RankGroupWidget::analysisChanged()
{
    m_divergence = m_ctx.analysis ? AnalysisOverlay::divergenceBadge(*m_ctx.analysis, m_rank) : QString();
    if (m_plot)
        m_plot->setValueMax(m_ctx.memoryMax); // the analysis' extent may leave an implausible counter out
    if (m_plot)
        m_plot->setOomMarks(oomMarksOf(m_ctx.evidence, m_rank)); // the evidence index was rebuilt with the analysis' placements
    if (m_plot)
        m_plot->setSpikeMarks(m_ctx.analysis ? AnalysisOverlay::spikeMarks(*m_ctx.analysis, m_rank) : std::vector<MemoryPlot::SpikeMark>());
    update();
}

void RankGroupWidget::highlightChanged()
{
    const Highlight &h = m_ctx.state->highlight();
    if (m_plot)
        m_plot->setHighlightRange(h.contains(m_rank) ? h.range : TimeRange());
    update();
}

const Rank &RankGroupWidget::rankData() const
{
    return *m_ctx.session->rank(m_rank);
}

TimeNs RankGroupWidget::offset() const
{
    return m_ctx.state->clockOffset(m_rank);
}

TimeScale RankGroupWidget::viewScale() const
{
    return {m_ctx.state->visibleRange(), static_cast<double>(m_ctx.gutterWidth),
            static_cast<double>(std::max(1, width() - m_ctx.gutterWidth))};
}

QSize RankGroupWidget::sizeHint() const
{
    return {800, m_layout.height()};
}

void RankGroupWidget::relayout()
{
    m_layout.build(*m_ctx.session, rankData(), m_ctx.state->isRankCollapsed(m_rank), !m_ctx.evidence.logs(m_rank).empty(),
                   m_findingsLane);
    setFixedHeight(m_layout.height());
    buildChart();
    update();
}

void RankGroupWidget::setFindingsLane(bool on)
{
    if (on == m_findingsLane)
        return;
    m_findingsLane = on;
    relayout();
}

void RankGroupWidget::buildChart()
{
    const Lane *lane = m_layout.memoryLane();
    if (!lane) {
        delete m_plot;
        m_plot = nullptr;
        return;
    }
    if (!m_plot) {
        m_plot = new MemoryPlot(this);
        m_plot->setSeries(memorySeries(*m_ctx.session, m_layout.memoryTracks(), m_rank));
        m_plot->setCapacity(static_cast<double>(
            LaneLayout::deviceCapacity(rankData(), m_ctx.session->tracks()[m_layout.memoryTracks().front()].device)));
        m_plot->setOomMarks(oomMarksOf(m_ctx.evidence, m_rank));
        if (m_ctx.analysis)
            m_plot->setSpikeMarks(AnalysisOverlay::spikeMarks(*m_ctx.analysis, m_rank));
        const Highlight &h = m_ctx.state->highlight();
        m_plot->setHighlightRange(h.contains(m_rank) ? h.range : TimeRange());
    }
    m_plot->setValueMax(m_ctx.memoryMax);
    placeChart();
    m_plot->show();
    viewChanged();
}

void RankGroupWidget::placeChart()
{
    if (const Lane *lane = m_layout.memoryLane(); lane && m_plot)
        m_plot->setGeometry(m_ctx.gutterWidth, lane->top, std::max(1, width() - m_ctx.gutterWidth), lane->height - 1);
}

void RankGroupWidget::viewChanged()
{
    if (m_plot) {
        if (m_ctx.ticks)
            m_plot->setTimeGrid(m_ctx.ticks->step, m_ctx.ticks->subdivisions);
        m_plot->setView(m_ctx.state->visibleRange(), m_ctx.origin(), offset());
    }
    update();
}

QRect RankGroupWidget::laneRect(TrackId track) const
{
    const Lane *lane = m_layout.laneForTrack(track);
    return lane ? QRect(0, lane->top, width(), lane->height) : QRect();
}

QRectF RankGroupWidget::spanRect(TrackId track, std::uint32_t index) const
{
    const Lane *lane = m_layout.laneForTrack(track);
    if (!lane || lane->kind != Lane::Kind::Spans || index >= m_ctx.session->tracks()[track].spans.size())
        return {};
    return LanePainter::spanRect(viewScale().shifted(offset()), *lane, m_ctx.session->tracks()[track].spans[index]);
}

void RankGroupWidget::updateEvent(const EventRef &event)
{
    if (event.kind == EventRef::Kind::LogRecord) {
        const auto &records = m_ctx.session->logs().records;
        if (const Lane *lane = m_layout.logLane(); lane && event.index < records.size() && records[event.index].rank == m_rank)
            update(QRect(0, lane->top, width(), lane->height));
        return;
    }
    if (event.kind == EventRef::Kind::Oom) {
        if (event.index < m_ctx.session->ooms().size() && m_ctx.session->ooms()[event.index].rank == m_rank)
            update();
        return;
    }
    if (event.isNone() || event.track >= m_ctx.session->tracks().size()
        || m_ctx.session->tracks()[event.track].rank != m_rank)
        return;
    if (event.kind == EventRef::Kind::Span) {
        const QRectF r = spanRect(event.track, event.index);
        if (!r.isEmpty()) {
            QRect area = r.toAlignedRect().adjusted(-4, -4, 4, 4);
            area.setLeft(std::max(area.left(), m_ctx.gutterWidth - 4));
            area.setRight(std::min(area.right(), width()));
            update(area);
        }
        return;
    }
    update(laneRect(event.track));
}

EventRef RankGroupWidget::stepSpanAt(TimeNs t) const
{
    const Rank &r = rankData();
    auto it = std::partition_point(r.steps.begin(), r.steps.end(), [t](const Step &s) { return s.range.end <= t; });
    if (it == r.steps.end() || !it->range.contains(t) || it->track == kNoTrack)
        return {};
    const Track &track = m_ctx.session->tracks()[it->track];
    for (std::uint16_t d = 0; d < track.levelCount(); ++d) {
        const auto [lo, hi] = track.levelRange(d, it->range.begin, it->range.begin + 1);
        for (std::uint32_t i = lo; i < hi; ++i)
            if ((track.spans[i].flags & SpanFlagStep) && track.spans[i].start == it->range.begin)
                return EventRef::span(it->track, i);
    }
    return {};
}

EventRef RankGroupWidget::hitTest(QPoint pos) const
{
    if (pos.x() < m_ctx.gutterWidth || pos.x() >= width())
        return {};
    const Lane *lane = m_layout.laneAt(pos.y());
    if (!lane)
        return {};
    const TimeScale scale = viewScale().shifted(offset());
    const TimeNs t = scale.toTime(pos.x() + 0.5);
    const auto tolerance = static_cast<TimeNs>(std::ceil(kHitTolerancePx * scale.nsPerPixel()));
    switch (lane->kind) {
    case Lane::Kind::Spans: {
        const int row = pos.y() - lane->top - LaneLayout::kLanePadding;
        if (row < 0)
            return {};
        const Track &track = m_ctx.session->tracks()[lane->track];
        const int level = row / LaneLayout::kRowHeight;
        if (level >= track.levelCount())
            return {};
        const auto [lo, hi] = track.levelRange(static_cast<std::uint16_t>(level), t - tolerance, t + tolerance + 1);
        std::uint32_t best = hi;
        TimeNs bestDistance = tolerance + 1;
        for (std::uint32_t i = lo; i < hi; ++i) {
            const Span &s = track.spans[i];
            const TimeNs distance = t < s.start ? s.start - t : (t >= s.end() ? t - s.end() + (s.duration > 0 ? 1 : 0) : 0);
            if (distance < bestDistance) {
                best = i;
                bestDistance = distance;
            }
        }
        return best < hi ? EventRef::span(lane->track, best) : EventRef{};
    }
    case Lane::Kind::Instants: {
        const Track &track = m_ctx.session->tracks()[lane->track];
        const auto tol = static_cast<TimeNs>(std::ceil(4 * scale.nsPerPixel()));
        auto it = std::lower_bound(track.instants.begin(), track.instants.end(), t - tol,
                                   [](const Instant &i, TimeNs v) { return i.time < v; });
        std::uint32_t best = static_cast<std::uint32_t>(track.instants.size());
        TimeNs bestDistance = tol + 1;
        for (; it != track.instants.end() && it->time <= t + tol; ++it) {
            const TimeNs distance = std::abs(it->time - t);
            if (distance < bestDistance) {
                bestDistance = distance;
                best = static_cast<std::uint32_t>(it - track.instants.begin());
            }
        }
        return best < track.instants.size() ? EventRef::instant(lane->track, best) : EventRef{};
    }
    case Lane::Kind::Steps:
        return stepSpanAt(t);
    case Lane::Kind::Log:
        return logAt(pos.x(), scale);
    case Lane::Kind::Memory:
        return oomAt(pos.x(), scale);
    default:
        return {};
    }
}

EventRef RankGroupWidget::logAt(int x, const TimeScale &scale) const
{
    const auto tol = static_cast<TimeNs>(std::ceil((LanePainter::kLogMarkerRadius + 1) * scale.nsPerPixel()));
    const TimeNs t = scale.toTime(x + 0.5);
    const TimeRange window{t - tol, t + tol + 1};
    // A warning or error wins over INFO lines in the same pixels: it is drawn on top.
    for (const auto *list : {&m_ctx.evidence.notableLogs(m_rank), &m_ctx.evidence.logs(m_rank)}) {
        const auto [lo, hi] = EvidenceIndex::inRange(*list, window);
        std::size_t best = hi;
        TimeNs bestDistance = tol + 1;
        int bestMark = -1;
        for (std::size_t i = lo; i < hi; ++i) {
            const TimeNs d = std::abs((*list)[i].time - t);
            const int mark = static_cast<int>((*list)[i].mark);
            if (mark > bestMark || (mark == bestMark && d < bestDistance)) {
                best = i;
                bestDistance = d;
                bestMark = mark;
            }
        }
        if (best < hi)
            return EventRef::logRecord((*list)[best].index);
    }
    return {};
}

EventRef RankGroupWidget::oomAt(int x, const TimeScale &scale) const
{
    const auto tol = static_cast<TimeNs>(std::ceil(4 * scale.nsPerPixel()));
    const TimeNs t = scale.toTime(x + 0.5);
    for (const OomMarker &m : m_ctx.evidence.ooms(m_rank))
        if (std::abs(m.time - t) <= tol)
            return m.event;
    return {};
}

void RankGroupWidget::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    placeChart();
}

void RankGroupWidget::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    const QRect exposed = event->rect();
    p.fillRect(exposed, Qt::white);
    const TimeScale view = viewScale();
    const int g = m_ctx.gutterWidth;
    const Rank &rank = rankData();
    const bool selected = m_ctx.state->selectedRank() == m_rank;

    QFont laneFont = font();
    laneFont.setPixelSize(11);
    p.setFont(laneFont);

    LanePainter lanes(p, m_ctx, view, offset(), width());
    GutterPainter gutter(p, m_ctx, width(), font());
    const QRect dataArea(g, 0, width() - g, height());
    for (const Lane &lane : m_layout.lanes()) {
        const QRect laneRectFull(0, lane.top, width(), lane.height);
        if (!laneRectFull.intersects(exposed))
            continue;
        if (lane.kind == Lane::Kind::Header) {
            gutter.header(lane, m_rank, m_ctx.state->isRankCollapsed(m_rank), selected, m_summary, m_alerts);
            AnalysisOverlay::paintBadge(p, QRect(g, lane.top, width() - g, lane.height), m_divergence);
            continue;
        }
        if (lane.kind == Lane::Kind::Findings) { // the badges are the AnnotationOverlay's
            FindingsStrip::paintRow(p, laneRectFull, g, lane.title, font());
            continue;
        }
        p.setClipRect(dataArea.intersected(laneRectFull).intersected(exposed));
        p.setFont(laneFont);
        if (lane.kind != Lane::Kind::Memory)
            lanes.grid(lane.top, lane.height - 1);
        switch (lane.kind) {
        case Lane::Kind::Spans: lanes.spans(lane, lane.track, exposed); break;
        case Lane::Kind::Steps: lanes.steps(lane, rank); break;
        case Lane::Kind::Counter: lanes.counter(lane, lane.track); break;
        case Lane::Kind::Instants: lanes.instants(lane, m_ctx.session->tracks()[lane.track]); break;
        case Lane::Kind::Summary: lanes.summary(lane, m_layout.summaryTracks(), RankColors::color(m_rank)); break;
        case Lane::Kind::Log: lanes.logs(lane, m_rank, m_ctx.state->hovered(), m_ctx.state->selection()); break;
        default: break;
        }
        // Outlines over the content of their own lane only.
        for (const auto &[ref, isSelection] : {std::pair{m_ctx.state->hovered(), false}, std::pair{m_ctx.state->selection(), true}}) {
            if (ref.kind == EventRef::Kind::Span && ref.track == lane.track && lane.kind == Lane::Kind::Spans)
                lanes.outline(lane, m_ctx.session->tracks()[ref.track].spans[ref.index], isSelection);
        }
        p.setClipping(false);
        p.setPen(kSeparator);
        p.drawLine(g, lane.top + lane.height - 1, width(), lane.top + lane.height - 1);
        gutter.lane(lane, m_plot, m_rank);
    }
    // OOM moments cross every lane under the header, so what ran at that instant lines up with it.
    if (m_layout.lanes().size() > 1) {
        const int top = m_layout.lanes()[1].top;
        p.setClipRect(dataArea.adjusted(0, top, 0, -LaneLayout::kGroupGap).intersected(exposed));
        lanes.oomLines(m_rank, top, m_layout.height() - LaneLayout::kGroupGap - 1);
        p.setClipping(false);
    }
    // The colour stripe ties every lane of the group to its rank; the selected rank gets a frame.
    const int bodyHeight = m_layout.height() - LaneLayout::kGroupGap;
    if (!m_layout.lanes().empty()) {
        const Lane &head = m_layout.lanes().front();
        const int top = head.top + head.height;
        AnalysisOverlay::paintHighlight(p, m_ctx.state->highlight(), m_rank, view, QRect(g, top, width() - g, bodyHeight - top),
                                        QRect(0, head.top, width(), head.height));
    }
    p.fillRect(QRect(0, 0, selected ? GutterPainter::kStripe + 2 : GutterPainter::kStripe, bodyHeight), RankColors::color(m_rank));
    if (selected) {
        p.setPen(QPen(RankColors::color(m_rank), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(1, 1, width() - 2, bodyHeight - 2));
    }
}

bool RankGroupWidget::isOom(const EventRef &hit) const
{
    return hit.kind == EventRef::Kind::Oom
        || (hit.kind == EventRef::Kind::Instant && (m_ctx.session->tracks()[hit.track].instants[hit.index].flags & SpanFlagOutOfMemory));
}

QString RankGroupWidget::oomTooltip(const EventRef &hit) const
{
    QString text = tr("<b style='color:#c91d2e'>CUDA out of memory</b>");
    if (hit.kind == EventRef::Kind::Oom) {
        const OomEvent &o = m_ctx.session->ooms()[hit.index];
        if (o.requested >= 0)
            text += tr("<br/>tried to allocate <b>%1</b>").arg(TimeFormat::bytes(static_cast<double>(o.requested)));
        if (o.free >= 0)
            text += tr(" with %1 free").arg(TimeFormat::bytes(static_cast<double>(o.free)));
        if (o.time == kNoTime)
            if (const Placement *p = findPlacement(m_ctx.analysis.get(), Placement::Kind::Oom, hit.index))
                text += QStringLiteral("<br/><i>%1</i>").arg(placedByText(*p).toHtmlEscaped());
        return text;
    }
    // The profiler's own record of the failure carries the request in its args.
    text += tr(" (profiler [OutOfMemory])");
    for (const OomMarker &m : m_ctx.evidence.ooms(m_rank))
        if (m.event == hit && m.requested >= 0)
            text += tr("<br/>tried to allocate <b>%1</b>").arg(TimeFormat::bytes(static_cast<double>(m.requested)));
    return text;
}

QString RankGroupWidget::tooltipAt(QPoint pos, const EventRef &hit) const
{
    const Session &s = *m_ctx.session;
    const TimeNs origin = m_ctx.origin();
    if (hit.kind == EventRef::Kind::Span) {
        const Span &sp = s.tracks()[hit.track].spans[hit.index];
        const std::string_view category = s.str(sp.category);
        const TimeNs start = sp.start + offset() - origin;
        return QStringLiteral("<b>%1</b><br/>%2 · %3<br/>duration <b>%4</b><br/>start %5")
            .arg(fromView(s.str(sp.name)).toHtmlEscaped(),
                 SpanPalette::familyName(SpanPalette::family(sp.flags, category)),
                 fromView(category).toHtmlEscaped(), TimeFormat::duration(sp.duration), TimeFormat::precise(start));
    }
    const Lane *lane = m_layout.laneAt(pos.y());
    const bool inMemoryLane = lane && lane->kind == Lane::Kind::Memory && m_plot && pos.x() >= m_ctx.gutterWidth;
    if (isOom(hit) && !inMemoryLane) {
        const Instant &in = s.tracks()[hit.track].instants[hit.index];
        return oomTooltip(hit) + tr("<br/>at %1").arg(TimeFormat::precise(in.time + offset() - origin));
    }
    if (hit.kind == EventRef::Kind::Instant && !isOom(hit)) {
        const Instant &in = s.tracks()[hit.track].instants[hit.index];
        return QStringLiteral("<b>%1</b><br/>%2<br/>at %3")
            .arg(fromView(s.str(in.name)).toHtmlEscaped(), fromView(s.str(in.category)).toHtmlEscaped(),
                 TimeFormat::precise(in.time + offset() - origin));
    }
    if (hit.kind == EventRef::Kind::LogRecord) {
        const LogRecord &r = s.logs().records[hit.index];
        QString text = r.text.size() > 600 ? QString::fromStdString(r.text.substr(0, 600)) + QStringLiteral("…")
                                           : QString::fromStdString(r.text);
        const QString where = r.source < s.sources().size()
            ? QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(s.sources()[r.source].path)).fileName()).arg(r.line)
            : tr("line %1").arg(r.line);
        QString when = r.time != kNoTime ? TimeFormat::precise(r.time + offset() - origin) : tr("no time stamp");
        if (r.time == kNoTime)
            if (const Placement *p = findLogPlacement(s, m_ctx.analysis.get(), hit.index))
                when = QStringLiteral("≈ %1 (%2)").arg(TimeFormat::precise(placedDataTime(*m_ctx.analysis, *p) + offset() - origin),
                                                      placedByText(*p).toHtmlEscaped());
        return QStringLiteral("<b style='color:%1'>%2</b> · %3 · %4<br/>%5<br/><span style='color:#6b7280'>%6 · %7</span>")
            .arg(LogStyle::color(LogStyle::mark(r)).name(), LogStyle::levelName(r.level), LogStyle::kindName(r.kind),
                 LogStyle::rankName(r.rank), text.toHtmlEscaped(), when, where.toHtmlEscaped());
    }
    if (lane && lane->kind == Lane::Kind::Header && m_ctx.analysis && !m_divergence.isEmpty())
        return AnalysisOverlay::divergenceDetails(*m_ctx.analysis, m_rank);
    if (inMemoryLane) {
        const TimeNs t = viewScale().toTime(pos.x());
        QString text;
        if (isOom(hit))
            text = oomTooltip(hit) + QStringLiteral("<br/>");
        for (const MemoryPlot::SpikeMark &m : m_plot->spikeMarks())
            if (t - offset() >= m.time && t - offset() <= m.time + m.duration)
                text += tr("<b style='color:#8a5500'>Spike</b> %1<br/>").arg(m.tooltip);
        text += tr("<b>Memory</b> at %1").arg(TimeFormat::precise(t - origin));
        for (const MemoryPlot::Series &series : m_plot->series()) {
            double v = 0;
            if (series.data && counterValueAt(*series.data, t - offset(), &v))
                text += QStringLiteral("<br/>%1: <b>%2</b>").arg(series.name, TimeFormat::bytes(v));
        }
        return text;
    }
    if (lane && lane->kind == Lane::Kind::Counter && pos.x() >= m_ctx.gutterWidth) {
        const TimeNs t = viewScale().toTime(pos.x());
        const Track &track = s.tracks()[lane->track];
        double v = 0;
        if (counterValueAt(track.counter, t - offset(), &v))
            return QStringLiteral("<b>%1</b><br/>%2 at %3")
                .arg(lane->title.toHtmlEscaped(), CounterFormat::value(v, CounterFormat::unit(s, track)), TimeFormat::precise(t - origin));
    }
    return {};
}

void RankGroupWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    m_pressed = true;
    m_dragging = false;
    m_pressPos = event->position().toPoint();
    m_lastDragY = static_cast<int>(event->globalPosition().y());
    m_pressRange = m_ctx.state->visibleRange();
}

void RankGroupWidget::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    Q_EMIT cursorMoved(pos.x() >= m_ctx.gutterWidth ? pos.x() : -1);
    if (m_pressed && (event->buttons() & Qt::LeftButton)) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() >= kDragThreshold) {
            m_dragging = true;
            setCursor(Qt::ClosedHandCursor);
            QToolTip::hideText();
        }
        if (m_dragging) {
            // Pan from the range at press time, so rounding never accumulates over a long drag.
            const double npp = static_cast<double>(m_pressRange.duration()) / viewScale().width;
            const auto delta = static_cast<TimeNs>(std::llround((pos.x() - m_pressPos.x()) * npp));
            m_ctx.state->setVisibleRange({m_pressRange.begin - delta, m_pressRange.end - delta}, ViewState::Change::Continuous);
            const int gy = static_cast<int>(event->globalPosition().y());
            if (gy != m_lastDragY)
                Q_EMIT verticalDragged(m_lastDragY - gy);
            m_lastDragY = gy;
        }
        return;
    }
    const EventRef hit = hitTest(pos);
    m_ctx.state->setHovered(hit);
    const QString tip = tooltipAt(pos, hit);
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint() + QPoint(12, 16), tip, this);
}

void RankGroupWidget::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_pressed) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        unsetCursor();
        m_ctx.state->endGesture();
        return;
    }
    if (m_swallowRelease) {
        m_swallowRelease = false;
        return;
    }
    const QPoint pos = event->position().toPoint();
    const Lane *lane = m_layout.laneAt(pos.y());
    if (lane && lane->kind == Lane::Kind::Header) {
        m_ctx.state->setRankCollapsed(m_rank, !m_ctx.state->isRankCollapsed(m_rank));
        return;
    }
    m_ctx.state->setSelection(hitTest(pos));
}

void RankGroupWidget::mouseDoubleClickEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    const Lane *lane = m_layout.laneAt(pos.y());
    // The first click of the pair already toggled or selected; the second release must not undo it.
    m_swallowRelease = true;
    m_pressed = true;
    if (!lane || lane->kind == Lane::Kind::Header)
        return;
    const EventRef hit = hitTest(pos);
    if (hit.kind == EventRef::Kind::Span) {
        const Span &s = m_ctx.session->tracks()[hit.track].spans[hit.index];
        Q_EMIT zoomRequested({s.start + offset(), s.end() + offset()});
    }
}

void RankGroupWidget::leaveEvent(QEvent *event)
{
    QWidget::leaveEvent(event);
    m_ctx.state->setHovered({});
    Q_EMIT cursorMoved(-1);
}

} // namespace rs
