#include "demoincident.h"

#include "kinetotraceevidence.h"
#include "trainingjob.h"

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

JobConfig DemoIncident::config()
{
    JobConfig job;
    job.worldSize = kRanks;
    job.visibleDevices = kRanks;
    job.firstStep = 412;
    job.seed = 20240814;
    job.startNs = kStart;
    job.baseTimeNs = kQuarterBase;
    // Host clocks as NTP leaves them: a few hundred µs apart, drifting by a few ppm.
    const TimeNs skews[kRanks] = {0, 312400, -187900, 455100};
    const double drifts[kRanks] = {0.0, 3.1, -2.4, 1.7};
    const double speeds[kRanks] = {1.0, 1.006, 0.997, 1.004};
    const MicroBatchShape normal{6, 1024};
    const MicroBatchShape leftover{6, 1408};
    for (int r = 0; r < kRanks; ++r) {
        RankPlan plan;
        plan.rank = r;
        plan.pid = 48211 + r;
        plan.device = r;
        plan.clockSkewNs = skews[r];
        plan.clockDriftPpm = drifts[r];
        plan.computeSpeed = speeds[r];
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

DemoIncident::Result DemoIncident::write(const std::filesystem::path &directory, bool gzip)
{
    TrainingJob job(config());
    // Every kind of evidence the incident leaves behind is one JobListener watching the same run;
    // more kinds (memory_summary tables, nvidia-smi samples, NCCL logs) join here.
    KinetoTraceEvidence traces(directory, {gzip, 9});
    job.addListener(traces);
    Result result;
    result.record = job.run();
    result.files = traces.files();
    return result;
}

} // namespace rs::tracegen
