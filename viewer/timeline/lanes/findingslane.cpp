// A row kept free under the header of an expanded group for the numbered badges of the rank's
// findings, so they cover neither the header's text nor the data. Whoever lays the group out says
// whether it has one (LaneLayout::Options::findings); the badges are drawn on top by the finding
// layer (the timeline's AnnotationOverlay, the figure's AnnotationPainter), and the row itself by
// the frame's findingsRow (the screen and the figure draw it alike but not the same).

#include "builtinlanes.h"

#include "timeline/findingsrow.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>

namespace rs {

namespace {

class FindingsLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Findings; }
    bool fullRow() const override { return true; }
    bool aboveData() const override { return true; }

    void addLanes(LaneBuilder &b) const override
    {
        if (b.options.findings && !b.options.collapsed)
            b.add(*this, kNoTrack, LaneLayout::kFindingsHeight, tr("Findings"));
    }

    void paint(const Lane &lane, LaneFrame &f) const override
    {
        const QRect row(0, lane.top, f.width, lane.height);
        if (f.findingsRow)
            f.findingsRow(*f.painter, row, lane.title);
        else
            FindingsRow::paint(*f.painter, row, f.ctx->gutterWidth, lane.title, f.font);
    }

    void paintGutter(const Lane &, LaneFrame &) const override {}
    bool keepInCompact(Lane &, CompactFilter &) const override { return true; }
};

} // namespace

std::unique_ptr<LaneKind> makeFindingsLane()
{
    return std::make_unique<FindingsLane>();
}

} // namespace rs
