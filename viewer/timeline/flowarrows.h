#pragma once
// The arrows of the selected span's flows (a CPU launch → the kernel it queued, a forward op → its
// backward op), as Perfetto draws them: from where the first span starts to where the second
// starts, bent so a launch on a CPU lane reaches down to its stream. Placed from the view's stack of
// groups, so an end whose rank is scrolled out of sight still points the right way; an end whose
// lane is not laid out (a hidden or collapsed rank, a hidden lane) draws no arrow.

#include "session.h"
#include "viewstate.h"

#include <QLineF>
#include <QPainterPath>

#include <vector>

class QPainter;

namespace rs {

class TimelineView;

class FlowArrows
{
public:
    /// One arrow, in viewport coordinates: tail at the first span's start, head at the second's.
    struct Arrow {
        QPointF tail;
        QPointF head;
        FlowKind kind = FlowKind::Other;
    };

    /// The arrows of the flows that start or end at `selection` (none unless it is a span).
    static std::vector<Arrow> of(const TimelineView &view, const EventRef &selection);
    /// The curve of `a` (without its head).
    static QPainterPath path(const Arrow &a);
    /// Draws `arrows` in `color`.
    static void paint(QPainter &p, const std::vector<Arrow> &arrows, const QColor &color);
};

} // namespace rs
