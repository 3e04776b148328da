#pragma once
// Flows: the arrows a profiler draws between two events of one trace. Kineto writes one for each
// CUDA launch (`ac2g`: the runtime call on a CPU thread → the kernel, memcpy or memset it queued on
// a GPU stream) and one from a forward op to its backward op (`fwdbwd`). The trace stores them as
// a pair of `s` / `f` events sharing an id; the importer collects those ends (FlowPoint) while it
// reads, and SourceBuilder::finish binds each end to the span it belongs to once the tracks are
// sorted, so a frozen Flow names two spans by (track, index) and never a time.

#include "types.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace rs {

enum class FlowKind : std::uint8_t {
    Launch,          ///< `ac2g`: a CPU launch → the GPU op it queued
    ForwardBackward, ///< `fwdbwd`: a forward op → its backward op
    Other,           ///< any other flow category a trace names
};

/// "ac2g", "fwdbwd" or "flow": the category a Chrome trace writes back.
const char *flowKindCategory(FlowKind kind);
/// The kind a flow event's `cat` (or `name`) names.
FlowKind flowKindOf(std::string_view category);

/// One end of a flow: Track::spans[span] of `track`.
struct FlowEnd {
    TrackId track = kNoTrack;
    std::uint32_t span = 0;
    friend bool operator==(const FlowEnd &, const FlowEnd &) = default;
};

/// A bound flow: from the span that started it to the span it ends at.
struct Flow {
    FlowEnd from;                    ///< the `s` end (the launch, the forward op)
    FlowEnd to;                      ///< the `f` end (the kernel, the backward op)
    FlowKind kind = FlowKind::Other; ///< what the arrow means
};
static_assert(sizeof(Flow) == 20, "Flow must stay 20 bytes");

/// One flow event as read, before it is bound to a span. `track` is where the event's pid/tid
/// point; `altTrack` a second candidate when the same pid/tid has both a CPU and a GPU lane.
struct FlowPoint {
    std::int64_t id = 0;           ///< the flow id the `s` and `f` share
    TimeNs time = 0;               ///< the event's time (shifted with the source's other times)
    TrackId track = kNoTrack;      ///< the lane its pid/tid names
    TrackId altTrack = kNoTrack;   ///< a second lane of that pid/tid, or kNoTrack
    FlowKind kind = FlowKind::Other;
    bool start = false;            ///< `s` (true) or `f` (false)
    bool enclosing = true;         ///< binds to the span around `time` (`s`, and `f` with "bp": "e"),
                                   ///< else to the next span that starts at or after it
};

struct Track;

/// What bindFlows made of a source's flow events.
struct FlowBinding {
    std::vector<Flow> flows;    ///< bound flows, sorted by (from, to)
    std::int64_t unpaired = 0;  ///< `s` or `f` events whose partner the trace does not have
    std::int64_t unbound = 0;   ///< pairs with an end that falls on no span (or both on one)
};

/// Pairs `points` by (kind, id) and binds each end to its span. `tracks` must be finalized
/// (finalizeTrack): the flows name spans by their index after sorting.
FlowBinding bindFlows(std::vector<FlowPoint> points, const std::vector<Track> &tracks);

} // namespace rs
