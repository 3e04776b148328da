#pragma once
// `rankscope summarize` for one file: import it, compute on its full detail what the analysis
// needs (SourceSummarizer::facts), thin the model to the rest and write it as a summary file
// (SummaryFile). Meant to run where the traces are, one process per rank file (tools/cluster/).

#include "sourcebuilder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rs {

class Summarizer
{
public:
    struct Options {
        std::string outputDir;            ///< where summaries go; "" = beside each input
        std::string timeZone;             ///< zone of zone-less stamps, "" = local
        std::int64_t maxDecompressedBytes = 0; ///< 0 = ImportContext's default
        std::optional<RankId> rank;       ///< --assign-rank for this file
        std::size_t counterSamples = 1u << 16; ///< --counter-samples: most samples a counter keeps
    };
    struct Result {
        std::string input;                ///< as given
        std::string output;               ///< the summary written, "" when none
        std::string format;               ///< what the input was read as
        std::vector<RankId> ranks;
        std::int64_t inputBytes = 0;
        std::int64_t outputBytes = 0;
        double seconds = 0;
        std::vector<std::string> errors;  ///< "path:line: message" lines of the import's errors
        std::string failure;              ///< why nothing was written ("" on success)
    };

    /// The summary's file name for `input`: its name plus SummaryFile::kExtension
    /// (rank-3.pt.trace.json.gz -> rank-3.pt.trace.json.gz.rankscope-summary).
    static std::string outputName(const std::string &input);
    /// Summarises `input` into `output` (a path; see outputName).
    static Result run(const std::string &input, const std::string &output, const Options &options);
    /// True when the file a summary was written from is on this machine: at its absolute path
    /// (else at the path as given), of its size and modification time.
    static bool originReachable(const SummaryFacts &facts);
    /// Where originReachable() found the original, "" when it did not.
    static std::string originOnThisMachine(const SummaryFacts &facts);
    /// SHA-256 of a file's bytes (hex), "" when it cannot be read.
    static std::string sha256Of(const std::string &path);
};

} // namespace rs
