#pragma once
// The "Findings" block of an exported figure, under the legend: one entry per finding the figure
// shows, numbered like the markers that stand for the findings' annotations on the lanes, each with
// its severity, full title, ranks, time relative to t = 0 and the fix, wrapped. On screen a finding
// is a numbered marker whose tooltip and the findings panel have the rest; a figure pasted into a
// ticket has neither, so it says everything here (FigureOptions::findings says what is listed).
// The numbers are the screen's (findingNumbers()), so a figure and the viewer agree.

#include "figureoptions.h"

#include <QCoreApplication>
#include <QFont>
#include <QRect>
#include <QString>

#include <functional>
#include <string>
#include <vector>

class QPainter;

namespace rs {

/// "0–3", "0, 2, 5–7": runs of consecutive ranks folded.
QString foldedRanks(const std::vector<RankId> &ranks);

class FigureFindings
{
    Q_DECLARE_TR_FUNCTIONS(FigureFindings)

public:
    struct Entry {
        int number = 0;                  ///< findingNumbers(): as on screen; gaps where a finding is not listed
        const Finding *finding = nullptr; ///< into the analysis given to the constructor
        bool marked = false;             ///< its annotation is drawn (a marker on the lanes)
    };

    FigureFindings() = default;
    /// Picks the findings of `analysis` (may be null: none) to list, as FigureOptions::findings
    /// documents. `onLanes` says whether an annotation lands on the figure (its rank is shown and
    /// its time in the window); unset: all do. `analysis` must outlive this object.
    FigureFindings(const AnalysisResult *analysis, const FigureOptions &options,
                   const std::function<bool(const Annotation &)> &onLanes = {});

    const std::vector<Entry> &entries() const { return m_entries; }
    bool isEmpty() const { return m_entries.empty(); }
    /// The number of the listed finding `annotation` was made from; 0 for a user annotation or a
    /// finding annotation whose finding is not listed (the analysis no longer has it): those keep
    /// their callouts. Findings share a key only when they are the same finding, so the first wins.
    int numberOf(const Annotation &annotation) const;

    /// Lays the block out from r.top() in r.width() and, when `draw`, paints it; returns the height
    /// used (0 when empty). `origin` is t = 0 of the ruler, which the times are relative to.
    int paint(QPainter &p, const QRect &r, const QFont &font, TimeNs origin, bool draw) const;

private:
    std::vector<Entry> m_entries;
    FindingNumbers m_numbers; // findingKey → number, of the listed findings only
};

} // namespace rs
