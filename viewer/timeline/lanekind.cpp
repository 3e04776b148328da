#include "lanekind.h"

#include "gutterpainter.h"
#include "timelinecontext.h"

namespace rs {

QRect LaneFrame::dataRect(const Lane &lane) const
{
    return {ctx->gutterWidth, lane.top, width - ctx->gutterWidth, lane.height};
}

void LaneKind::paintGutter(const Lane &lane, LaneFrame &frame) const
{
    frame.gutter->lane(lane);
}

} // namespace rs
