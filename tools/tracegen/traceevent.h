#pragma once
// One profiler event as the simulation produces it, before any file format decides how it looks.
// Times are already on the rank's own (skewed) host clock, as a real profiler would record them.

#include "jobconfig.h"

#include <string>
#include <string_view>

namespace rs::tracegen {

enum class Phase : char { Complete = 'X', Instant = 'i', FlowStart = 's', FlowEnd = 'f' };

/// Kineto ActivityType names plus the flow categories.
enum class Category : std::uint8_t {
    CpuOp,
    UserAnnotation,
    GpuUserAnnotation,
    CudaRuntime,
    Kernel,
    GpuMemcpy,
    GpuMemset,
    CpuInstantEvent,
    FlowAc2g,
    FlowFwdBwd,
};

/// The `cat` text Kineto writes for `c`.
constexpr std::string_view categoryName(Category c)
{
    switch (c) {
    case Category::CpuOp: return "cpu_op";
    case Category::UserAnnotation: return "user_annotation";
    case Category::GpuUserAnnotation: return "gpu_user_annotation";
    case Category::CudaRuntime: return "cuda_runtime";
    case Category::Kernel: return "kernel";
    case Category::GpuMemcpy: return "gpu_memcpy";
    case Category::GpuMemset: return "gpu_memset";
    case Category::CpuInstantEvent: return "cpu_instant_event";
    case Category::FlowAc2g: return "ac2g";
    case Category::FlowFwdBwd: return "fwdbwd";
    }
    return "cpu_op";
}

/// A `[memory]` sample in structured form, for evidence writers that summarise memory.
struct MemoryRecord {
    std::int64_t addr = 0;
    std::int64_t bytes = 0;            ///< signed: negative frees
    std::int64_t totalAllocated = 0;   ///< after the event
    std::int64_t totalReserved = 0;    ///< after the event
    int deviceId = 0;
};

/// A collective kernel in structured form, for evidence writers that talk about NCCL.
struct CollectiveRecord {
    std::string_view op;               ///< "allreduce"
    std::int64_t nelems = 0;
    std::int64_t seq = 0;
    int groupSize = 0;
};

struct TraceEvent {
    Phase phase = Phase::Complete;
    Category category = Category::CpuOp;
    std::string_view name;
    std::int64_t pid = 0;              ///< OS pid for host events, device index for GPU events
    std::int64_t tid = 0;              ///< OS tid for host events, stream id for GPU events
    TimeNs ts = 0;                     ///< ns since the epoch on this rank's clock
    TimeNs dur = 0;                    ///< Complete events only
    std::int64_t flowId = 0;           ///< flow events only
    bool threadScope = true;           ///< instants: "s": "t" (true) or "g"
    /// The inside of the event's args object in Kineto's spelling (`"External id": 7, ...`);
    /// empty when the event has none.
    std::string_view args;
    const MemoryRecord *memory = nullptr;         ///< set on `[memory]` instants
    const CollectiveRecord *collective = nullptr; ///< set on NCCL kernels
};

} // namespace rs::tracegen
