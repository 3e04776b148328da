#pragma once
// Per-rank totals by event name, the raw material of the two-rank diff: for every CPU op and every
// GPU kernel (and memory copy/set) of a rank, how often it ran, how long it ran in total and how
// many bytes of device memory were allocated while it was the innermost op.
//
// What counts:
// - CPU ops are the spans on the rank's CpuThread tracks, except ProfilerStep#N (the step table
//   compares those) and the profiler's own "Trace" span. Time is inclusive (a span's duration);
//   an op nested in an op of the same name is counted twice, as the profiler's own tables do.
// - GPU kernels are spans with SpanFlagKernel on GpuStream tracks (collective kernels included);
//   memcpy/memset spans form their own kind; GPU-side annotations mirror CPU ones and are skipped.
// - Bytes: the importer turns every Kineto `[memory]` instant of a CUDA device into one sample of
//   the rank's MemoryAllocated counter ("Total Allocated"), so each positive step of that counter
//   is one allocation's size. It is charged to the innermost CPU op running at that instant. The
//   model does not keep the instant's thread, so among the rank's host threads the one whose
//   innermost op started last is taken (the other threads are blocked in a call that began
//   earlier; the same rule as MemorySpikes). Rises with no op around them stay unattributed.
// No clock offsets are applied: totals do not depend on where the rank sits on the aligned axis.
// One pass over the rank's spans plus one over its memory samples, keyed by interned StringId.
//
// Scoped to steps (the two-rank diff of the steps both ranks completed): a host span or memory
// rise counts when it starts inside one of the rank's ProfilerStep#N of those numbers; a GPU span
// when it starts inside the GPU-side copy of such a step (gpu_user_annotation) where the trace has
// one, else inside the host step (GPU work lags the host, so the copy is the better window).

#include "session.h"

#include <cstdint>
#include <vector>

namespace rs {

/// What kind of event a total is about.
enum class OpKind : std::uint8_t {
    CpuOp,     ///< a span on a host thread (aten op, annotation, runtime call)
    Kernel,    ///< a GPU compute kernel
    GpuMemory, ///< a GPU memcpy or memset
};
/// "op", "kernel" or "memcpy/memset".
const char *opKindName(OpKind kind);

/// Count, time and bytes of one name on one rank.
struct OpStats {
    std::int64_t count = 0; ///< spans with the name
    TimeNs time = 0;        ///< sum of their durations (ns)
    std::int64_t bytes = 0; ///< device bytes allocated while it was the innermost op (CPU ops only)
    friend bool operator==(const OpStats &, const OpStats &) = default;
};

/// The totals of one name.
struct OpTotal {
    StringId name = kEmptyString; ///< interned event name (the session's pool)
    OpKind kind = OpKind::CpuOp;  ///< what kind of event it is
    OpStats stats;                ///< its totals
};

/// Every name's totals on one rank.
struct RankOpTotals {
    RankId rank = kNoRank;                 ///< the rank
    std::vector<OpTotal> totals;           ///< one per (kind, name), sorted by kind then name id
    std::int64_t attributedBytes = 0;      ///< allocated bytes charged to an op
    std::int64_t unattributedBytes = 0;    ///< allocated bytes with no op running on any host thread
    std::size_t spansVisited = 0;          ///< spans looked at (for measurements)

    /// The totals of (kind, name), or nullptr.
    const OpTotal *find(OpKind kind, StringId name) const;
};

class OpTotals
{
public:
    /// Totals of `rank` in `session`; empty totals when the rank does not exist.
    static RankOpTotals compute(const Session &session, RankId rank);
    /// Totals of `rank` inside its steps numbered `steps` only (see above).
    static RankOpTotals compute(const Session &session, RankId rank, const std::vector<std::int64_t> &steps);

private:
    static RankOpTotals compute(const Session &session, RankId rank, const std::vector<std::int64_t> *steps);
};

} // namespace rs
