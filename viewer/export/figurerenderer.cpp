#include "figurerenderer.h"

#include "annotations/annotationpainter.h"
#include "figurechrome.h"
#include "figurefindings.h"
#include "figurememorypainter.h"
#include "logstyle.h"
#include "models/findingsmodel.h"
#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "timeline/analysisoverlay.h"
#include "timeline/gutterpainter.h"
#include "timeline/lanepainter.h"
#include "timeline/spanpalette.h"
#include "timeline/timelinecontext.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <set>

namespace rs {

namespace {

constexpr int kMargin = FigureChrome::kMargin;
constexpr int kTitleHeight = FigureChrome::kTitleHeight;
constexpr int kFooterHeight = FigureChrome::kFooterHeight;
constexpr int kFigureMemoryHeight = 104; // taller than on screen: the memory curve is the story
constexpr int kMarkerStrip = 20;         // a row of numbered finding markers
const QColor kText = FigureChrome::textColor();
const QColor kMuted = FigureChrome::mutedColor();
const QColor kBorder = FigureChrome::borderColor();
const QColor kRulerBackground(0xf6, 0xf7, 0xf9);
const QColor kTick(0x9a, 0xa0, 0xab);
const QColor kSeparator(0xe7, 0xe9, 0xee);

TimeNs floorDiv(TimeNs a, TimeNs b)
{
    const TimeNs q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

bool hasOomInstant(const Track &t)
{
    return std::any_of(t.instants.begin(), t.instants.end(), [](const Instant &i) { return i.flags & SpanFlagOutOfMemory; });
}

} // namespace

TimeRange FigureRenderer::alignedDataRange(const Session &session, const AnalysisResult *analysis,
                                           const std::map<RankId, TimeNs> &offsets)
{
    auto offsetOf = [&](RankId r) {
        const auto it = offsets.find(r);
        return it != offsets.end() ? it->second : analysis ? analysis->offsetOf(r) : 0;
    };
    TimeRange all;
    for (const Rank &k : session.ranks())
        if (!k.timeRange.isEmpty())
            all = all.united({k.timeRange.begin + offsetOf(k.id), k.timeRange.end + offsetOf(k.id)});
    // Timed log records and OOMs count too (a log-only session still has an axis).
    EvidenceIndex evidence;
    evidence.build(&session, analysis);
    for (const Rank &k : session.ranks()) {
        const TimeNs off = offsetOf(k.id);
        const std::vector<TimedLog> &logs = evidence.logs(k.id);
        if (!logs.empty())
            all = all.united({logs.front().time + off, logs.back().time + off + 1});
        for (const OomMarker &m : evidence.ooms(k.id))
            all = all.united({m.time + off, m.time + off + 1});
    }
    if (all.isEmpty())
        all = evidence.extent();
    return all;
}

FigureRenderer::FigureRenderer(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis, FigureOptions options)
    : m_session(std::move(session))
    , m_analysis(std::move(analysis))
    , m_opt(std::move(options))
    , m_ctx(std::make_unique<TimelineContext>())
    , m_findings(std::make_unique<FigureFindings>())
{
    m_font = FigureChrome::baseFont();
    if (!m_session)
        return;
    m_ctx->setSession(m_session);
    m_ctx->analysis = m_analysis;
    m_ctx->evidence.build(m_session.get(), m_analysis.get());
    m_ctx->ticks = &m_ticks;

    m_offsets = FigureChrome::offsets(*m_session, m_analysis.get(), m_opt);
    m_full = alignedDataRange(*m_session, m_analysis.get(), m_offsets);
    if (m_full.isEmpty())
        m_full = {0, 1000000};
    m_range = FigureChrome::window(m_opt.range, m_full);

    m_rankOrder = FigureChrome::rankOrder(*m_session, m_opt);

    m_title = m_opt.title.isEmpty() ? FigureChrome::defaultTitle(m_session.get(), m_analysis.get(), tr("RankScope timeline")) : m_opt.title;

    m_findings = std::make_unique<FigureFindings>(m_analysis.get(), m_opt, [this](const Annotation &a) { return onFigure(a); });

    for (RankId r : m_rankOrder) {
        Group g;
        g.rank = r;
        const bool collapsed = std::find(m_opt.collapsed.begin(), m_opt.collapsed.end(), r) != m_opt.collapsed.end();
        buildGroup(g, *m_session->rank(r), collapsed);
        m_groups.push_back(std::move(g));
    }
    layout();
}

FigureRenderer::~FigureRenderer() = default;

bool FigureRenderer::onFigure(const Annotation &a) const
{
    // On a rank shown (or job-wide), and overlapping the window.
    const TimeNs t0 = std::min(a.time, a.endTime), t1 = std::max(a.time, a.endTime);
    const bool shown = a.rank == kNoRank || std::find(m_rankOrder.begin(), m_rankOrder.end(), a.rank) != m_rankOrder.end();
    return shown && t1 >= m_range.begin && t0 <= m_range.end;
}

bool FigureRenderer::hasMarkers(RankId rank) const
{
    return std::any_of(m_opt.annotations.begin(), m_opt.annotations.end(), [&](const Annotation &a) {
        return a.rank == rank && a.kind != Annotation::Kind::Arrow && m_findings->numberOf(a) > 0 && onFigure(a);
    });
}

TimeNs FigureRenderer::offsetOf(RankId rank) const
{
    const auto it = m_offsets.find(rank);
    return it != m_offsets.end() ? it->second : 0;
}

QString FigureRenderer::rangeText() const
{
    return FigureChrome::rangeText(m_range, m_opt.timeZone);
}

void FigureRenderer::buildGroup(Group &g, const Rank &rank, bool collapsed)
{
    const Session &s = *m_session;
    g.layout.build(s, rank, collapsed, !m_ctx->evidence.logs(rank.id).empty());
    const bool compact = m_opt.detail == FigureOptions::Detail::Compact;
    bool anyGpu = false;
    for (const Lane &l : g.layout.lanes())
        anyGpu = anyGpu || (l.kind == Lane::Kind::Spans && s.tracks()[l.track].kind == TrackKind::GpuStream);
    bool cpuFallback = false;
    int y = 0;
    for (Lane lane : g.layout.lanes()) {
        bool keep = true;
        if (compact) {
            switch (lane.kind) {
            case Lane::Kind::Header:
            case Lane::Kind::Summary:
            case Lane::Kind::Memory:
            case Lane::Kind::Steps:
            case Lane::Kind::Log: break;
            case Lane::Kind::Spans:
                // Without GPU streams the main thread stands in, so the group still shows the work.
                keep = s.tracks()[lane.track].kind == TrackKind::GpuStream || (!anyGpu && !cpuFallback);
                cpuFallback = cpuFallback || (keep && !anyGpu);
                break;
            case Lane::Kind::Instants:
                keep = hasOomInstant(s.tracks()[lane.track]);
                lane.title = tr("OOM (profiler)");
                break;
            default: keep = false; break;
            }
        }
        if (!keep)
            continue;
        if (lane.kind == Lane::Kind::Memory)
            lane.height = std::max(lane.height, kFigureMemoryHeight);
        lane.top = y;
        y += lane.height;
        g.lanes.push_back(lane);
        // The rank's finding markers get a strip of their own under the header: on the lanes they
        // would cover the curves and their labels (the OOM's, the spikes').
        if (lane.kind == Lane::Kind::Header && hasMarkers(rank.id)) {
            g.markerTop = y;
            y += kMarkerStrip;
        }
    }
    g.height = y + LaneLayout::kGroupGap;

    QStringList parts;
    if (m_analysis)
        if (const RankMetrics *m = m_analysis->metricsOf(rank.id)) {
            if (m->peakAllocatedBytes)
                parts << tr("peak allocated %1").arg(TimeFormat::bytes(static_cast<double>(*m->peakAllocatedBytes)));
            if (m->steps)
                parts << countOf(*m->steps, tr("step"), tr("steps"));
            if (m->stepTimeMedianNs)
                parts << tr("median step %1").arg(TimeFormat::duration(*m->stepTimeMedianNs));
        }
    if (const TimeNs off = offsetOf(rank.id); off != 0)
        parts << tr("clock %1%2").arg(off > 0 ? QStringLiteral("+") : QString(), TimeFormat::duration(off));
    if (const DeviceInfo *d = LaneLayout::deviceInfo(rank, LaneLayout::rankDevice(s, rank)))
        parts << tr("GPU %1: %2").arg(d->id).arg(QString::fromStdString(d->name));
    g.summary = parts.join(QStringLiteral("  ·  "));
    if (const std::size_t ooms = m_ctx->evidence.oomCount(rank.id))
        g.alerts << (ooms == 1 ? tr("OOM") : tr("%1 OOMs").arg(ooms));
    if (const std::size_t errors = m_ctx->evidence.errorCount(rank.id))
        g.alerts << countOf(static_cast<qint64>(errors), tr("error"), tr("errors"));
    g.divergence = m_analysis ? AnalysisOverlay::divergenceBadge(*m_analysis, rank.id) : QString();
}

void FigureRenderer::layout()
{
    const int requestedWidth = std::max(320, m_opt.width);
    m_contentWidth = requestedWidth;
    m_scale = 1.0;
    // A fixed height smaller than the content scales the whole figure down (text included) rather
    // than dropping ranks or findings: a figure that silently loses rank 7 would mislead. The
    // scaled content is laid out wider (width / scale), which wraps the legend and the findings
    // differently and so changes the height: a few passes settle it, and the final scale keeps
    // both the width and the height inside the requested size.
    for (int pass = 0; pass < 4; ++pass) {
        m_groupWidth = m_contentWidth - 2 * kMargin;
        m_ctx->gutterWidth = std::clamp(m_groupWidth / 6, 180, 260);
        m_titleTop = kMargin - 6;
        m_titleHeight = kTitleHeight;
        m_rulerTop = m_titleTop + m_titleHeight;
        m_jobMarkersTop = hasMarkers(kNoRank) ? m_rulerTop + TimeRuler::kHeight : -1;
        m_groupsTop = m_rulerTop + TimeRuler::kHeight + (m_jobMarkersTop >= 0 ? kMarkerStrip : 0);
        int y = m_groupsTop;
        for (Group &g : m_groups) {
            g.top = y;
            y += g.height;
        }
        m_groupsBottom = y;
        m_legendTop = y + 4;
        m_legendHeight = m_opt.legend ? legendHeight(m_groupWidth) : 0;
        m_findingsTop = m_legendTop + m_legendHeight;
        m_findingsHeight = findingsHeight(m_groupWidth);
        m_footerTop = m_findingsTop + m_findingsHeight + 4;
        m_contentHeight = m_footerTop + kFooterHeight + kMargin / 2;
        if (m_opt.height <= 0 || m_contentHeight <= m_opt.height)
            break;
        const int wider = static_cast<int>(std::floor(requestedWidth * static_cast<double>(m_contentHeight) / m_opt.height));
        if (wider == m_contentWidth)
            break;
        m_contentWidth = wider;
    }
    if (m_opt.height > 0)
        m_scale = std::min({1.0, static_cast<double>(m_opt.height) / m_contentHeight, static_cast<double>(requestedWidth) / m_contentWidth});
    m_size = QSize(requestedWidth, m_opt.height > 0 ? m_opt.height : m_contentHeight);

    double memoryMax = 0;
    for (const Group &g : m_groups)
        for (TrackId id : g.layout.memoryTracks())
            memoryMax = std::max(memoryMax, id < m_ctx->counterMax.size() ? m_ctx->counterMax[id] : 0.0);
    m_ctx->memoryMax = memoryMax;
    const TimeScale scale = viewScale();
    m_ticks = TimeRuler::computeTicks(m_range, m_full.begin, scale.width);
}

TimeScale FigureRenderer::viewScale() const
{
    const int g = m_ctx->gutterWidth;
    return {m_range, static_cast<double>(g), static_cast<double>(std::max(1, m_groupWidth - g))};
}

void FigureRenderer::paint(QPainter &p)
{
    p.save();
    p.fillRect(QRectF(0, 0, m_size.width(), m_size.height()), Qt::white);
    if (m_scale < 1.0)
        p.scale(m_scale, m_scale);
    p.setFont(m_font);
    paintTitle(p, QRect(kMargin, m_titleTop, m_groupWidth, m_titleHeight));
    paintRuler(p, QRect(kMargin, m_rulerTop, m_groupWidth, TimeRuler::kHeight));
    if (m_jobMarkersTop >= 0)
        paintMarkerStrip(p, QRect(kMargin, m_jobMarkersTop, m_groupWidth, kMarkerStrip), tr("Job-wide findings"));
    for (Group &g : m_groups) {
        p.save();
        p.translate(kMargin, g.top);
        paintGroup(p, g);
        p.restore();
    }
    if (m_groups.empty()) {
        p.setPen(kMuted);
        p.drawText(QRect(kMargin, m_groupsTop, m_groupWidth, 40), Qt::AlignCenter, tr("No ranks to show"));
    }
    paintAnnotations(p);
    if (m_opt.legend)
        paintLegend(p, QRect(kMargin, m_legendTop, m_groupWidth, m_legendHeight), true);
    m_findings->paint(p, QRect(kMargin, m_findingsTop, m_groupWidth, m_findingsHeight), m_font, m_full.begin, true);
    paintFooter(p, QRect(kMargin, m_footerTop, m_groupWidth, kFooterHeight));
    p.restore();
}

void FigureRenderer::paintTitle(QPainter &p, const QRect &r) const
{
    const QString info = FigureChrome::shownLine(m_session.get(), m_analysis.get(), m_rankOrder) + QStringLiteral("  ·  ")
        + (m_opt.detail == FigureOptions::Detail::Compact ? tr("compact lanes") : tr("all lanes"));
    FigureChrome::paintTitle(p, r, m_font, m_title, rangeText(), info);
}

void FigureRenderer::paintMarkerStrip(QPainter &p, const QRect &r, const QString &label) const
{
    const int g = m_ctx->gutterWidth;
    p.fillRect(r, Qt::white);
    p.fillRect(QRect(r.left(), r.top(), g, r.height()), kRulerBackground);
    p.setPen(kSeparator);
    p.drawLine(r.left() + g - 1, r.top(), r.left() + g - 1, r.bottom());
    p.drawLine(r.left() + g, r.bottom(), r.right(), r.bottom());
    QFont small = m_font;
    small.setPixelSize(11);
    p.setFont(small);
    p.setPen(kMuted);
    p.drawText(QRect(r.left() + GutterPainter::kStripe + 10, r.top(), g - GutterPainter::kStripe - 16, r.height()),
               Qt::AlignLeft | Qt::AlignVCenter, label);
}

void FigureRenderer::paintRuler(QPainter &p, const QRect &r) const
{
    p.save();
    p.translate(r.topLeft());
    const int w = r.width();
    const int h = r.height();
    const int g = m_ctx->gutterWidth;
    p.fillRect(QRect(0, 0, w, h), kRulerBackground);
    const TimeScale sc = viewScale();
    const TimeNs origin = m_full.begin;
    QFont small = m_font;
    small.setPixelSize(11);
    QFont bold = small;
    bold.setWeight(QFont::DemiBold);
    const QFontMetrics fmBold(bold);
    const int rowSplit = 18;

    p.setPen(kMuted);
    p.setFont(small);
    const QRect gutter(8, 0, g - 14, h);
    p.drawText(gutter.adjusted(0, 3, 0, 0), Qt::AlignLeft | Qt::AlignTop,
               tr("t = 0 at %1 %2").arg(FigureChrome::wallClock(origin, m_opt.timeZone), FigureChrome::zoneName(origin, m_opt.timeZone)));
    p.drawText(gutter.adjusted(0, 0, 0, -4), Qt::AlignLeft | Qt::AlignBottom, tr("window %1").arg(TimeFormat::duration(m_range.duration())));

    p.setClipRect(QRect(g, 0, w - g, h));
    if (m_ticks.step > 0) {
        p.setPen(kTick);
        const TimeNs sub = std::max<TimeNs>(1, m_ticks.step / m_ticks.subdivisions);
        if (sc.width / (static_cast<double>(sc.range.duration()) / static_cast<double>(sub)) >= 4) {
            for (TimeNs t = origin + floorDiv(sc.range.begin - origin, sub) * sub; t < sc.range.end; t += sub) {
                const int x = static_cast<int>(std::floor(sc.toX(t)));
                p.drawLine(x, h - 4, x, h - 1);
            }
        }
        for (const RulerTick &tick : m_ticks.minor) {
            const int x = static_cast<int>(std::floor(sc.toX(tick.time)));
            p.setPen(kTick);
            p.drawLine(x, rowSplit + 4, x, h - 1);
            p.setPen(kMuted);
            p.drawText(x + 4, h - 7, tick.label);
        }
        p.setFont(bold);
        const int contextRight = g + 6 + fmBold.horizontalAdvance(m_ticks.context.label);
        const int firstMajorX = m_ticks.major.empty() ? INT_MAX : static_cast<int>(std::floor(sc.toX(m_ticks.major.front().time)));
        const bool contextIsFirstMajor = firstMajorX <= g + 1;
        if (!contextIsFirstMajor) {
            p.setPen(kText);
            p.drawText(g + 6, 13, m_ticks.context.label);
        }
        for (const RulerTick &tick : m_ticks.major) {
            const int x = static_cast<int>(std::floor(sc.toX(tick.time)));
            p.setPen(kText);
            p.drawLine(x, 0, x, h - 1);
            if (!contextIsFirstMajor && x < contextRight + 8)
                continue;
            p.drawText(x + 4, 13, tick.label);
        }
    }
    p.setClipping(false);
    p.setPen(kBorder);
    p.drawLine(0, h - 1, w, h - 1);
    p.drawLine(0, 0, w, 0);
    p.drawLine(g - 1, 0, g - 1, h);
    p.restore();
}

void FigureRenderer::paintGroup(QPainter &p, Group &g)
{
    TimelineContext &ctx = *m_ctx;
    const Session &s = *m_session;
    const Rank &rank = *s.rank(g.rank);
    const int width = m_groupWidth;
    const int gw = ctx.gutterWidth;
    const TimeScale view = viewScale();
    const TimeNs offset = offsetOf(g.rank);
    const bool collapsed = std::find(m_opt.collapsed.begin(), m_opt.collapsed.end(), g.rank) != m_opt.collapsed.end();

    QFont laneFont = m_font;
    laneFont.setPixelSize(11);
    p.setFont(laneFont);
    LanePainter lanes(p, ctx, view, offset, width);
    GutterPainter gutter(p, ctx, width, m_font);
    FigureMemoryPainter memory(p, ctx, view, offset);
    const std::vector<FigureMemoryPainter::Curve> curves = FigureMemoryPainter::curvesOf(s, g.layout.memoryTracks(), g.rank);
    const double capacity = g.layout.memoryTracks().empty()
        ? 0.0
        : static_cast<double>(LaneLayout::deviceCapacity(rank, s.tracks()[g.layout.memoryTracks().front()].device));
    const QRect dataArea(gw, 0, width - gw, g.height);
    const EventRef none;
    p.fillRect(QRect(0, 0, width, g.height - LaneLayout::kGroupGap), Qt::white);
    for (const Lane &lane : g.lanes) {
        const QRect full(0, lane.top, width, lane.height);
        if (lane.kind == Lane::Kind::Header) {
            gutter.header(lane, g.rank, collapsed, false, g.summary, g.alerts, /*disclosure=*/false);
            AnalysisOverlay::paintBadge(p, QRect(gw, lane.top, width - gw, lane.height), g.divergence);
            if (g.markerTop >= 0)
                paintMarkerStrip(p, QRect(0, g.markerTop, width, kMarkerStrip), tr("Findings"));
            continue;
        }
        p.setClipRect(dataArea.intersected(full));
        p.setFont(laneFont);
        if (lane.kind != Lane::Kind::Memory)
            lanes.grid(lane.top, lane.height - 1);
        switch (lane.kind) {
        case Lane::Kind::Spans: lanes.spans(lane, lane.track, full); break;
        case Lane::Kind::Steps: lanes.steps(lane, rank); break;
        case Lane::Kind::Counter: lanes.counter(lane, lane.track); break;
        case Lane::Kind::Instants: lanes.instants(lane, s.tracks()[lane.track]); break;
        case Lane::Kind::Summary: lanes.summary(lane, g.layout.summaryTracks(), RankColors::color(g.rank)); break;
        case Lane::Kind::Log: lanes.logs(lane, g.rank, none, none); break;
        case Lane::Kind::Memory:
            lanes.grid(lane.top, lane.height - 1);
            memory.plot(QRect(gw, lane.top, width - gw, lane.height - 1), curves, ctx.memoryMax, capacity, g.rank, m_opt.highlight);
            break;
        default: break;
        }
        p.setClipping(false);
        p.setPen(kSeparator);
        p.drawLine(gw, lane.top + lane.height - 1, width, lane.top + lane.height - 1);
        gutter.lane(lane, nullptr, g.rank);
        if (lane.kind == Lane::Kind::Memory)
            memory.legend(GutterPainter::kStripe + 10, lane.top + 1 + LaneLayout::kRowHeight, gw - GutterPainter::kStripe - 18,
                          lane.top + lane.height - 2, curves, capacity);
    }
    const int bodyHeight = g.height - LaneLayout::kGroupGap;
    if (g.lanes.size() > 1) {
        const int top = g.lanes[1].top;
        p.setClipRect(QRect(gw, top, width - gw, bodyHeight - top));
        lanes.oomLines(g.rank, top, bodyHeight - 1);
        p.setClipping(false);
    }
    if (!g.lanes.empty()) {
        const Lane &head = g.lanes.front();
        const int top = head.top + head.height;
        AnalysisOverlay::paintHighlight(p, m_opt.highlight, g.rank, view, QRect(gw, top, width - gw, bodyHeight - top),
                                        QRect(0, head.top, width, head.height));
    }
    p.fillRect(QRect(0, 0, GutterPainter::kStripe, bodyHeight), RankColors::color(g.rank));
    p.setPen(kSeparator);
    p.drawLine(width - 1, 0, width - 1, bodyHeight - 1);
}

void FigureRenderer::paintAnnotations(QPainter &p) const
{
    if (m_opt.annotations.empty() || m_groups.empty())
        return;
    const TimeScale view = viewScale();
    AnnotationGeometry geo;
    geo.x = [view](TimeNs t) { return kMargin + view.toX(t); };
    geo.rankBand = [this](RankId rank) -> std::optional<QRectF> {
        for (const Group &g : m_groups) {
            if (g.rank != rank)
                continue;
            const int head = g.lanes.empty() ? 0 : g.lanes.front().height;
            return QRectF(kMargin + m_ctx->gutterWidth, g.top + head, m_groupWidth - m_ctx->gutterWidth,
                          g.height - LaneLayout::kGroupGap - head);
        }
        return std::nullopt;
    };
    geo.area = QRectF(kMargin + m_ctx->gutterWidth, m_groupsTop, m_groupWidth - m_ctx->gutterWidth, m_groupsBottom - m_groupsTop);
    // Markers go in the strips kept for them: under the ruler for job-wide findings, under a rank's
    // header for its own, so they cover no data.
    geo.markerRow = [this](RankId rank) -> std::optional<QRectF> {
        const double left = kMargin + m_ctx->gutterWidth, w = m_groupWidth - m_ctx->gutterWidth;
        if (rank == kNoRank)
            return m_jobMarkersTop >= 0 ? std::optional<QRectF>(QRectF(left, m_jobMarkersTop, w, kMarkerStrip - 1)) : std::nullopt;
        for (const Group &g : m_groups)
            if (g.rank == rank && g.markerTop >= 0)
                return QRectF(left, g.top + g.markerTop, w, kMarkerStrip - 1);
        return std::nullopt;
    };
    // Listed findings become numbered markers (the list under the legend has their text); user
    // annotations, and finding annotations the list does not have, keep their callouts.
    AnnotationStyle style;
    if (!m_findings->isEmpty()) {
        style.findings = FindingStyle::NumberedMarker;
        style.number = [this](const Annotation &a) { return m_findings->numberOf(a); };
    }
    p.save();
    QFont f = m_font;
    f.setPixelSize(11);
    p.setFont(f);
    AnnotationPainter::paint(p, m_opt.annotations, geo, 0, 0, style);
    p.restore();
}

int FigureRenderer::legendHeight(int width) const
{
    // Measured by laying the legend out without drawing, so the figure is exactly as tall as needed.
    QImage probe(1, 1, QImage::Format_ARGB32);
    QPainter p(&probe);
    p.setFont(m_font);
    return paintLegend(p, QRect(0, 0, width, 0), false);
}

int FigureRenderer::findingsHeight(int width) const
{
    if (m_findings->isEmpty())
        return 0;
    QImage probe(1, 1, QImage::Format_ARGB32);
    QPainter p(&probe);
    return m_findings->paint(p, QRect(0, 0, width, 0), m_font, m_full.begin, false);
}

int FigureRenderer::paintLegend(QPainter &p, const QRect &r, bool draw) const
{
    QFont small = m_font;
    small.setPixelSize(11);
    QFont head = small;
    head.setWeight(QFont::DemiBold);
    const QFontMetrics fm(small);
    const int rowH = 18;
    const int swatchW = 22;
    int x = r.left();
    int y = r.top() + 4;
    auto item = [&](const QString &text, const std::function<void(const QRectF &)> &swatch) {
        const int w = swatchW + 4 + fm.horizontalAdvance(text) + 16;
        if (x + w > r.right() && x > r.left()) {
            x = r.left();
            y += rowH;
        }
        if (draw) {
            p.save();
            swatch(QRectF(x, y + 2, swatchW, rowH - 4));
            p.restore();
            p.setFont(small);
            p.setPen(kText);
            p.drawText(QRect(x + swatchW + 4, y, w, rowH), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w;
    };
    auto section = [&](const QString &text) {
        const int w = QFontMetrics(head).horizontalAdvance(text) + 10;
        if (x + w + 120 > r.right() && x > r.left()) {
            x = r.left();
            y += rowH;
        }
        if (draw) {
            p.setFont(head);
            p.setPen(kMuted);
            p.drawText(QRect(x, y, w, rowH), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w;
    };

    // What is actually drawn decides what is explained.
    bool used = false, reserved = false, snapshot = false, capacity = false, logs = false, gpu = false;
    std::set<SpanPalette::Family> families;
    for (const Group &g : m_groups) {
        const Rank &rank = *m_session->rank(g.rank);
        for (const FigureMemoryPainter::Curve &c : FigureMemoryPainter::curvesOf(*m_session, g.layout.memoryTracks(), g.rank)) {
            used = used || c.style == FigureMemoryPainter::Style::Dashed;
            reserved = reserved || c.style == FigureMemoryPainter::Style::Line;
            snapshot = snapshot || c.style == FigureMemoryPainter::Style::Dotted;
        }
        if (!g.layout.memoryTracks().empty())
            capacity = capacity || LaneLayout::deviceCapacity(rank, m_session->tracks()[g.layout.memoryTracks().front()].device) > 0;
        for (const Lane &l : g.lanes) {
            logs = logs || l.kind == Lane::Kind::Log;
            if (l.kind == Lane::Kind::Spans) {
                const Track &t = m_session->tracks()[l.track];
                gpu = gpu || t.kind == TrackKind::GpuStream;
                // A sample of spans is enough to know the families present.
                const std::size_t stride = std::max<std::size_t>(1, t.spans.size() / 2000);
                for (std::size_t i = 0; i < t.spans.size(); i += stride)
                    families.insert(SpanPalette::family(t.spans[i].flags, m_session->str(t.spans[i].category)));
            }
        }
    }
    bool memoryLane = false, oom = false;
    for (const Group &g : m_groups) {
        memoryLane = memoryLane || !g.layout.memoryTracks().empty();
        oom = oom || !m_ctx->evidence.ooms(g.rank).empty();
    }

    if (memoryLane) {
        section(tr("Memory"));
        item(tr("allocated (rank colour)"), [&](const QRectF &s) {
            const int n = std::min<int>(3, static_cast<int>(m_groups.size()));
            for (int i = 0; i < n; ++i) {
                QColor c = RankColors::color(m_groups[static_cast<std::size_t>(i)].rank);
                c.setAlpha(140);
                p.fillRect(QRectF(s.left() + s.width() * i / n, s.top() + 3, s.width() / n, s.height() - 6), c);
            }
        });
        if (reserved)
            item(tr("reserved"), [&](const QRectF &s) {
                p.setPen(FigureMemoryPainter::pen(FigureMemoryPainter::Style::Line, RankColors::textColor(m_groups.front().rank)));
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
        if (used)
            item(tr("used (nvidia-smi)"), [&](const QRectF &s) {
                p.setPen(FigureMemoryPainter::pen(FigureMemoryPainter::Style::Dashed, QColor(0x37, 0x41, 0x51)));
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
        if (snapshot)
            item(tr("allocator snapshot"), [&](const QRectF &s) {
                p.setPen(FigureMemoryPainter::pen(FigureMemoryPainter::Style::Dotted, RankColors::color(m_groups.front().rank)));
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
        if (capacity)
            item(tr("GPU capacity"), [&](const QRectF &s) {
                p.setPen(FigureMemoryPainter::capacityPen());
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
        if (m_analysis && !m_analysis->spikes.empty())
            item(tr("allocation spike"), [&](const QRectF &s) {
                QColor c = AnalysisOverlay::highlightColor();
                c.setAlpha(60);
                p.fillRect(s, c);
            });
    }
    if (oom) {
        if (!memoryLane)
            section(tr("Memory"));
        item(tr("CUDA OOM"), [&](const QRectF &s) {
            p.setPen(QPen(QColor(0xc9, 0x1d, 0x2e), 1.5));
            p.drawLine(QPointF(s.center().x(), s.top()), QPointF(s.center().x(), s.bottom()));
            LogStyle::paintMarker(p, s.center(), LogStyle::Mark::Oom, 5.0);
        });
    }
    if (gpu || !families.empty()) {
        x += 8;
        section(tr("Spans"));
        for (SpanPalette::Family f : families) {
            if (f == SpanPalette::Family::Step)
                continue;
            item(SpanPalette::familyName(f), [&, f](const QRectF &s) { p.fillRect(s.adjusted(2, 1, -2, -1), SpanPalette::familyColor(f)); });
        }
        item(tr("many short spans"), [&](const QRectF &s) {
            QColor base = SpanPalette::familyColor(SpanPalette::Family::Kernel);
            base.setHsl(base.hslHue(), base.hslSaturation() * 3 / 4, std::min(255, base.lightness() + 12));
            p.fillRect(s.adjusted(2, 1, -2, -1), base);
            QColor hatch = base.darker(135);
            hatch.setAlpha(150);
            p.fillRect(s.adjusted(2, 1, -2, -1), QBrush(hatch, Qt::BDiagPattern));
        });
    }
    if (logs) {
        x += 8;
        section(tr("Log"));
        for (const auto &[mark, name] : {std::pair{LogStyle::Mark::Warning, tr("warning")}, std::pair{LogStyle::Mark::Error, tr("error")},
                                         std::pair{LogStyle::Mark::Oom, tr("OOM message")}})
            item(name, [&, mark = mark](const QRectF &s) { LogStyle::paintMarker(p, s.center(), mark, 5.0); });
    }
    std::set<Severity> severities;
    bool note = false, range = false, arrow = false;
    for (const Annotation &a : m_opt.annotations) {
        if (a.origin == Annotation::Origin::Finding) {
            // Numbered markers are explained by the findings list; only callouts need swatches.
            if (m_analysis && m_findings->numberOf(a) == 0)
                for (const Finding &f : m_analysis->findings)
                    if (findingKey(f) == a.findingKey)
                        severities.insert(f.severity);
            continue;
        }
        note = note || a.kind == Annotation::Kind::Note;
        range = range || a.kind == Annotation::Kind::Range;
        arrow = arrow || a.kind == Annotation::Kind::Arrow;
    }
    if (!severities.empty()) {
        x += 8;
        section(tr("Findings"));
        for (auto it = severities.rbegin(); it != severities.rend(); ++it) {
            const Severity sev = *it;
            item(FindingsModel::severityLabel(sev), [&, sev](const QRectF &s) {
                QColor c = FindingsModel::severityColor(sev);
                p.fillRect(s.adjusted(2, 1, -2, -1), QColor(c.red(), c.green(), c.blue(), 50));
                p.fillRect(QRectF(s.left() + 2, s.top() + 1, 3, s.height() - 2), c);
            });
        }
    }
    if (note || range || arrow) {
        x += 8;
        section(tr("Annotations"));
        Annotation sample;
        if (note)
            item(tr("note"), [&](const QRectF &s) {
                sample.kind = Annotation::Kind::Note;
                p.setRenderHint(QPainter::Antialiasing, true);
                p.setPen(Qt::NoPen);
                p.setBrush(sample.effectiveColor());
                p.drawEllipse(s.center(), 4.5, 4.5);
            });
        if (range)
            item(tr("range"), [&](const QRectF &s) {
                sample.kind = Annotation::Kind::Range;
                QColor c = sample.effectiveColor();
                c.setAlpha(60);
                p.fillRect(s.adjusted(2, 1, -2, -1), c);
            });
        if (arrow)
            item(tr("arrow"), [&](const QRectF &s) {
                sample.kind = Annotation::Kind::Arrow;
                p.setPen(QPen(sample.effectiveColor(), 1.5));
                p.drawLine(QPointF(s.left() + 2, s.center().y()), QPointF(s.right() - 2, s.center().y()));
                p.drawLine(QPointF(s.right() - 6, s.center().y() - 3), QPointF(s.right() - 2, s.center().y()));
                p.drawLine(QPointF(s.right() - 6, s.center().y() + 3), QPointF(s.right() - 2, s.center().y()));
            });
    }
    return y + rowH + 2 - r.top();
}

void FigureRenderer::paintFooter(QPainter &p, const QRect &r) const
{
    FigureChrome::paintFooter(p, r, m_font, m_full.begin, m_opt.timeZone, m_rankOrder, m_offsets);
}

} // namespace rs
