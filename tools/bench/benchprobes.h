#pragma once
// The measured operations, each run inside a child process. Every probe reads the whole file once
// on one thread and returns its wall time plus counters that prove the work was done.

#include "childprocess.h"

#include <string>
#include <string_view>

namespace rs::bench {

class BenchProbes
{
public:
    /// Probe names as passed to `--child`.
    static constexpr std::string_view kRawRead = "raw-read";
    static constexpr std::string_view kGunzip = "gunzip";
    static constexpr std::string_view kNlohmannSax = "nlohmann-sax";
    static constexpr std::string_view kImport = "import";
    static constexpr std::string_view kIdle = "idle";

    /// Runs probe `name` on `path`. Throws std::runtime_error on failure.
    static ProbeOutcome run(std::string_view name, const std::string &path);

    /// Baseline 1: read() in 1 MiB chunks, no decompression. values: {bytes}
    static ProbeOutcome rawRead(const std::string &path);
    /// Baseline 1 for .gz: read and inflate with zlib in 1 MiB chunks. values: {decompressed bytes}
    static ProbeOutcome gunzip(const std::string &path);
    /// Baseline 2: nlohmann::json SAX parse of the (decompressed) stream with a counting handler.
    /// values: {objects, strings, numbers}
    static ProbeOutcome nlohmannSax(const std::string &path);
    /// RankScope: ImporterRegistry::importFile on this thread. values: {spans, memory events,
    /// instants, diagnostics}
    static ProbeOutcome import(const std::string &path);
    /// Nothing: the process floor every other child's RSS includes.
    static ProbeOutcome idle();
};

} // namespace rs::bench
