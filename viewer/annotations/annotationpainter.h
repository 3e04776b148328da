#pragma once
// Draws annotations (notes, arrows, ranges) on any QPainter surface: the live timeline and the
// exported figures (PNG, SVG, PDF) use this one painter, so what goes into the incident ticket
// looks like what was on screen. The surface says where things are through AnnotationGeometry;
// the painter knows nothing about widgets.

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
};

class AnnotationPainter
{
public:
    /// Which part of an annotation a point is on (for moving one end of an arrow or range).
    enum class Part : std::uint8_t { None, Body, Start, End };

    /// Paints `annotations` in order (later ones on top). `selectedId` gets handles and a heavier
    /// outline, `hoveredId` a lighter one; 0 means none.
    static void paint(QPainter &painter, const std::vector<Annotation> &annotations, const AnnotationGeometry &geometry,
                      std::uint64_t selectedId = 0, std::uint64_t hoveredId = 0);

    /// The topmost annotation under `point` and the part hit, or {0, Part::None}.
    static std::pair<std::uint64_t, Part> hitTest(const QPointF &point, const std::vector<Annotation> &annotations,
                                                   const AnnotationGeometry &geometry);
};

} // namespace rs
