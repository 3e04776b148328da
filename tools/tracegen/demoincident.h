#pragma once
// The demo incident shipped in resources/demo: a 4-rank DDP job on one A100 80GB node where the
// data loader hands rank 2 one extra micro-batch in the last profiled step (an uneven
// DistributedSampler split), and that leftover batch is the long tail of a length-bucketed dataset,
// padded to 2048 tokens instead of 1024. Rank 2's activation memory climbs to within a few GiB of
// the device's capacity while ranks 0, 1 and 3 sit in their allreduces waiting for it.

#include "jobconfig.h"
#include "jobrecord.h"

#include <filesystem>
#include <vector>

namespace rs::tracegen {

class DemoIncident
{
public:
    /// The scenario as a job configuration (deterministic: fixed seed, fixed clocks).
    static JobConfig config();

    struct Result {
        JobRecord record;
        std::vector<std::filesystem::path> files;
    };
    /// Writes every piece of evidence into `directory` (created if missing). Throws on I/O errors.
    static Result write(const std::filesystem::path &directory, bool gzip = true);
};

} // namespace rs::tracegen
