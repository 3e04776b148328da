#include "memorychart.h"

#include "timeformat.h"
#include "timeline/analysisoverlay.h"
#include "timeline/lanelayout.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>
#include <QMutex>

namespace rs {

namespace {

// Installed once at start and read by figure painters on any thread.
QMutex g_engineLock;
std::shared_ptr<const MemoryChartEngine> g_engine;

} // namespace

std::vector<MemoryChart::Series> MemoryChart::seriesOf(const Session &s, const std::vector<TrackId> &tracks, RankId rank,
                                                      const Palette &colors)
{
    std::vector<Series> series;
    for (const MemoryLanePainter::Curve &c : MemoryLanePainter::curvesOf(s, tracks, rank, colors))
        series.push_back({&s.tracks()[c.track].counter, c.name, c.color, c.style, c.track});
    return series;
}

std::vector<OomMark> MemoryChart::oomMarks(const EvidenceIndex &evidence, RankId rank)
{
    std::vector<OomMark> marks;
    for (const OomMarker &m : evidence.ooms(rank)) {
        QString label = m.requested > 0
            ? QCoreApplication::translate("MemoryChart", "OOM · %1").arg(TimeFormat::bytes(static_cast<double>(m.requested)))
            : QCoreApplication::translate("MemoryChart", "OOM");
        if (m.placed)
            label = QStringLiteral("≈ ") + label; // no time stamp of its own: placed by an anchor
        marks.push_back({m.time, label});
    }
    return marks;
}

MemoryChart MemoryChart::of(const TimelineContext &ctx, RankId rank, const std::vector<TrackId> &tracks,
                            const Highlight &highlight)
{
    MemoryChart chart;
    if (!ctx.session || tracks.empty())
        return chart;
    const Session &s = *ctx.session;
    chart.session = ctx.session;
    chart.series = seriesOf(s, tracks, rank, *ctx.colors);
    chart.valueMax = ctx.memoryMax;
    if (const Rank *r = s.rank(rank))
        chart.capacity = static_cast<double>(LaneLayout::deviceCapacity(*r, s.tracks()[tracks.front()].device));
    chart.ooms = oomMarks(ctx.evidence, rank);
    if (ctx.analysis)
        chart.spikes = AnalysisOverlay::spikeMarks(*ctx.analysis, rank);
    if (highlight.contains(rank))
        chart.highlight = highlight.range;
    return chart;
}

std::shared_ptr<const MemoryChartEngine> MemoryChartEngine::installed()
{
    QMutexLocker lock(&g_engineLock);
    return g_engine;
}

void MemoryChartEngine::install(std::shared_ptr<const MemoryChartEngine> engine)
{
    QMutexLocker lock(&g_engineLock);
    g_engine = std::move(engine);
}

} // namespace rs
