#pragma once
// What the simulation observed, per rank, once the job has run: the facts a scenario promises
// (peaks, late arrivals) and the raw material for evidence that is written after the run
// (memory_summary tables, nvidia-smi samples, NCCL logs).

#include "allocatorstats.h"
#include "jobconfig.h"
#include "pythonframe.h"

#include <optional>
#include <string>
#include <vector>

namespace rs::tracegen {

/// Identity and layout of one rank's process, fixed before the run starts.
struct RankSetup {
    RankId rank = 0;
    int worldSize = 0;
    std::int64_t pid = 0;
    std::int64_t mainTid = 0;          ///< the Python thread
    std::int64_t autogradTid = 0;      ///< the autograd engine's device thread (runs backward)
    int device = 0;
    std::int64_t pciBus = 0;
    std::int64_t computeStream = 7;
    std::int64_t commStream = 20;      ///< ProcessGroupNCCL's stream
    TimeNs clockSkewNs = 0;
    double clockDriftPpm = 0.0;
    double computeSpeed = 1.0;         ///< multiplies GPU kernel durations
    TimeNs profilerStartNs = 0;        ///< true time the profiler starts
    TimeNs baseTimeNs = 0;
    const JobConfig *job = nullptr;    ///< the whole configuration; valid while its TrainingJob lives
    std::string traceName;             ///< what Kineto records as "traceName"

    /// The rank's host clock reading at true time `t`.
    TimeNs hostClock(TimeNs t) const
    {
        const double drift = static_cast<double>(t - profilerStartNs) * clockDriftPpm * 1e-6;
        return t + clockSkewNs + static_cast<TimeNs>(drift);
    }
    /// The true time at which this rank's clock read `hostTs` (hostClock's inverse, to the ns
    /// for any drift a real clock has).
    TimeNs trueTime(TimeNs hostTs) const
    {
        const TimeNs guess = hostTs - clockSkewNs;
        return guess - (hostClock(guess) - hostTs);
    }
};

/// One collective as this rank saw it (true times).
struct CollectiveTiming {
    std::int64_t seq = 0;
    std::int64_t nelems = 0;
    TimeNs launch = 0;                 ///< CPU time of the launch
    TimeNs start = 0;                  ///< kernel start on the comm stream
    TimeNs end = 0;                    ///< kernel end (all ranks arrived + transfer)
    bool aborted = false;              ///< ended by the watchdog aborting the communicator
};

/// A collective that never completed because a peer never arrived: what ProcessGroupNCCL's
/// watchdog saw on this rank (true times).
struct CollectiveTimeout {
    std::int64_t seq = 0;              ///< the timed-out work's SeqNum
    std::int64_t nelems = 0;
    TimeNs workStart = 0;              ///< when the work was enqueued (the watchdog measures from here)
    TimeNs detected = 0;               ///< the watchdog tick that found it past the timeout
    TimeNs aborted = 0;                ///< ncclCommAbort returned; the NCCL kernels have exited
    std::int64_t lastEnqueuedSeq = 0;
    std::int64_t lastCompletedSeq = 0;
};

/// A CUDA out-of-memory error as the caching allocator raised it (true time; sizes in bytes).
struct OomRecord {
    TimeNs time = 0;
    std::int64_t requested = 0;        ///< what the op asked for
    std::int64_t rounded = 0;          ///< the block size (the [OutOfMemory] event's Bytes)
    std::int64_t segment = 0;          ///< the cudaMalloc that failed (the message's "Tried to allocate")
    std::int64_t allocated = 0;        ///< allocated and reserved after the cache flush that preceded the error
    std::int64_t reserved = 0;
    std::int64_t step = 0;             ///< ProfilerStep number
    int microBatch = 0;                ///< 1-based, of `microBatches`
    int microBatches = 0;
    MicroBatchShape shape;
    std::vector<std::string> ops;      ///< the open profiler ops, outermost first (the failing op last)
    std::vector<PythonFrame> python;   ///< the Python stack, outermost first
    AllocatorStats stats;              ///< the allocator's counters right after the error
};

struct RankRecord {
    RankSetup setup;
    std::vector<TimeNs> stepStarts;    ///< true time each ProfilerStep begins
    std::vector<TimeNs> stepEnds;
    std::vector<int> microBatches;     ///< per step
    std::vector<CollectiveTiming> collectives;
    std::vector<std::int64_t> stepPeakAllocated; ///< per step, like max_memory_allocated() after reset_peak_memory_stats()
    std::int64_t initialAllocated = 0; ///< before the profiler started (weights, optimizer state)
    std::int64_t initialReserved = 0;
    std::int64_t peakAllocated = 0;
    std::int64_t peakReserved = 0;
    TimeNs peakAllocatedAt = 0;        ///< true time of the allocation that set the peak
    std::int64_t finalAllocated = 0;
    std::int64_t finalReserved = 0;
    std::int64_t allocRetries = 0;     ///< times the allocator freed its cache to satisfy a request
    std::int64_t memoryEvents = 0;
    std::int64_t events = 0;           ///< every event emitted for this rank
    TimeNs windowEnd = 0;              ///< true time of Record Window End
    std::optional<OomRecord> oom;      ///< set when this rank ran out of memory (its run ended there)
    std::optional<CollectiveTimeout> timeout; ///< set when a collective of this rank timed out
    AllocatorStats allocatorStats;     ///< at the end of the run
};

struct JobRecord {
    std::vector<RankRecord> ranks;
};

} // namespace rs::tracegen
