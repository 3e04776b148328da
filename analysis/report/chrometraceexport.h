#pragma once
// A merged Chrome trace (the JSON object format Perfetto and chrome://tracing open) of every rank
// of a session on the aligned axis: one process per rank, one thread per track, spans as "X",
// instants as "i", counters as "C". Written as a stream of text: a session of several GB must not
// be copied into a JSON DOM, so events go out in chunks of a bounded buffer.

#include "analysisresult.h"
#include "session.h"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

class ChromeTraceExport
{
public:
    /// Writes the trace of `session` to `out`; `alignment` gives each rank's offset (ranks without
    /// an entry keep their own clock). Returns false with `error` set when the stream fails.
    static bool write(const Session &session, const std::vector<RankAlignment> &alignment, std::ostream &out,
                      std::string *error);

    /// Appends `text` to `out` as a JSON string literal (quotes included). Invalid UTF-8 bytes
    /// become U+FFFD so the output stays valid JSON whatever a trace held.
    static void appendJsonString(std::string &out, std::string_view text);
    /// Appends `ns` as microseconds with exactly 3 decimals, computed in integers (no rounding drift).
    static void appendMicros(std::string &out, TimeNs ns);
};

} // namespace rs
