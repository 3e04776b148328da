#pragma once
// A merged Chrome trace (the JSON object format Perfetto and chrome://tracing open) of every rank
// of a session on the aligned axis: one process per rank, one thread per track, spans as "X",
// instants as "i", counters as "C", flows (launch → kernel) as "s"/"f" pairs. Written as a stream
// of text: a session of several GB must not
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
    /// A mark of what RankScope or its user found, on the aligned axis: an instant, or a slice when
    /// `duration` > 0. Annotations reach the export as these (the analysis layer knows no viewer).
    struct Mark {
        std::string name;                 ///< the title or the note's text
        TimeNs time = 0;                  ///< aligned ns
        TimeNs duration = 0;              ///< > 0: a slice
        std::vector<RankId> ranks;        ///< the ranks it is about (args), empty: the job
        std::vector<std::pair<std::string, std::string>> args; ///< extra text args
    };
    /// What RankScope adds to the ranks' own events: the findings (of `analysis`) and `annotations`
    /// on a "RankScope" process, and each rank's log records as instants on a "Log" thread of its
    /// process (job-level records on the RankScope process).
    struct Found {
        const AnalysisResult *analysis = nullptr;
        std::vector<Mark> annotations;
        bool logRecords = true;
    };
    /// The pid of the RankScope process in the merged trace (after every rank's).
    static constexpr std::int64_t kRankScopePid = 1 << 30;

    /// Writes the trace of `session` to `out`; `alignment` gives each rank's offset (ranks without
    /// an entry keep their own clock). Returns false with `error` set when the stream fails.
    static bool write(const Session &session, const std::vector<RankAlignment> &alignment, std::ostream &out,
                      std::string *error, const Found &found);
    /// The same with nothing found to add.
    static bool write(const Session &session, const std::vector<RankAlignment> &alignment, std::ostream &out,
                      std::string *error);

    /// Appends `text` to `out` as a JSON string literal (quotes included). Invalid UTF-8 bytes
    /// become U+FFFD so the output stays valid JSON whatever a trace held.
    static void appendJsonString(std::string &out, std::string_view text);
    /// Appends `ns` as microseconds with exactly 3 decimals, computed in integers (no rounding drift).
    static void appendMicros(std::string &out, TimeNs ns);
};

} // namespace rs
