#pragma once
// The demo incident shipped in resources/demo: a 4-rank DDP job on one A100 80GB node where the
// data loader hands rank 2 one extra micro-batch in the last profiled step (an uneven
// DistributedSampler split), and that leftover batch is the long tail of a length-bucketed dataset,
// padded to 2048 tokens instead of 1024. Rank 2 runs out of memory in its forward pass while ranks
// 0, 1 and 3 wait in the step's allreduce until the watchdog times it out; torchrun then ends the
// job. The evidence: the four Kineto traces, the torchrun log and the nvidia-smi sidecar's CSV.

#include "jobconfig.h"
#include "jobrecord.h"

#include <filesystem>
#include <vector>

namespace rs::tracegen {

class DemoIncident
{
public:
    /// The scenario as a job configuration (deterministic: fixed seed, fixed clocks). `ranks`
    /// other than 4 scales the same incident to a larger job (rank 2 still runs out of memory;
    /// the benchmark's 64-rank set), one node of that many GPUs.
    static JobConfig config(int ranks = 4);

    struct Result {
        JobRecord record;
        std::vector<std::filesystem::path> files;  ///< the traces by rank, then torchrun.log, nvidia-smi.csv
        std::int64_t smiRows = 0;                  ///< whole data rows in nvidia-smi.csv
    };
    /// Writes every piece of evidence into `directory` (created if missing). Throws on I/O errors.
    static Result write(const std::filesystem::path &directory, bool gzip = true, int ranks = 4);
};

} // namespace rs::tracegen
