#pragma once
// The timeline's finding markers: which annotations are the numbered badges of the analysis'
// findings (the number of findingNumbers(): the findings panel's "#", the exported figure's), their
// tooltips, and the rows kept free for them — a rank's Findings lane under its header (a folded
// group's summary strip), job-wide ones in the strip under the ruler. Owned by TimelineView, which
// gives the rows to exactly the ranks with markers (syncFindingRows); the annotation editor
// (AnnotationOverlay) paints and moves the badges with it. No widget: geometry comes from the view's
// group stack, so a badge of a rank scrolled out of sight still has its row.

#include "annotations/annotation.h"
#include "annotations/annotationpainter.h"

#include <QCoreApplication>
#include <QRectF>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace rs {

class TimelineView;

class FindingMarkerLayer
{
    Q_DECLARE_TR_FUNCTIONS(FindingMarkerLayer)
public:
    explicit FindingMarkerLayer(const TimelineView *view);

    /// True when `a` is drawn as a numbered badge: a finding annotation (not an arrow) that the
    /// view's analysis numbers.
    bool isMarker(const Annotation &a) const;
    /// The number of the finding `a` was made from, 0 when it has none.
    int numberOf(const Annotation &a) const;
    /// The finding of the view's analysis `a` was made from, and its index; {nullptr, -1} if none.
    std::pair<const Finding *, int> findingOf(const Annotation &a) const;
    /// How annotations are drawn on the timeline: findings as numbered markers.
    AnnotationStyle style() const;
    /// A marker's tooltip: its number, severity and full title (and the user's text when it was
    /// edited); empty when `a` is no marker.
    QString toolTip(const Annotation &a) const;
    /// The row a rank's markers sit in (kNoRank: the job's), in viewport coordinates, for a
    /// viewport `width` × `height` and the job-wide strip's area when it is shown. Until the rows are
    /// synced (a badge being dragged onto another rank) a rank's use its header row and job-wide
    /// ones the first header wholly in view.
    std::function<std::optional<QRectF>(RankId)> rows(double width, double height, std::optional<QRectF> jobStrip) const;

private:
    // The numbering of the view's analysis, rebuilt when the view gets another one.
    struct Numbering {
        std::shared_ptr<const AnalysisResult> analysis; // held, so a new result never reuses its address
        FindingNumbers numbers;
        std::vector<int> order; // number - 1 → index into analysis->findings
    };
    const Numbering &numbering() const;

    const TimelineView *m_view;
    mutable Numbering m_numbering;
};

} // namespace rs
