#pragma once
// A lane of the timeline: one CPU thread, one GPU stream, one counter, one marker row.

#include "span.h"

#include <cstdint>
#include <vector>

namespace rs {

enum class TrackKind : std::uint8_t {
    CpuThread,        ///< host thread: ops, annotations, runtime calls
    GpuStream,        ///< device stream: kernels, memcpy, memset, GPU annotations
    MemoryAllocated,  ///< counter: bytes allocated by the caching allocator (one per device)
    MemoryReserved,   ///< counter: bytes reserved by the caching allocator (one per device)
    GpuMemoryUsed,    ///< counter: nvidia-smi memory.used
    GpuUtilization,   ///< counter: nvidia-smi utilization.gpu (percent)
    Counter,          ///< any other counter (`ph: C` events)
    Markers,          ///< instants without a thread of their own (global instants)
    Log,              ///< log records of a rank
};

/// Human-readable name of a kind, for tooltips and JSON.
const char *trackKindName(TrackKind kind);
/// True for the kinds whose data lives in Track::counter.
bool isCounterKind(TrackKind kind);

struct Track {
    TrackKind kind = TrackKind::CpuThread; ///< what the lane shows
    RankId rank = kNoRank;                 ///< owning rank (resolved when the session is frozen)
    SourceId source = 0;                   ///< the file this track was read from
    StringId name = 0;                     ///< display name, e.g. "thread 1234 (python)" or "stream 7"
    std::int64_t pid = 0;                  ///< the source's process id (device index for GPU events)
    std::int64_t tid = 0;                  ///< the source's thread id (stream id for GPU events)
    std::int32_t device = -1;              ///< CUDA device index for GPU and memory tracks, -1 for CPU/host
    std::int32_t sortIndex = 0;            ///< the source's own ordering hint (thread_sort_index), 0 if none
    std::uint16_t maxDepth = 0;            ///< deepest Span::depth on the track, 0 when flat or empty

    /// Spans grouped by depth: level d occupies [levelBegin[d], levelBegin[d+1]) and is sorted by
    /// start without overlaps, so the visible window of a level is one binary search.
    std::vector<Span> spans;
    std::vector<std::uint32_t> levelBegin; ///< size maxDepth + 2 when spans is non-empty
    std::vector<Instant> instants;         ///< sorted by time
    CounterSeries counter;                 ///< for counter kinds

    /// [first, last) indexes into spans of level `depth` that intersect [t0, t1).
    std::pair<std::uint32_t, std::uint32_t> levelRange(std::uint16_t depth, TimeNs t0, TimeNs t1) const;
    /// Number of levels (maxDepth + 1), 0 when there are no spans.
    std::uint16_t levelCount() const { return spans.empty() ? 0 : static_cast<std::uint16_t>(maxDepth + 1); }
};

/// Sorts spans, assigns depths (greedy nesting) and fills levelBegin; sorts instants and counters.
void finalizeTrack(Track &track);

} // namespace rs
