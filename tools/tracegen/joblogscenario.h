#pragma once
// The benchmark's job log: a torchrun job of N ranks writing interleaved Python logging (a line
// per rank and step), NCCL's init and channel lines, until the log reaches a requested size; then
// one rank runs out of memory, prints its traceback, and torchrun's failure summary ends the job.
// The shape of a logs-only incident at scale: gigabytes of lines, a few that matter at the end.

#include <cstdint>
#include <filesystem>

namespace rs::tracegen {

class JobLogScenario
{
public:
    struct Result {
        std::filesystem::path file;
        std::uint64_t bytes = 0;
        std::int64_t lines = 0;
        int failedRank = 0; ///< the rank whose OOM ends the job
    };
    /// Writes job.log into `directory`, `ranks` ranks, stopping once it holds `targetBytes`. Throws
    /// on I/O errors.
    static Result write(const std::filesystem::path &directory, std::uint64_t targetBytes, int ranks);
};

} // namespace rs::tracegen
