#pragma once
// What one exported figure shows: the view (timeline or compare ranks), the time window, the ranks
// and their order, the clock offsets, the annotations, the title and the size. The GUI fills it
// from the current view (fromView), the command line from its arguments; the renderers and the
// exporters only read it.

#include "annotations/annotation.h"
#include "analysisresult.h"
#include "session.h"
#include "viewstate.h"

#include <QString>
#include <QTimeZone>

#include <cstdint>
#include <map>
#include <vector>

namespace rs {

struct FigureOptions {
    /// What the figure shows.
    enum class View : std::uint8_t {
        Timeline, ///< the aligned timeline: a group of lanes per rank (FigureRenderer)
        Compare,  ///< every rank's memory as small multiples and the per-rank metrics (CompareFigure)
    };
    /// Which lanes of a rank group are drawn.
    enum class Detail : std::uint8_t {
        Compact, ///< memory, steps, GPU streams, the log lane and OOM markers: what a ticket needs
        Full,    ///< every lane, as on screen
    };

    View view = View::Timeline;            ///< timeline or compare figure
    /// Compare figure: the rank every other is measured against; kNoRank, or a rank the session
    /// does not have: the median rank (compare/referencerank.h), as the compare view picks it.
    RankId referenceRank = kNoRank;
    TimeRange range;                       ///< aligned ns shown; empty: the whole session
    std::vector<RankId> ranks;             ///< ranks shown, top to bottom; empty: every rank in session order
    std::map<RankId, TimeNs> clockOffsets; ///< offsets replacing the analysis' ones, per rank (edited on screen)
    std::vector<Annotation> annotations;   ///< drawn over the lanes, in order (later on top)
    QString title;                         ///< headline; empty: "RankScope · <first input's folder>"
    QTimeZone timeZone = QTimeZone::utc(); ///< zone of the wall-clock times in the title block
    Detail detail = Detail::Compact;       ///< lanes per rank
    std::vector<RankId> collapsed;         ///< ranks drawn as their header and one activity strip
    Highlight highlight;                   ///< the selected finding's ranks and window, shaded as on screen
    int width = 1600;                      ///< logical pixels
    int height = 0;                        ///< logical pixels; 0: as tall as the content
    double devicePixelRatio = 1.0;         ///< pixels per logical pixel of a PNG or clipboard image
    bool legend = true;                    ///< draw the legend under the lanes
    /// List the analysis' findings under the legend, each in full (severity, title, ranks, time,
    /// fix) and numbered like the markers that stand for their annotations on the lanes. Listed:
    /// every finding whose annotation is in `annotations` (a hidden or deleted one is not), and the
    /// findings without a time (they never have an annotation) when `annotations` holds any
    /// finding annotation or the analysis has no finding with a time: a figure from a view that
    /// hid its finding annotations lists none. False: no list, and finding annotations keep their
    /// on-screen callouts.
    bool findings = true;

    /// The options that reproduce what `state` shows: its visible range, the ranks not hidden (in
    /// session order), the collapsed ranks, the clock offsets and the highlight. Annotations, title,
    /// size, view and reference rank are left for the caller.
    static FigureOptions fromView(const Session &session, const ViewState &state);
};

} // namespace rs
