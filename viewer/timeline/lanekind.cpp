#include "lanekind.h"

#include "gutterpainter.h"
#include "timelinecontext.h"
#include "viewstate.h"

#include <algorithm>

namespace rs {

LaneFrame LaneFrame::onScreen(TimelineContext &ctx, const LaneLayout &layout, RankId rank, int width)
{
    const ViewState &state = *ctx.state;
    LaneFrame f;
    f.ctx = &ctx;
    f.layout = &layout;
    f.rank = rank;
    f.view = {state.visibleRange(), static_cast<double>(ctx.gutterWidth), static_cast<double>(std::max(1, width - ctx.gutterWidth))};
    f.offset = state.clockOffset(rank);
    f.width = width;
    f.exposed = QRect(0, 0, width, layout.height());
    f.hovered = state.hovered();
    f.selected = state.selection();
    f.highlight = state.highlight();
    return f;
}

void LaneKind::paintGutter(const Lane &lane, LaneFrame &frame) const
{
    frame.gutter->lane(lane);
}

} // namespace rs
