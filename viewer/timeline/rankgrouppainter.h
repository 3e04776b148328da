#pragma once
// Paints one rank group — every lane of its LaneLayout through its LaneKind, the OOM lines across
// the data lanes, the highlight of the finding pointed at, the rank's colour stripe — onto any
// QPainter. The on-screen timeline (RankGroupWidget) and every exported figure (FigureRenderer)
// paint groups with this one class, so the screen and a figure cannot drift apart.

#include "lanekind.h"

namespace rs {

class RankGroupPainter
{
public:
    /// Paints the group `frame` describes (painter, context, layout, header, scale, exposed area),
    /// in group coordinates.
    static void paint(LaneFrame &frame);
    /// Paints `lane` alone (one of frame.layout's lanes, possibly retitled): its grid, content,
    /// separator and gutter, the rank's OOM lines across it and its colour stripe, in group
    /// coordinates (the caller translates). Pinned lanes are painted this way.
    static void paintLane(LaneFrame &frame, const Lane &lane);
    /// The lane at `pos` (group coordinates) and its kind's hit-test; none in the gutter.
    static EventRef hitTest(const LaneFrame &frame, QPoint pos);
    /// The tooltip of what lies at `pos`, `hit` being hitTest's answer there.
    static QString tooltip(const LaneFrame &frame, QPoint pos, const EventRef &hit);
    /// y of the first row under the header and the rows of labels (findings): where OOM lines and
    /// the highlight's shading begin.
    static int dataTop(const LaneLayout &layout);
};

} // namespace rs
