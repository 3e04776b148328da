#pragma once
// `rankscope-bench --frames`: how long the timeline takes to draw a frame, offscreen at 1920×1080,
// next to a floor measured in the same process: plain QPainter::fillRect of as many rectangles as
// the frame drew (counted by a paint engine that only counts). Scenarios, each in its own child
// process so its open time and peak memory are its own:
//   a  8 ranks × the bench's trace (1 GB of JSON, ~1.76 M spans, per rank): the full range, then
//      20 zoom and pan steps;
//   b  1,024 ranks of a small trace each, scrolled from the top to the bottom;
//   c  the Ranks Overview of b (one row per rank), over 20 zoom and pan steps.
// A frame is what a user waits for: the view change applied, pending events processed, the whole
// view rendered into an image.

#include "childprocess.h"

#include <string>
#include <string_view>

namespace rs::bench {

class FrameProbes
{
public:
    static constexpr std::string_view kZoomPan = "frames-zoom-pan";
    static constexpr std::string_view kScroll = "frames-scroll";
    static constexpr std::string_view kOverview = "frames-overview";

    /// `dir` holds the trace files, one per rank (rank-N.pt.trace.json). values (µs unless said):
    /// {frames, p50, p95, max, floor_p50, open, ranks, shapes per frame (median), resident bytes
    /// once the session is loaded (before any view)}
    static ProbeOutcome zoomPan(const std::string &dir);
    static ProbeOutcome scroll(const std::string &dir);
    /// The Ranks Overview of the same ranks, 1920×1080, over 20 zoom and pan steps.
    static ProbeOutcome overview(const std::string &dir);
};

} // namespace rs::bench
