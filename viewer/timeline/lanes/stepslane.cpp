// ProfilerStep#N bands of the rank: where each training step begins and ends, the grid the eye
// compares ranks by. Hovering a band shows its ProfilerStep span.

#include "builtinlanes.h"

#include "lanetooltips.h"
#include "timeline/lanepainter.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>

#include <algorithm>

namespace rs {

namespace {

class StepsLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Steps; }

    void addLanes(LaneBuilder &b) const override
    {
        if (!b.options.collapsed && !b.rank.steps.empty())
            b.add(*this, kNoTrack, LaneLayout::kStepsHeight, tr("Steps"));
    }

    void paint(const Lane &lane, LaneFrame &f) const override { f.lanes->steps(lane, *f.ctx->session->rank(f.rank)); }

    EventRef hitTest(const Lane &, QPoint pos, const LaneFrame &f) const override
    {
        const TimeNs t = f.dataScale().toTime(pos.x() + 0.5);
        const Rank &r = *f.ctx->session->rank(f.rank);
        auto it = std::partition_point(r.steps.begin(), r.steps.end(), [t](const Step &s) { return s.range.end <= t; });
        if (it == r.steps.end() || !it->range.contains(t) || it->track == kNoTrack)
            return {};
        const Track &track = f.ctx->session->tracks()[it->track];
        for (std::uint16_t d = 0; d < track.levelCount(); ++d) {
            const auto [lo, hi] = track.levelRange(d, it->range.begin, it->range.begin + 1);
            for (std::uint32_t i = lo; i < hi; ++i)
                if ((track.spans[i].flags & SpanFlagStep) && track.spans[i].start == it->range.begin)
                    return EventRef::span(it->track, i);
        }
        return {};
    }

    QString tooltip(const Lane &, QPoint, const EventRef &hit, const LaneFrame &f) const override
    {
        return hit.kind == EventRef::Kind::Span ? LaneTooltips::span(f, hit) : QString();
    }

    QString finderWords(const Lane &, const Session &) const override { return QStringLiteral("steps profilerstep"); }
    bool keepInCompact(Lane &, CompactFilter &) const override { return true; }
};

} // namespace

std::unique_ptr<LaneKind> makeStepsLane()
{
    return std::make_unique<StepsLane>();
}

} // namespace rs
