#include "memorychart.h"

#include "timeformat.h"
#include "timeline/analysisoverlay.h"
#include "timeline/lanelayout.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QMutex>

#include <algorithm>

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

QFont MemoryChart::labelFont(const QFont &base)
{
    QFont f = base;
    f.setPixelSize(10);
    f.setBold(true);
    return f;
}

std::vector<ChartLabel> MemoryChart::labelsOf(const std::vector<SpikeMark> &spikes, const std::vector<OomMark> &ooms,
                                              TimeRange visible, TimeNs offset, QSize size, const QFont &font)
{
    std::vector<ChartLabel> out;
    if (visible.duration() <= 0 || size.width() <= 0)
        return out;
    const QFontMetricsF fm(font);
    const double width = size.width();
    const double pxPerNs = width / static_cast<double>(visible.duration());
    const double npp = 1.0 / pxPerNs;
    const double height = std::ceil(fm.height()) + 2; // the text and its 1 px padding above and below
    const auto xOf = [&](double viewTime) { return (viewTime - static_cast<double>(visible.begin)) * pxPerNs; };
    const auto overlaps = [](const std::vector<std::pair<double, double>> &taken, std::pair<double, double> e) {
        return std::any_of(taken.begin(), taken.end(), [&](const auto &t) { return e.first < t.second && t.first < e.second; });
    };

    std::vector<const SpikeMark *> bySize;
    for (const SpikeMark &m : spikes)
        bySize.push_back(&m);
    std::stable_sort(bySize.begin(), bySize.end(), [](const SpikeMark *a, const SpikeMark *b) { return a->bytes > b->bytes; });
    std::vector<std::pair<double, double>> rows[2]; // x extents of the labels on each row
    for (const SpikeMark *m : bySize) {
        const double k0 = static_cast<double>(m->time + offset);
        const double k1 = std::max(k0 + 3 * npp, static_cast<double>(m->time + m->duration + offset));
        if (k1 < static_cast<double>(visible.begin) || k0 > static_cast<double>(visible.end))
            continue;
        const double x = xOf(std::clamp((k0 + k1) / 2, static_cast<double>(visible.begin), static_cast<double>(visible.end)));
        const double w = std::ceil(fm.horizontalAdvance(m->label)) + 6;
        const std::pair<double, double> extent(x - w / 2 - 1, x + w / 2 + 1);
        for (int row = 0; row < 2; ++row) {
            if (overlaps(rows[row], extent))
                continue;
            rows[row].push_back(extent);
            out.push_back({ChartLabel::Kind::Spike, QRectF(x - w / 2, row * (height + 1), w, height), m->label});
            break;
        }
    }

    std::vector<const OomMark *> timedFirst;
    for (const OomMark &m : ooms)
        timedFirst.push_back(&m);
    std::stable_partition(timedFirst.begin(), timedFirst.end(), [](const OomMark *m) { return !m->label.startsWith(QStringLiteral("≈")); });
    std::vector<std::pair<double, double>> placed;
    for (const OomMark *m : timedFirst) {
        const double k = static_cast<double>(m->time + offset);
        if (k < static_cast<double>(visible.begin) || k > static_cast<double>(visible.end))
            continue;
        const double x = xOf(k);
        const double w = std::ceil(fm.horizontalAdvance(m->label)) + 6;
        const bool left = x + w > width; // right of the rule, or left of it at the chart's edge
        const std::pair<double, double> extent = left ? std::pair(x - w, x) : std::pair(x, x + w);
        if (overlaps(placed, extent))
            continue;
        placed.push_back(extent);
        out.push_back({ChartLabel::Kind::Oom, QRectF(extent.first, 0, w, height), m->label});
    }
    return out;
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
