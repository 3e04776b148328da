#include "benchmarkscenario.h"

#include "demoincident.h"
#include "kinetotraceevidence.h"
#include "trainingjob.h"

#include <algorithm>

namespace rs::tracegen {

namespace {
// Kineto writes this many metadata and closing events after the last step (see KinetoWriter).
constexpr std::int64_t kClosingEvents = 27;
} // namespace

JobConfig BenchmarkScenario::config(std::int64_t maxSteps)
{
    JobConfig job = DemoIncident::config();
    RankPlan plan = job.ranks.front();
    plan.steps.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, maxSteps)), plan.steps.front());
    job.ranks = {plan};
    job.firstStep = 1;
    return job;
}

BenchmarkScenario::Result BenchmarkScenario::write(const std::filesystem::path &directory, std::uint64_t targetBytes,
                                                   bool gzip)
{
    // A step of the demo model is about 5 MB of JSON; plan generously and stop on size.
    const auto maxSteps = static_cast<std::int64_t>(targetBytes / (1 << 20)) + 2;
    TrainingJob job(config(maxSteps));
    KinetoTraceEvidence traces(directory, {gzip, gzip ? 6 : 0});
    job.addListener(traces);
    Result result;
    const JobRecord record = job.run([&](std::int64_t stepsDone) {
        result.steps = stepsDone;
        return traces.textBytes(0) < targetBytes;
    });
    result.file = traces.files().front();
    result.jsonBytes = traces.textBytes(0);
    result.fileBytes = std::filesystem::file_size(result.file);
    result.events = record.ranks.front().events + kClosingEvents;
    return result;
}

} // namespace rs::tracegen
