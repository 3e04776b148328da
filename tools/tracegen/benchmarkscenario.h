#pragma once
// The benchmark's input: one rank of the demo job's healthy ranks, repeated step after step until
// the trace reaches a requested size. Same event mix as the demo (ops, kernels, flows, memory
// events, collectives), so throughput measured on it carries over to real traces of that kind.

#include "jobconfig.h"

#include <cstdint>
#include <filesystem>

namespace rs::tracegen {

class BenchmarkScenario
{
public:
    /// A single written rank (rank 0 of 4) with room for `maxSteps` steps.
    static JobConfig config(std::int64_t maxSteps);

    struct Result {
        std::filesystem::path file;
        std::uint64_t jsonBytes = 0;  ///< uncompressed size
        std::uint64_t fileBytes = 0;  ///< size on disk
        std::int64_t events = 0;      ///< trace events, metadata included
        std::int64_t steps = 0;
    };
    /// Writes rank-0.pt.trace.json[.gz] into `directory`, stopping after the first step that brings
    /// the JSON text to `targetBytes` or more. Throws on I/O errors.
    static Result write(const std::filesystem::path &directory, std::uint64_t targetBytes, bool gzip);
};

} // namespace rs::tracegen
