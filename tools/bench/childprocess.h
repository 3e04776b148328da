#pragma once
// Runs one measurement in a fresh process, so that peak memory (ru_maxrss from wait4) belongs to
// that measurement alone: the bench re-executes itself in child mode, the child measures its own
// wall time around the work and reports it through a pipe.

#include <cstdint>
#include <string>
#include <vector>

namespace rs::bench {

/// What a child reports: its wall and CPU time for the measured work and a few counters. CPU time
/// stays meaningful when other processes compete for the cores; wall time is what users feel.
struct ProbeOutcome {
    double seconds = 0.0;
    double cpuSeconds = 0.0;           ///< CPU time (user + system) for the same work
    std::vector<std::int64_t> values;  ///< probe-specific counters (bytes, events, ...)
};

struct ChildResult {
    bool ok = false;
    std::string error;                 ///< why the child failed, when !ok
    ProbeOutcome outcome;
    std::int64_t maxRssBytes = 0;      ///< the child's peak resident set (wait4 ru_maxrss)
};

class ChildProcess
{
public:
    /// Starts `/proc/self/exe` with `args` plus `--result-fd N` and waits for it.
    static ChildResult run(const std::vector<std::string> &args);
    /// Child side: sends `outcome` to the parent.
    static void report(int fd, const ProbeOutcome &outcome);
    /// Child side: sends a failure to the parent.
    static void reportError(int fd, const std::string &message);
};

} // namespace rs::bench
