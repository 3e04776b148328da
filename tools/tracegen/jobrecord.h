#pragma once
// What the simulation observed, per rank, once the job has run: the facts a scenario promises
// (peaks, late arrivals) and the raw material for evidence that is written after the run
// (memory_summary tables, nvidia-smi samples, NCCL logs).

#include "jobconfig.h"

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
    std::int64_t computeStream = 7;
    std::int64_t commStream = 20;      ///< ProcessGroupNCCL's stream
    TimeNs clockSkewNs = 0;
    double clockDriftPpm = 0.0;
    double computeSpeed = 1.0;         ///< multiplies GPU kernel durations
    TimeNs profilerStartNs = 0;        ///< true time the profiler starts
    TimeNs baseTimeNs = 0;
    const JobConfig *job = nullptr;    ///< the whole configuration (GPU, devices, versions)
    std::string traceName;             ///< what Kineto records as "traceName"

    /// The rank's host clock reading at true time `t`.
    TimeNs hostClock(TimeNs t) const
    {
        const double drift = static_cast<double>(t - profilerStartNs) * clockDriftPpm * 1e-6;
        return t + clockSkewNs + static_cast<TimeNs>(drift);
    }
};

/// One collective as this rank saw it (true times).
struct CollectiveTiming {
    std::int64_t seq = 0;
    std::int64_t nelems = 0;
    TimeNs launch = 0;                 ///< CPU time of the launch
    TimeNs start = 0;                  ///< kernel start on the comm stream
    TimeNs end = 0;                    ///< kernel end (all ranks arrived + transfer)
};

struct RankRecord {
    RankSetup setup;
    std::vector<TimeNs> stepStarts;    ///< true time each ProfilerStep begins
    std::vector<TimeNs> stepEnds;
    std::vector<int> microBatches;     ///< per step
    std::vector<CollectiveTiming> collectives;
    std::int64_t peakAllocated = 0;
    std::int64_t peakReserved = 0;
    TimeNs peakAllocatedAt = 0;        ///< true time of the allocation that set the peak
    std::int64_t finalAllocated = 0;
    std::int64_t finalReserved = 0;
    std::int64_t allocRetries = 0;     ///< times the allocator freed its cache to satisfy a request
    std::int64_t memoryEvents = 0;
    std::int64_t events = 0;           ///< every event emitted for this rank
    TimeNs windowEnd = 0;              ///< true time of Record Window End
};

struct JobRecord {
    std::vector<RankRecord> ranks;
};

} // namespace rs::tracegen
