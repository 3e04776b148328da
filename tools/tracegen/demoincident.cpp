#include "demoincident.h"

#include "joblogevidence.h"
#include "kinetotraceevidence.h"
#include "nvidiasmievidence.h"
#include "trainingjob.h"

#include <algorithm>

namespace rs::tracegen {

namespace {
constexpr int kRanks = 4;
constexpr int kSteps = 3;
constexpr int kMicroBatches = 3;
constexpr int kStragglerRank = 2;
// 2024-08-14 03:12:45.250 UTC, and the quarter start Kineto floors it to.
constexpr TimeNs kStart = 1723605165250000000;
constexpr TimeNs kQuarterBase = 1719792000000000000;
} // namespace

JobConfig DemoIncident::config(int ranks)
{
    ranks = std::max(ranks, kStragglerRank + 1);
    JobConfig job;
    job.worldSize = ranks;
    job.visibleDevices = ranks;
    job.firstStep = 412;
    job.seed = 20240814;
    job.startNs = kStart;
    job.baseTimeNs = kQuarterBase;
    // Host clocks as NTP leaves them: a few hundred µs apart, drifting by a few ppm.
    const TimeNs skews[kRanks] = {0, 312400, -187900, 455100};
    const double drifts[kRanks] = {0.0, 3.1, -2.4, 1.7};
    const double speeds[kRanks] = {1.0, 1.006, 0.997, 1.004};
    job.collectiveTimeoutNs = 20LL * 1000000000;
    job.ncclBuffSize = 8388608;
    // DDP's start-up before the first profiled step: the parameter-shape check, 23 broadcasts of
    // the 5.8 GB of weights in 250 MiB buckets, and the barrier after loading the checkpoint.
    job.priorCollectives = 25;
    const MicroBatchShape normal{6, 1024};
    const MicroBatchShape leftover{6, 2048};
    const std::int64_t buses[kRanks] = {0x07, 0x0f, 0x47, 0x4e};
    for (int r = 0; r < ranks; ++r) {
        RankPlan plan;
        plan.rank = r;
        plan.pid = 48211 + r;
        plan.device = r;
        // Beyond the demo's four, ranks get clocks, speeds and buses of the same spread, drawn
        // from the rank number so the job stays deterministic.
        const bool demo = r < kRanks;
        const auto k = static_cast<std::uint64_t>(r) * 0x9e3779b97f4a7c15ull;
        plan.clockSkewNs = demo ? skews[r] : static_cast<TimeNs>(k % 900001) - 450000;
        plan.clockDriftPpm = demo ? drifts[r] : static_cast<double>((k >> 20) % 61) / 10.0 - 3.0;
        plan.computeSpeed = demo ? speeds[r] : 0.996 + static_cast<double>((k >> 40) % 11) / 1000.0;
        plan.pciBus = demo ? buses[r] : 0x80 + r % 0x70;
        for (int s = 0; s < kSteps; ++s) {
            std::vector<MicroBatchShape> step(kMicroBatches, normal);
            if (r == kStragglerRank && s + 1 == kSteps)
                step.push_back(leftover);
            plan.steps.push_back(std::move(step));
        }
        job.ranks.push_back(std::move(plan));
    }
    return job;
}

DemoIncident::Result DemoIncident::write(const std::filesystem::path &directory, bool gzip, int ranks)
{
    TrainingJob job(config(ranks));
    // Every kind of evidence the incident leaves behind is one JobListener watching the same run.
    KinetoTraceEvidence traces(directory, {gzip, 9});
    JobLogEvidence log(directory);
    NvidiaSmiEvidence smi(directory);
    job.addListener(traces);
    job.addListener(log);
    job.addListener(smi);
    Result result;
    result.record = job.run();
    result.files = traces.files();
    std::sort(result.files.begin(), result.files.end());
    result.files.push_back(log.file());
    result.files.push_back(smi.file());
    result.smiRows = smi.rows();
    return result;
}

} // namespace rs::tracegen
