#pragma once
// Places records that carry no clock by anchors they share with timed sources, never at a made-up
// time: an OOM message without a time stamp is the same event as the profiler's [OutOfMemory]
// instant (or a timed OOM message) of the same rank when that rank has exactly one timed OOM; a
// memory_summary printed after an OOM sits at that OOM. Anything without such an anchor stays
// untimed (the viewer shows it in an untimed strip).

#include "analysisresult.h"
#include "session.h"

namespace rs {

class AnchorPlacement
{
public:
    static std::vector<Placement> place(const Session &session, const std::vector<RankAlignment> &alignment);
};

} // namespace rs
