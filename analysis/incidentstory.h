#pragma once
// Tells the incident as one causal chain (issue 10, "One story, then the findings"). The findings
// are linked by a small table of general relations between finding ids: conditions on the same
// rank that lead to an OOM (uneven batches, activations, fragmentation, …), and what a rank that
// died leaves behind (its peers' desync and timeouts, NCCL errors, other ranks failing). Times
// order the links where both findings have one; a finding without time is linked by its relation
// only. The story is the most severe cause with everything linked to it; its ranks are the culprits.

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

    /// How finding `cause` relates to finding `effect` by the relation table alone (ids, ranks and
    /// times; not the other findings): Contributing, Consequence, or Unrelated when neither.
    static StoryRole relation(const Finding &cause, const Finding &effect);

    /// `title` told about its own rank: "Rank 2's caching allocator is fragmented" → "its caching
    /// allocator is fragmented", "Rank 2 keeps more memory…" → "it keeps more memory…", other text
    /// with its first letter lowered unless it starts an acronym.
    static std::string aboutItself(std::string_view title, RankId rank);
};

} // namespace rs
