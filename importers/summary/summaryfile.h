#pragma once
// A rankscope summary on disk (`rankscope summarize`, DESIGN.md §3): one file per summarised
// input, `<name>.rankscope-summary`, an SQLite database (application id "RSSU", rollback journal
// so it is one self-contained file that can be copied off a cluster and read from memory):
//   meta(key, value)                   schema "rankscope.summary/1", the model layout, the writer,
//                                      the facts (SummaryFacts as JSON)
//   columns(name, block, raw, data)    the thinned model as SourceArchive's columns, zstd blocks
// A summary of another layout, or one whose columns do not check out, is refused with a reason;
// it is never half read.

#include "sourcebuilder.h"

#include <optional>
#include <string>
#include <string_view>

namespace rs {

class SummaryFile
{
public:
    static constexpr std::int32_t kApplicationId = 0x52535355; // "RSSU"
    static constexpr const char *kSchema = "rankscope.summary/1";
    static constexpr const char *kExtension = ".rankscope-summary";

    /// Writes `source` (thinned, with its facts in source().summary) to `path`, replacing it only
    /// once the new file is complete. False with `why` when it cannot.
    static bool write(const std::string &path, const SourceBuilder &source, std::string *why = nullptr);
    /// A summary back from the bytes of its file: the thinned model with its facts, format
    /// "summary". Nothing, with `why`, when the bytes are not a summary this build reads.
    static std::optional<SourceBuilder> read(std::string bytes, std::string *why = nullptr);
    /// True when `head` (the file's first bytes, at least 72) is an SQLite database marked as a summary.
    static bool sniff(std::string_view head);
};

} // namespace rs
