#pragma once
// The rows of the exported timeline figure (FigureRenderer) kept free for numbered finding markers:
// one under the ruler for job-wide findings and one under the header of each rank with findings of
// its own, so the markers cover neither the curves nor their labels (an OOM's, the spikes'). A row
// exists only where a marker lands: a finding annotation the findings list numbers, not an arrow,
// drawn on the figure. The markers themselves are painted later by AnnotationPainter.

#include "figureoptions.h"

#include <QCoreApplication>
#include <QFont>
#include <QRect>

#include <functional>
#include <set>
#include <vector>

class QPainter;

namespace rs {

class FigureFindings;

class FigureMarkerStrips
{
    // FigureRenderer's context: the rows' labels were translated there before they had a class.
    Q_DECLARE_TR_FUNCTIONS(FigureRenderer)

public:
    static constexpr int kHeight = 20; ///< one row of markers, its bottom separator included

    FigureMarkerStrips() = default;
    /// Notes which rows are needed for `annotations`: `findings` numbers them, `onFigure` says
    /// whether one is drawn (its rank shown, its time in the window).
    FigureMarkerStrips(const std::vector<Annotation> &annotations, const FigureFindings &findings,
                       const std::function<bool(const Annotation &)> &onFigure);

    /// Whether `rank` gets a row of markers under its header; kNoRank: the job-wide row.
    bool has(RankId rank) const { return m_ranks.count(rank) > 0; }

    /// Paints the row for `rank` (kNoRank: job-wide) filling `r`: its label in the gutter
    /// (`gutterWidth` wide, the ruler's grey), white across the data area, separators like the lanes'.
    static void paint(QPainter &p, const QRect &r, int gutterWidth, const QFont &font, RankId rank);

private:
    std::set<RankId> m_ranks; // ranks (and kNoRank) with at least one marker on the figure
};

} // namespace rs
