#pragma once
// Tells the incident as one causal chain (issue 10, "One story, then the findings"). The findings
// are linked pairwise by StoryRelations (conditions of a rank that lead to its OOM; what a rank
// that died leaves behind); a consequence hangs off its earliest cause, and the chain up from it
// ends at the cause the story is about. The story is the most severe cause with everything linked
// to it; its ranks are the culprits, and its strongest condition's fix is the fix. StoryWriter
// puts it into words.

#include "analysisresult.h"
#include "incidentsummary.h"
#include "session.h"

#include <string>
#include <string_view>

namespace rs {

class IncidentStory
{
public:
    /// The summary of `result` (its findings, metrics, spikes and alignment). `session`, when
    /// given, adds what the findings do not carry: the step an OOM fell in, the ranks that waited
    /// on a watchdog, how the launcher ended the job, and what was read when nothing was found.
    static IncidentSummary build(const AnalysisResult &result, const Session *session = nullptr);
};

} // namespace rs
