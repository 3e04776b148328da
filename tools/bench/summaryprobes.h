#pragma once
// Summaries at cluster scale, measured (rankscope-bench --summaries): rank files summarised the
// way the cluster scripts do it (Summarizer, one file per task, two at a time here), the folder of
// summaries opened and analysed the way the viewer does (SessionLoader, two threads, no cache),
// and the analysis of a set written as `analyze --json` prints it, to compare traces with summaries.

#include "benchprobes.h"

#include <string>
#include <string_view>

namespace rs::bench {

class SummaryProbes
{
public:
    static constexpr std::string_view kSummarize = "summarize";
    static constexpr std::string_view kOpen = "open-analyse";
    static constexpr std::string_view kAnalyzeJson = "analyze-json";

    /// Summarises every file of DIR/traces into DIR/summaries (rank-N files keep rank N).
    /// values: {files, summary bytes, input bytes, slowest file (µs)}
    static ProbeOutcome summarize(const std::string &dir);
    /// Opens and analyses DIR. values: {ranks, findings, open (µs), analysis (µs)}
    static ProbeOutcome openAndAnalyse(const std::string &dir);
    /// `rankscope analyze --json DIR` into DIR.analysis.json. values: {exit status}
    static ProbeOutcome analyzeJson(const std::string &dir);
};

} // namespace rs::bench
