#pragma once
// The incident report of issue 5: one Markdown file a person can attach to a ticket, with the
// findings, the per-rank metrics, how clocks were aligned, the largest allocation spikes, the
// inputs (size and SHA-256, so a reader can tell the report was made from the files they hold)
// and the exported images beside it. Pure function of its inputs except for reading the input
// files to hash them; the generation time is passed in so the output is reproducible in tests.

#include "analysisresult.h"
#include "session.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

class IncidentReport
{
public:
    struct Image {
        std::string path;    ///< relative to the report (the images are written beside it)
        std::string caption; ///< one line, user text (escaped)
    };
    /// A note the user put on the timeline (an annotation they made, not one of a finding).
    struct Note {
        std::string kind = "note";        ///< "note", "arrow" or "range"
        RankId rank = kNoRank;            ///< the rank it sits on; kNoRank: the whole job
        RankId endRank = kNoRank;         ///< an arrow's head rank
        TimeNs time = 0;                  ///< aligned ns: the moment, an arrow's tail, a range's start
        TimeNs endTime = 0;               ///< an arrow's head or a range's end (== time for a note)
        std::string text;                 ///< user text (escaped)
    };
    struct Options {
        std::string title = "RankScope incident report"; ///< user text (escaped)
        std::string generatedAt;                  ///< shown as given, e.g. "2026-11-29 12:00 UTC"; "" omits it
        std::vector<Image> images;                ///< embedded in the "Images" section, in order
        std::optional<TimeRange> range;           ///< aligned-axis range the images show, if restricted
        std::size_t maxSpikes = 10;               ///< rows of the "Allocation spikes" table
        std::vector<Note> notes;                  ///< the "Notes" section, in time order; none: no section
    };

    static std::string markdown(const Session &session, const AnalysisResult &result, const Options &options);

    /// Lower-case hex SHA-256 of the file at `path`, read in chunks (multi-GB traces must not be
    /// loaded whole); nullopt when it cannot be opened.
    static std::optional<std::string> sha256File(const std::string &path);
    /// `text` with the characters that would start Markdown markup (or end a table cell) escaped,
    /// and line breaks folded to spaces so a cell or heading stays on one line.
    static std::string escape(std::string_view text);
    /// `text` as an inline code span whose fence is longer than any backtick run inside it.
    static std::string codeSpan(std::string_view text);
};

} // namespace rs
