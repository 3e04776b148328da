#include "figurerenderer.h"
#include "timeline/memorychart.h"

#include "annotations/annotationpainter.h"
#include "figurechrome.h"
#include "figurefindings.h"
#include "figureruler.h"
#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "timeline/analysisoverlay.h"
#include "timeline/lanekind.h"
#include "timeline/rankgrouppainter.h"
#include "timeline/timelinecontext.h"

#include <QImage>
#include <QGuiApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

constexpr int kMargin = FigureChrome::kMargin;
constexpr int kTitleHeight = FigureChrome::kTitleHeight;
constexpr int kFooterHeight = FigureChrome::kFooterHeight;
constexpr int kMarkerStrip = FigureMarkerStrips::kHeight;
const QColor kMuted = FigureChrome::mutedColor();

} // namespace

TimeRange FigureRenderer::alignedDataRange(const Session &session, const AnalysisResult *analysis,
                                           const std::map<RankId, TimeNs> &offsets)
{
    auto offsetOf = [&](RankId r) {
        const auto it = offsets.find(r);
        return it != offsets.end() ? it->second : analysis ? analysis->offsetOf(r) : 0;
    };
    // The same plausible extent the timeline uses, so a figure of "everything" frames what the
    // screen frames and one bad source cannot squeeze the good ranks to an edge.
    const PlausibleExtent extent = PlausibleExtent::find(session, offsetOf, analysis ? &analysis->metrics : nullptr);
    EvidenceIndex evidence;
    evidence.build(&session, analysis);
    TimeRange all = extent.axis;
    if (!all.isEmpty() && !evidence.placedExtent().isEmpty()) {
        // Placed records carry data time plus their rank's offset from the analysis; overrides may differ.
        all = all.united(evidence.placedExtent());
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
    if (m_analysis)
        m_ctx->setExtent(m_analysis->extent); // capacities known: the memory scale leaves implausible counters out
    m_ctx->ticks = &m_ticks;

    m_offsets = FigureChrome::offsets(*m_session, m_analysis.get(), m_opt);
    m_full = alignedDataRange(*m_session, m_analysis.get(), m_offsets);
    if (m_full.isEmpty())
        m_full = {0, 1000000};
    m_range = FigureChrome::window(m_opt.range, m_full);

    m_rankOrder = FigureChrome::rankOrder(*m_session, m_opt);

    m_title = m_opt.title.isEmpty() ? FigureChrome::defaultTitle(m_session.get(), m_analysis.get(), tr("RankScope timeline")) : m_opt.title;

    m_findings = std::make_unique<FigureFindings>(m_analysis.get(), m_opt, [this](const Annotation &a) { return onFigure(a); });
    m_markers = FigureMarkerStrips(m_opt.annotations, *m_findings, [this](const Annotation &a) { return onFigure(a); });

    for (RankId r : m_rankOrder) {
        Group g;
        g.rank = r;
        const bool collapsed = std::find(m_opt.collapsed.begin(), m_opt.collapsed.end(), r) != m_opt.collapsed.end();
        buildGroup(g, *m_session->rank(r), collapsed);
        m_groups.push_back(std::move(g));
    }
    // The legend explains what the groups draw, which is fixed from here on.
    for (const Group &g : m_groups)
        m_legend.addGroup(*m_session, g.rank, g.layout, g.layout.lanes(), !m_ctx->evidence.ooms(g.rank).empty());
    m_legend.setSpikes(m_analysis && !m_analysis->spikes.empty());
    m_legend.addAnnotations(m_opt.annotations, m_analysis.get(), *m_findings);
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
    LaneLayout::Options o;
    o.collapsed = collapsed;
    o.timedLogs = !m_ctx->evidence.logs(rank.id).empty();
    // The rank's finding markers get a row of their own under the header: on the lanes they would
    // cover the curves and their labels (the OOM's, the spikes').
    o.findings = m_markers.has(rank.id);
    o.figure = true;
    g.layout.build(s, rank, o);
    if (m_opt.detail == FigureOptions::Detail::Compact)
        g.layout.applyCompact(s);
    g.height = g.layout.height();

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
    // A placeholder rank stands for a process whose log never said its rank: say which process.
    if (!rank.unknownProcess.empty())
        parts.prepend(tr("rank unknown: process %1").arg(QString::fromStdString(rank.unknownProcess)));
    g.header.summary = parts.join(QStringLiteral("  ·  "));
    if (const std::size_t ooms = m_ctx->evidence.oomCount(rank.id))
        g.header.alerts << (ooms == 1 ? tr("OOM") : tr("%1 OOMs").arg(ooms));
    if (const std::size_t errors = m_ctx->evidence.errorCount(rank.id))
        g.header.alerts << countOf(static_cast<qint64>(errors), tr("error"), tr("errors"));
    g.header.divergence = m_analysis ? AnalysisOverlay::divergenceBadge(*m_analysis, rank.id) : QString();
    g.header.collapsed = collapsed;
    g.header.disclosure = false; // a figure on paper has nothing to click
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
        m_jobMarkersTop = m_markers.has(kNoRank) ? m_rulerTop + RulerTicks::kHeight : -1;
        m_groupsTop = m_rulerTop + RulerTicks::kHeight + (m_jobMarkersTop >= 0 ? kMarkerStrip : 0);
        int y = m_groupsTop;
        for (Group &g : m_groups) {
            g.top = y;
            y += g.height;
        }
        m_groupsBottom = y;
        m_legendTop = y + 4;
        m_legendHeight = m_opt.legend ? m_legend.height(m_groupWidth, m_font) : 0;
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

    // One shared scale over the shown ranks, without counters the plausible extent leaves out.
    double memoryMax = 0;
    for (const Group &g : m_groups)
        for (TrackId id : g.layout.memoryTracks())
            if (!m_ctx->extent.leavesOut(id))
                memoryMax = std::max(memoryMax, id < m_ctx->counterMax.size() ? m_ctx->counterMax[id] : 0.0);
    m_ctx->memoryMax = memoryMax;
    const TimeScale scale = viewScale();
    m_ticks = RulerTicks::compute(m_range, m_full.begin, scale.width);
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
    FigureRuler::paint(p, QRect(kMargin, m_rulerTop, m_groupWidth, RulerTicks::kHeight), m_ctx->gutterWidth, viewScale(), m_ticks,
                       m_full.begin, m_font, m_opt.timeZone);
    if (m_jobMarkersTop >= 0)
        FigureMarkerStrips::paint(p, QRect(kMargin, m_jobMarkersTop, m_groupWidth, kMarkerStrip), m_ctx->gutterWidth, m_font, kNoRank);
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
        m_legend.paint(p, QRect(kMargin, m_legendTop, m_groupWidth, m_legendHeight), m_font, true);
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

void FigureRenderer::paintGroup(QPainter &p, Group &g)
{
    LaneFrame f;
    f.painter = &p;
    f.ctx = m_ctx.get();
    f.layout = &g.layout;
    f.header = &g.header;
    f.rank = g.rank;
    f.view = viewScale();
    f.offset = offsetOf(g.rank);
    f.width = m_groupWidth;
    f.exposed = QRect(0, 0, m_groupWidth, g.height - LaneLayout::kGroupGap);
    f.font = m_font;
    f.figure = true;
    f.highlight = m_opt.highlight;
    f.findingsRow = [font = m_font, gw = m_ctx->gutterWidth, rank = g.rank](QPainter &painter, const QRect &row, const QString &) {
        FigureMarkerStrips::paint(painter, row, gw, font, rank);
    };
    RankGroupPainter::paint(f);
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
            const int head = g.layout.lanes().empty() ? 0 : g.layout.lanes().front().height;
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
            if (const Lane *row = g.rank == rank ? g.layout.findingsLane() : nullptr)
                return QRectF(left, g.top + row->top, w, kMarkerStrip - 1);
        return std::nullopt;
    };
    // Callouts keep clear of the memory charts' OOM and spike labels, placed as the chart places them.
    const QFont chartFont = MemoryChart::labelFont(QGuiApplication::font());
    for (const Group &g : m_groups) {
        const Lane *memory = g.layout.memoryLane();
        if (!memory)
            continue;
        const int gutter = m_ctx->gutterWidth;
        const QRect area(kMargin + gutter, g.top + memory->top, m_groupWidth - gutter, memory->height - 1);
        const TimeRange visible{view.toTime(gutter), view.toTime(gutter + area.width())};
        const MemoryChart chart = MemoryChart::of(*m_ctx, g.rank, g.layout.memoryTracks(), m_opt.highlight);
        for (const ChartLabel &label : MemoryChart::labelsOf(chart.spikes, chart.ooms, visible, offsetOf(g.rank), area.size(), chartFont))
            geo.keepClear.push_back(label.rect.translated(area.topLeft()));
    }
    // Listed findings become numbered markers (the list under the legend has their text); user
    // annotations, and finding annotations the list does not have, keep their callouts.
    AnnotationStyle style;
    if (!m_findings->isEmpty()) {
        style.findings = FindingMarks::NumberedMarker;
        style.number = [this](const Annotation &a) { return m_findings->numberOf(a); };
    }
    p.save();
    QFont f = m_font;
    f.setPixelSize(11);
    p.setFont(f);
    AnnotationPainter::paint(p, m_opt.annotations, geo, 0, 0, style);
    p.restore();
}

int FigureRenderer::findingsHeight(int width) const
{
    if (m_findings->isEmpty())
        return 0;
    QImage probe(1, 1, QImage::Format_ARGB32);
    QPainter p(&probe);
    return m_findings->paint(p, QRect(0, 0, width, 0), m_font, m_full.begin, false);
}

void FigureRenderer::paintFooter(QPainter &p, const QRect &r) const
{
    FigureChrome::paintFooter(p, r, m_font, m_full.begin, m_opt.timeZone, m_rankOrder, m_offsets);
}

} // namespace rs
