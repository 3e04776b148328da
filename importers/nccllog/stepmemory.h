#pragma once
// Memory a training loop prints per step, in its own words, turned into the allocated/reserved
// counter tracks a Kineto trace would give (TrackKind::MemoryAllocated / MemoryReserved, named
// "GPU n memory allocated|reserved") plus one Step per printed step, so the memory rules read a
// log the way they read a trace.
//
// A line qualifies when it has a step number (`step 120`, `Step 10/1000`, `iter 5`, `iteration:
// 7`, `(after 10 iterations)`) and at least one memory value: a label word (alloc, allocated, mem,
// memory, memory_allocated, max_memory_allocated, peak, reserved, memory_reserved, cached) right
// before a number with a unit (B, KB, KiB, MB, MiB, GB, GiB, TB, TiB; `12.5GB` or `12.5 GB`), or
// before a bare number when the line states the unit once (`memory (MB) | allocated: 1234.5`).
// Current values win over peaks ("max"/"peak" labels) for the counter; a peak stands in when it is
// the only value. Rates (`GB/s`) and labels about free/total/capacity are not memory in use.
//
// Caveats: KB/MB/GB are read as 1024-based (what torch.cuda.memory_* divided by 1024**n gives; a
// script dividing by 1e9 reads 7 % high). Lines without a time stamp are ordered by their step
// number (1 ns per step) when the log has no clock at all, and dropped (warned) in a log whose
// other lines are timed, since a step number cannot be placed on a wall clock.

#include "sourcebuilder.h"

#include <functional>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace rs {

class StepMemory
{
public:
    /// What one line says; -1 for a value it does not state.
    struct Reading {
        std::int64_t step = -1;
        std::int64_t allocated = -1;
        std::int64_t peakAllocated = -1;
        std::int64_t reserved = -1;
        std::int64_t peakReserved = -1;
        int implausible = 0; ///< memory numbers of 2^50 bytes or more on the line, not used
    };
    static std::optional<Reading> parse(std::string_view line);

    /// Remembers a reading of the record `recordIndex` printed by `rank` (kNoRank without a
    /// prefix); the record's final rank and time are read in finish().
    void add(std::size_t recordIndex, RankId rank, const Reading &reading);
    /// Emits the counters and steps. `device` gives a rank's CUDA device (-1 when unknown: 0 is used).
    /// Ranks in `stepsTaken` already have steps timed by progress lines: they get counters only.
    void finish(SourceBuilder &out, const std::function<std::int32_t(RankId)> &device, const std::set<RankId> &stepsTaken = {});
    bool empty() const { return m_samples.empty(); }

private:
    struct Sample {
        std::size_t record;
        RankId rank;
        Reading reading;
    };
    std::vector<Sample> m_samples;
};

} // namespace rs
