#include "lanekind.h"

#include "gutterpainter.h"
#include "timelinecontext.h"

namespace rs {

void LaneKind::paintGutter(const Lane &lane, LaneFrame &frame) const
{
    frame.gutter->lane(lane);
}

} // namespace rs
