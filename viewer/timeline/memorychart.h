#pragma once
// A rank's memory chart as data, and the engine that draws it. The screen's chart widget, a pinned
// lane and every exported figure describe the chart with MemoryChart::of and hand it to one
// implementation: the QCustomPlot chart (charts/memoryplot.h). This library needs QtGui only, so it
// cannot hold that widget; the application installs the engine (charts/memorychartrenderer.h) at
// start, and figures reach it through MemoryChartEngine::installed().

#include "evidenceindex.h"
#include "memorylanepainter.h"
#include "session.h"
#include "spikemark.h"
#include "viewstate.h"

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QSize>
#include <QString>

#include <memory>
#include <vector>

class QPainter;
class QRect;

namespace rs {

class Palette;
struct TimelineContext;

/// A moment the rank ran out of memory, as the chart marks it.
struct OomMark {
    TimeNs time = 0; ///< data time (the rank's clock offset is applied like for the curves)
    QString label;   ///< short text next to the marker ("OOM · 62 MiB", "≈ OOM" when placed by an anchor)
};

/// A label the chart prints over its curves: a spike's size or an OOM's text. Other things drawn
/// over the chart (annotation callouts) keep clear of them.
struct ChartLabel {
    enum class Kind : std::uint8_t { Spike, Oom };
    Kind kind = Kind::Spike;
    QRectF rect;  ///< chart coordinates: (0, 0) is the chart's top-left corner
    QString text;
};

struct MemoryChart {
    using Style = MemoryLanePainter::Style;
    /// One curve.
    struct Series {
        const CounterSeries *data = nullptr; ///< samples (owned by the session, which outlives the chart)
        QString name;                        ///< legend name ("allocated")
        QColor color;                        ///< line colour
        Style style = Style::Line;           ///< line style
        TrackId track = kNoTrack;            ///< the track plotted, for the legend's peak and tooltips
    };

    SessionPtr session;              ///< keeps the series' samples alive while a chart is drawn elsewhere
    std::vector<Series> series;      ///< areas first, so lines stay visible on top
    double valueMax = 0;             ///< top of the value axis in bytes, shared by every rank
    double capacity = 0;             ///< the GPU's memory in bytes; 0: unknown
    std::vector<OomMark> ooms;       ///< the rank's out-of-memory moments
    std::vector<SpikeMark> spikes;   ///< the analysis' allocation spikes of the rank
    TimeRange highlight;             ///< view-time window to shade (the selected finding's); empty: none

    /// The chart of `rank`'s memory `tracks` in `ctx` (its session, analysis, evidence and shared
    /// value scale), shading `highlight`'s window when it concerns the rank.
    static MemoryChart of(const TimelineContext &ctx, RankId rank, const std::vector<TrackId> &tracks,
                          const Highlight &highlight);
    /// The chart's curves of `rank`'s memory `tracks`, named and styled like the gutter legend, in
    /// `colors`' theme.
    static std::vector<Series> seriesOf(const Session &session, const std::vector<TrackId> &tracks, RankId rank,
                                        const Palette &colors);
    /// The OOM marks of `rank`; an OOM placed by an anchor is labelled "≈".
    static std::vector<OomMark> oomMarks(const EvidenceIndex &evidence, RankId rank);

    /// The font of the chart's labels, from the chart's own font.
    static QFont labelFont(const QFont &base);
    /// Which spike and OOM labels a chart `size` px large, showing view time `visible` of a rank
    /// whose data is drawn `offset` later, prints and where, in `font`. Spike labels go largest
    /// rise first on the top row or the one below, else are left out (the band stays); an OOM
    /// label sits right of its rule (left near the edge) and one overlapping another placed OOM
    /// label is left out (one OOM reported twice, by the profiler and the log). Timed OOMs first.
    static std::vector<ChartLabel> labelsOf(const std::vector<SpikeMark> &spikes, const std::vector<OomMark> &ooms,
                                            TimeRange visible, TimeNs offset, QSize size, const QFont &font);
};

/// Which window of time a chart shows and in which colours.
struct ChartView {
    TimeRange visible;         ///< view time shown across the chart's width
    TimeNs origin = 0;         ///< view time of the axis' zero (keys are ns since it)
    TimeNs offset = 0;         ///< the rank's clock offset: data is drawn this much later
    TimeNs gridStep = 0;       ///< the ruler's tick step, for the vertical grid (0: none)
    int gridSubdivisions = 0;  ///< the ruler's sub-ticks per step
    const Palette *colors = nullptr; ///< background, grid and label colours
};

class MemoryChartEngine
{
public:
    virtual ~MemoryChartEngine() = default;
    /// Draws `chart` as seen through `view` into `area` of `painter`'s device. Callable from any
    /// thread (figures of a report are drawn on the pool). False when nothing could be drawn.
    virtual bool paint(QPainter &painter, const QRect &area, const MemoryChart &chart, const ChartView &view) const = 0;

    /// The engine the application installed, or null (then figures say so in the lane).
    static std::shared_ptr<const MemoryChartEngine> installed();
    static void install(std::shared_ptr<const MemoryChartEngine> engine);
};

} // namespace rs
