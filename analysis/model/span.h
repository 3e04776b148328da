#pragma once
// The hot structs of the model. They are stored by the million, so each is kept small and its
// size is checked at compile time.

#include "types.h"

#include <cstdint>
#include <vector>

namespace rs {

/// Bits in Span::flags / Instant::flags that mark what the event is, independent of its category text.
enum SpanFlag : std::uint16_t {
    SpanFlagNone = 0,
    SpanFlagGpu = 1 << 0,        ///< ran on a device stream (kernel, memcpy, memset, GPU annotation)
    SpanFlagKernel = 1 << 1,     ///< a compute kernel
    SpanFlagMemcpy = 1 << 2,     ///< a memory copy
    SpanFlagMemset = 1 << 3,     ///< a memory set
    SpanFlagCollective = 1 << 4, ///< an NCCL/RCCL collective kernel or the c10d record_param_comms op
    SpanFlagStep = 1 << 5,       ///< a ProfilerStep#N annotation
    SpanFlagAnnotation = 1 << 6, ///< a user annotation (record_function), CPU or GPU side
    SpanFlagRuntime = 1 << 7,    ///< a CUDA/HIP runtime or driver call
    SpanFlagUnmatched = 1 << 8,  ///< a B without its E (closed at the end of the trace)
    SpanFlagOutOfMemory = 1 << 9, ///< an allocator out-of-memory record (the profiler's [OutOfMemory] instant)
};

/// One complete event on a track: an op, a kernel, an annotation.
struct Span {
    TimeNs start = 0;         ///< wall-clock ns (see Source::hasClock)
    TimeNs duration = 0;      ///< ns, >= 0
    StringId name = 0;        ///< event name, interned in the session's pool
    StringId category = 0;    ///< the source's category text (`cpu_op`, `kernel`, ...)
    ArgsId args = kNoArgs;    ///< raw args of the event, in its source's args arena
    std::uint16_t depth = 0;  ///< nesting level on its track, 0 = outermost
    std::uint16_t flags = 0;  ///< SpanFlag bits

    constexpr TimeNs end() const { return start + duration; }
};
static_assert(sizeof(Span) == 32, "Span must stay 32 bytes");

/// A point event (thread or global instant) that is not a memory sample.
struct Instant {
    TimeNs time = 0;          ///< wall-clock ns
    StringId name = 0;        ///< event name
    StringId category = 0;    ///< category text
    ArgsId args = kNoArgs;    ///< raw args in the source's arena
    std::uint16_t flags = 0;  ///< SpanFlag bits
};
static_assert(sizeof(Instant) <= 24, "Instant must stay 24 bytes");

/// A sampled counter: memory allocated/reserved, nvidia-smi memory.used, utilisation...
/// Stored as two parallel arrays so a min/max scan over values touches only values.
struct CounterSeries {
    std::vector<TimeNs> times;   ///< sample times, ascending
    std::vector<double> values;  ///< sample values (bytes for memory, percent, watts)

    std::size_t size() const { return times.size(); }
    bool empty() const { return times.empty(); }
};

} // namespace rs
