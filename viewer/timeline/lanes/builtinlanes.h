#pragma once
// The built-in lane kinds, one file each under lanes/; LaneRegistry registers them in order.

#include "timeline/lanekind.h"

#include <memory>

namespace rs {

std::unique_ptr<LaneKind> makeHeaderLane();
std::unique_ptr<LaneKind> makeFindingsLane();
std::unique_ptr<LaneKind> makeSummaryLane();
std::unique_ptr<LaneKind> makeMemoryLane();
std::unique_ptr<LaneKind> makeStepsLane();
std::unique_ptr<LaneKind> makeLogLane();
std::unique_ptr<LaneKind> makeLauncherLane();
std::unique_ptr<LaneKind> makeSpansLane();
std::unique_ptr<LaneKind> makeInstantsLane();
std::unique_ptr<LaneKind> makeCounterLane();

} // namespace rs
