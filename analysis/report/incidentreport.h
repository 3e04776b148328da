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
    struct Options {
        std::string title = "RankScope incident report"; ///< user text (escaped)
        std::string generatedAt;                  ///< shown as given, e.g. "2026-11-29 12:00 UTC"; "" omits it
        std::vector<Image> images;                ///< embedded in the "Images" section, in order
        std::optional<TimeRange> range;           ///< aligned-axis range the images show, if restricted
        std::size_t maxSpikes = 10;               ///< rows of the "Allocation spikes" table
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
