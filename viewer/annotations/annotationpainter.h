#pragma once
// Draws annotations (notes, arrows, ranges) on any QPainter surface: the live timeline and the
// exported figures (PNG, SVG, PDF) use this one painter, so what goes into the incident ticket
// looks like what was on screen. The surface says where things are through AnnotationGeometry;
// the painter knows nothing about widgets. A figure may draw finding annotations as small numbered
// markers instead of callouts (AnnotationStyle) and list the findings in full beside the picture:
// callouts of several findings at one moment pile up and elide, a numbered list does not.

#include "annotation.h"

#include <QPointF>
#include <QRectF>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

class QPainter;

namespace rs {

/// Where the annotated things are on the surface being painted.
struct AnnotationGeometry {
    /// Aligned ns → x on the surface.
    std::function<double(TimeNs)> x;
    /// The vertical band (data area) of `rank`'s group on the surface; nullopt when the rank is not
    /// shown (hidden, filtered out, scrolled away): its annotations are skipped.
    std::function<std::optional<QRectF>(RankId)> rankBand;
    /// The whole data area (right of the gutter, all ranks): job-wide annotations span it, and
    /// everything is clipped to it.
    QRectF area;
    /// The row numbered finding markers of `rank` sit in (kNoRank: the job-wide ones), e.g. a strip
    /// a figure keeps free for them so they cover no data; markers at one moment line up along it.
    /// Unset or nullopt: on the band's top edge, stacked down. Unused by callouts.
    std::function<std::optional<QRectF>(RankId)> markerRow;
    /// Labels already on the surface that annotation text must not cover (the memory charts' OOM
    /// and spike labels): a callout or label overlapping one is pushed below it.
    std::vector<QRectF> keepClear;
};

/// How finding annotations (Origin::Finding) are drawn.
enum class FindingMarks : std::uint8_t {
    Callout,        ///< a diamond pin (note) or a dashed range with the title in a box
    NumberedMarker, ///< a badge with the finding's number in its colour (the screen and figures);
                    ///< the findings panel, a tooltip or the figure's list has the text
};

/// Drawing choices of one AnnotationPainter::paint call; the default draws every finding as a
/// callout (the timeline and figures pass NumberedMarker with findingNumber()).
struct AnnotationStyle {
    FindingMarks findings = FindingMarks::Callout;
    /// NumberedMarker: the number of a finding annotation (>= 1); 0 keeps that annotation's callout
    /// (a finding the accompanying list does not have). Unset: every finding keeps its callout.
    std::function<int(const Annotation &)> number;
};

class AnnotationPainter
{
public:
    /// Which part of an annotation a point is on (for moving one end of an arrow or range).
    enum class Part : std::uint8_t { None, Body, Start, End };

    /// Paints `annotations` in order (later ones on top). `selectedId` gets handles and a heavier
    /// outline, `hoveredId` a lighter one; 0 means none. `style` says how findings are drawn.
    static void paint(QPainter &painter, const std::vector<Annotation> &annotations, const AnnotationGeometry &geometry,
                      std::uint64_t selectedId = 0, std::uint64_t hoveredId = 0, const AnnotationStyle &style = {});

    /// The numbered badge of a finding marker, centred on `centre`: a filled circle (a rounded
    /// square from 10 on, to fit the digits) in `color` with the number in white. The figure's
    /// findings list draws the same badge, so a marker and its line match.
    static void paintNumberBadge(QPainter &painter, const QPointF &centre, int number, const QColor &color);
    /// The size paintNumberBadge() takes for `number`.
    static QSizeF numberBadgeSize(int number);

    /// Where the text of each annotation lands when painted with `style`: (id, box) for every
    /// annotation with a callout or label (numbered markers have none).
    static std::vector<std::pair<std::uint64_t, QRectF>> textBoxes(const std::vector<Annotation> &annotations,
                                                                    const AnnotationGeometry &geometry, const AnnotationStyle &style = {});

    /// The topmost annotation under `point` and the part hit, or {0, Part::None}, for annotations
    /// painted with `style`: a numbered marker's badge is its Body (a range's edges still grab its
    /// ends); a marked moment has no other grip, so its line down the band leaves the data clickable.
    static std::pair<std::uint64_t, Part> hitTest(const QPointF &point, const std::vector<Annotation> &annotations,
                                                   const AnnotationGeometry &geometry, const AnnotationStyle &style = {});
};

} // namespace rs
