// The one strip of a collapsed group: level 0 of the rank's GPU streams (else its CPU threads),
// folded, in the rank's colour, so a collapsed rank still shows when it was busy.

#include "builtinlanes.h"

#include "rankcolors.h"
#include "timeline/gutterpainter.h"
#include "timeline/lanepainter.h"

#include <QCoreApplication>

namespace rs {

namespace {

class SummaryLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Summary; }

    void addLanes(LaneBuilder &b) const override
    {
        if (b.options.collapsed)
            b.add(*this, kNoTrack, LaneLayout::kSummaryHeight,
                  b.layout.summaryTracks().empty() ? tr("no activity") : tr("activity"));
    }

    void paint(const Lane &lane, LaneFrame &f) const override
    {
        f.lanes->summary(lane, f.layout->summaryTracks(), RankColors::color(f.rank));
    }

    void paintGutter(const Lane &lane, LaneFrame &f) const override { f.gutter->lane(lane, false, /*muted=*/true); }
    bool keepInCompact(Lane &, CompactFilter &) const override { return true; }
};

} // namespace

std::unique_ptr<LaneKind> makeSummaryLane()
{
    return std::make_unique<SummaryLane>();
}

} // namespace rs
