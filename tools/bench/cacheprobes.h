#pragma once
// The import cache, measured: every rank-*.pt.trace.json of a folder (or, without any, its job
// log, then analysed) loaded the way the viewer and the command line load them (SessionLoader,
// two threads), with the cache off or on. The
// cache lives where XDG_CACHE_HOME says (the parent gives each run the same empty folder).

#include "benchprobes.h"

#include <string>
#include <string_view>

namespace rs::bench {

class CacheProbes
{
public:
    static constexpr std::string_view kOff = "cache-off";
    static constexpr std::string_view kOn = "cache-on";

    /// values: {files, cache hits, files stored, spans in the session, string pool bytes, log
    /// message bytes held, stack bytes}; for a folder without rank files (a job log) also
    /// {analysis µs, log message bytes held after it, findings}.
    static ProbeOutcome load(const std::string &dir, bool cache);
};

} // namespace rs::bench
