// The rank header: disclosure triangle, colour, name, alert badges, summary, and the amber badge
// of a rank that diverges from its peers (its reasons in the tooltip). Clicking it toggles the
// group (RankGroupWidget); it is the only lane of a collapsed group besides the summary strip.

#include "builtinlanes.h"

#include "timeline/analysisoverlay.h"
#include "timeline/gutterpainter.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>

namespace rs {

namespace {

class HeaderLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Header; }
    bool fullRow() const override { return true; }
    bool aboveData() const override { return true; }

    void addLanes(LaneBuilder &b) const override
    {
        b.add(*this, kNoTrack, LaneLayout::kHeaderHeight, tr("Rank %1").arg(b.rank.id));
    }

    void paint(const Lane &lane, LaneFrame &f) const override
    {
        const GroupHeader none;
        const GroupHeader &h = f.header ? *f.header : none;
        f.gutter->header(lane, f.rank, h.collapsed, h.selected, h.summary, h.alerts, h.disclosure);
        const int g = f.ctx->gutterWidth;
        AnalysisOverlay::paintBadge(*f.painter, QRect(g, lane.top, f.width - g, lane.height), h.divergence);
    }

    void paintGutter(const Lane &, LaneFrame &) const override {}

    QString tooltip(const Lane &, QPoint, const EventRef &, const LaneFrame &f) const override
    {
        if (!f.ctx->analysis || !f.header || f.header->divergence.isEmpty())
            return {};
        return AnalysisOverlay::divergenceDetails(*f.ctx->analysis, f.rank);
    }

    bool keepInCompact(Lane &, CompactFilter &) const override { return true; }
};

} // namespace

std::unique_ptr<LaneKind> makeHeaderLane()
{
    return std::make_unique<HeaderLane>();
}

} // namespace rs
