#pragma once
// What the analysis adds to a rank's group on the timeline: the shaded window and edges of the
// selected finding (ViewState::highlight), the spikes on the memory chart, and the header badge of
// a rank that diverges from its peers. Pure helpers, so RankGroupWidget only calls them.

#include "analysisresult.h"
#include "spikemark.h"
#include "timescale.h"
#include "viewstate.h"

#include <QCoreApplication>
#include <QRect>
#include <QString>

#include <vector>

class QPainter;

namespace rs {

class AnalysisOverlay
{
    Q_DECLARE_TR_FUNCTIONS(AnalysisOverlay)

public:
    /// Amber: the colour of "the analysis points here", distinct from rank colours and OOM red.
    static QColor highlightColor(int alpha = 255);

    /// The spikes of `rank` as chart marks, in the rank's data time (the analysis' offset removed,
    /// so they move with the curves when the user edits the offset).
    static std::vector<SpikeMark> spikeMarks(const AnalysisResult &result, RankId rank);
    /// "diverges: micro-batches, peak allocated" for a divergent rank, else empty.
    static QString divergenceBadge(const AnalysisResult &result, RankId rank);
    /// One line per divergence reason, for the header tooltip.
    static QString divergenceDetails(const AnalysisResult &result, RankId rank);

    /// Draws the badge right-aligned in the header row `header` (data side).
    static void paintBadge(QPainter &p, const QRect &header, const QString &badge);
    /// Shades `h.range` over `body` (the group's data area below its header) when `rank` is in
    /// the highlight, and marks the header with an amber bar.
    static void paintHighlight(QPainter &p, const Highlight &h, RankId rank, const TimeScale &view, const QRect &body,
                               const QRect &header);
};

} // namespace rs
