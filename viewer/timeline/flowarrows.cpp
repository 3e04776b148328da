#include "flowarrows.h"

#include "groupstack.h"
#include "lanekind.h"
#include "lanelayout.h"
#include "timelinecontext.h"
#include "timelineview.h"

#include <QPainter>

#include <cmath>
#include <optional>

namespace rs {

namespace {

constexpr double kHeadLength = 8.0;
constexpr double kHeadHalfWidth = 4.0;

} // namespace

std::vector<FlowArrows::Arrow> FlowArrows::of(const TimelineView &view, const EventRef &selection)
{
    std::vector<Arrow> out;
    const SessionPtr &session = view.context().session;
    if (!session || selection.kind != EventRef::Kind::Span || selection.track >= session->tracks().size()
        || selection.index >= session->tracks()[selection.track].spans.size())
        return out;
    const Session &s = *session;
    const TimeScale scale = view.viewScale();
    const ViewState &state = *view.viewState();
    // A span's row in the viewport: its start, halfway down its depth level.
    const auto point = [&](const FlowEnd &e) -> std::optional<QPointF> {
        const Track &t = s.tracks()[e.track];
        const GroupEntry *group = view.groupStack().find(t.rank);
        if (!group || group->hidden)
            return std::nullopt;
        const Lane *lane = group->layout.laneForTrack(e.track);
        if (!lane || !lane->is(LaneId::Spans))
            return std::nullopt;
        const Span &span = t.spans[e.span];
        const int row = LaneLayout::kLanePadding + span.depth * LaneLayout::kRowHeight + LaneLayout::kRowHeight / 2;
        if (row >= lane->height)
            return std::nullopt; // the lane is folded to fewer levels than the span's depth
        return QPointF(scale.toX(span.start + state.clockOffset(t.rank)), view.viewportY(*group) + lane->top + row);
    };
    for (const std::uint32_t i : s.flowsAt(selection.track, selection.index)) {
        const Flow &f = s.flows()[i];
        const auto tail = point(f.from);
        const auto head = point(f.to);
        if (tail && head)
            out.push_back({*tail, *head, f.kind});
    }
    return out;
}

QPainterPath FlowArrows::path(const Arrow &a)
{
    QPainterPath path(a.tail);
    const double dy = a.head.y() - a.tail.y();
    if (std::abs(dy) < 2 * LaneLayout::kRowHeight) {
        // On one lane (or nearly): an arc above the row, so it does not run along the spans.
        const double lift = std::clamp(std::abs(a.head.x() - a.tail.x()) / 4, 12.0, 40.0);
        path.cubicTo(a.tail + QPointF(0, -lift), a.head + QPointF(0, -lift), a.head);
    } else {
        // Down (or up) to another lane: leave and arrive vertically, the way the eye follows a launch.
        const double mid = dy / 2;
        path.cubicTo(a.tail + QPointF(0, mid), a.head - QPointF(0, mid), a.head);
    }
    return path;
}

void FlowArrows::paint(QPainter &p, const std::vector<Arrow> &arrows, const QColor &color)
{
    if (arrows.empty())
        return;
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    for (const Arrow &a : arrows) {
        const QPainterPath curve = path(a);
        // The last stretch of the curve gives the head its direction.
        const QPointF before = curve.pointAtPercent(0.97);
        QLineF dir(a.head, before);
        if (dir.length() < 0.5)
            dir = QLineF(a.head, a.head + QPointF(0, -1));
        dir.setLength(kHeadLength);
        const QPointF base = dir.p2();
        const QLineF normal = dir.normalVector();
        const QPointF side(normal.dx() / normal.length() * kHeadHalfWidth, normal.dy() / normal.length() * kHeadHalfWidth);
        QColor halo = Qt::white;
        halo.setAlphaF(0.7f);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(halo, 4.0, Qt::SolidLine, Qt::RoundCap));
        p.drawPath(curve);
        p.setPen(QPen(color, 1.6, a.kind == FlowKind::ForwardBackward ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap));
        p.drawPath(curve);
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawPolygon(QPolygonF({a.head, base + side, base - side}));
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(color, 1.2));
        p.drawEllipse(a.tail, 2.5, 2.5);
    }
    p.restore();
}

} // namespace rs
