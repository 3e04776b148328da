#pragma once
// Runs the whole analysis of a session, in dependency order: clock alignment, per-rank metrics,
// allocation spikes, divergent ranks, then the finding rules. Pure function of its inputs; runs on
// any thread.

#include "analysisresult.h"
#include "session.h"

#include <map>

namespace rs {

class Analyzer
{
public:
    struct Options {
        std::map<RankId, TimeNs> clockOffsets; ///< user overrides (rank → offset ns)
    };
    static AnalysisResult run(const Session &session, const Options &options = {});
};

} // namespace rs
