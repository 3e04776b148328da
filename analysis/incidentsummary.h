#pragma once
// The incident told as one story (analyze --json "summary", DESIGN.md §3): a paragraph a person
// reads first, the ranks that caused it, and the findings in causal order, with each finding's
// place in that story. Plain data: built by IncidentStory from the findings once, after the rules.

#include "types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rs {

/// The part one finding plays in the incident.
enum class StoryRole : std::uint8_t {
    Cause,        ///< what happened first: the event the others lead to or follow from
    Contributing, ///< a condition that led to a cause on the same rank (the extra micro-batch behind an OOM)
    Consequence,  ///< what followed from a cause (the peers' watchdog timeouts after a rank died)
    Unrelated,    ///< stands on its own: neither part of the story nor a story of its own
};
/// "cause", "contributing", "consequence", "unrelated".
const char *storyRoleName(StoryRole r);

/// One finding's place in the story.
struct FindingStory {
    StoryRole role = StoryRole::Unrelated;
    /// Contributing: the finding (index into AnalysisResult::findings) it led to. Consequence: the
    /// cause at the top of its chain (a desync after a rank failure that an OOM caused names the
    /// OOM). -1 for causes and unrelated findings.
    int relatedTo = -1;
    /// The finding whose fix applies to this one: a consequence is fixed by fixing its cause (the
    /// first contributing cause of that chain when it has one); every other finding by its own fix.
    int fixFrom = -1;
};

struct IncidentSummary {
    /// One paragraph: the culprit rank, what happened and when, the key numbers, the contributing
    /// causes, what the other ranks did then, and "Fix: …". Its first sentence is a title on its own.
    std::string headline;
    /// The ranks that caused the incident, ascending; empty when no rank can be blamed.
    std::vector<RankId> culpritRanks;
    /// Indices into AnalysisResult::findings, cause first: contributing causes, the cause(s), then
    /// what followed, in time order where the findings have one.
    std::vector<int> chain;
    /// One per finding, in the order of AnalysisResult::findings.
    std::vector<FindingStory> roles;

    /// The first sentence of the headline, without its full stop ("" when there is none).
    std::string firstSentence() const;
    /// The role of finding `index`, Unrelated when out of range.
    FindingStory roleOf(int index) const;
};

} // namespace rs
