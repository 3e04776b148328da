// The memory lane: allocated, reserved, allocator-snapshot and nvidia-smi curves of the rank's GPU
// on one scale shared by every rank, the GPU's capacity, the analysis' spikes and the OOM moments.
// On screen the chart is a QCustomPlot (MemoryPlot) laid over the lane by the group's widget; an
// exported figure and a pinned lane (which have no widget) draw the same chart through the
// installed MemoryChartEngine (MemoryChartRenderer: that QCustomPlot, rendered to a picture). The
// gutter legend, the tooltip and the hit-test are this kind's, the same for all of them.

#include "builtinlanes.h"

#include "counterformat.h"
#include "lanetooltips.h"
#include "timeformat.h"
#include "timeline/analysisoverlay.h"
#include "timeline/gutterpainter.h"
#include "timeline/lanepainter.h"
#include "timeline/memorychart.h"
#include "timeline/memorylanepainter.h"
#include "palette.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>

namespace rs {

namespace {

class MemoryLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Memory; }
    bool drawsGrid() const override { return false; } // the chart draws its own

    void addLanes(LaneBuilder &b) const override
    {
        const auto &tracks = b.layout.memoryTracks();
        if (b.options.collapsed || tracks.empty())
            return;
        const int device = b.session.tracks()[tracks.front()].device;
        // The gutter lists every curve with its peak, and the GPU's capacity: one title row, one
        // row per curve, one for the capacity when it is known.
        const int rows = static_cast<int>(tracks.size()) + (LaneLayout::deviceCapacity(b.rank, device) > 0 ? 1 : 0);
        const int legend = LaneLayout::kRowHeight + LaneLayout::kLegendRow * rows + 6;
        int height = std::max(LaneLayout::kMemoryHeight, legend);
        if (b.options.figure)
            height = std::max(height, LaneLayout::kFigureMemoryHeight);
        if (b.options.memoryHeight > 0) // the user's height wins (the legend is cut if it must be)
            height = std::clamp(b.options.memoryHeight, LaneLayout::kMinMemoryHeight, LaneLayout::kMaxMemoryHeight);
        b.add(*this, kNoTrack, height, tr("Memory · GPU %1").arg(device));
    }

    void paint(const Lane &lane, LaneFrame &f) const override
    {
        if (f.chartWidget)
            return; // the screen's chart widget covers the lane
        const int g = f.ctx->gutterWidth;
        const QRect area(g, lane.top, f.width - g, lane.height - 1);
        // Pinned lanes and figures draw the chart the screen shows, through the same engine.
        ChartView view;
        view.visible = {f.view.toTime(area.left()), f.view.toTime(area.left() + area.width())};
        view.origin = f.ctx->origin();
        view.offset = f.offset;
        if (f.ctx->ticks) {
            view.gridStep = f.ctx->ticks->step;
            view.gridSubdivisions = f.ctx->ticks->subdivisions;
        }
        view.colors = f.ctx->colors;
        const auto engine = MemoryChartEngine::installed();
        if (engine && engine->paint(*f.painter, area, MemoryChart::of(*f.ctx, f.rank, f.layout->memoryTracks(), f.highlight), view))
            return;
        // Only a program that never installed the engine (or one quitting) gets here: say so
        // rather than leave a blank lane that reads as "no memory used".
        f.lanes->grid(lane.top, lane.height - 1);
        f.painter->setPen(f.ctx->colors->color(Palette::Role::Muted));
        f.painter->drawText(area, Qt::AlignCenter, tr("memory chart not drawn: no chart engine in this program"));
    }

    void paintGutter(const Lane &lane, LaneFrame &f) const override
    {
        f.gutter->lane(lane);
        const int g = f.ctx->gutterWidth;
        MemoryLanePainter memory(*f.painter, *f.ctx);
        memory.legend(GutterPainter::kStripe + 10, lane.top + 1 + LaneLayout::kRowHeight, g - GutterPainter::kStripe - 18,
                      lane.top + lane.height - 2, MemoryLanePainter::curvesOf(*f.ctx->session, f.layout->memoryTracks(), f.rank, *f.ctx->colors),
                      capacity(f));
    }

    EventRef hitTest(const Lane &, QPoint pos, const LaneFrame &f) const override { return LaneTooltips::oomAt(f, pos.x()); }

    QString tooltip(const Lane &, QPoint pos, const EventRef &hit, const LaneFrame &f) const override
    {
        const Session &s = *f.ctx->session;
        const TimeNs t = f.view.toTime(pos.x());
        const TimeNs origin = f.ctx->origin();
        QString text;
        if (LaneTooltips::isOom(s, hit))
            text = LaneTooltips::oom(f, hit) + QStringLiteral("<br/>");
        if (f.ctx->analysis)
            for (const SpikeMark &m : AnalysisOverlay::spikeMarks(*f.ctx->analysis, f.rank))
                if (t - f.offset >= m.time && t - f.offset <= m.time + m.duration)
                    text += tr("<b style='color:#8a5500'>Spike</b> %1<br/>").arg(m.tooltip);
        text += tr("<b>Memory</b> at %1").arg(TimeFormat::precise(t - origin));
        for (const MemoryLanePainter::Curve &c : MemoryLanePainter::curvesOf(s, f.layout->memoryTracks(), f.rank, *f.ctx->colors)) {
            double v = 0;
            if (counterValueAt(s.tracks()[c.track].counter, t - f.offset, &v))
                text += QStringLiteral("<br/>%1: <b>%2</b>").arg(c.name, TimeFormat::bytes(v));
        }
        return text;
    }

    QString finderWords(const Lane &, const Session &) const override { return QStringLiteral("memory allocated reserved gpu"); }
    bool keepInCompact(Lane &, CompactFilter &) const override { return true; }

private:
    static double capacity(const LaneFrame &f)
    {
        const auto &tracks = f.layout->memoryTracks();
        if (tracks.empty())
            return 0;
        return static_cast<double>(LaneLayout::deviceCapacity(*f.ctx->session->rank(f.rank), f.ctx->session->tracks()[tracks.front()].device));
    }
};

} // namespace

std::unique_ptr<LaneKind> makeMemoryLane()
{
    return std::make_unique<MemoryLane>();
}

} // namespace rs
