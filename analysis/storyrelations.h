#pragma once
// What can lead to what, between findings: the causal knowledge IncidentStory tells the incident
// with, as a small table of general relations between finding ids (never cases of one file).
//
// - Contributing: a condition of a rank that led to a failure of the same rank (an uneven batch,
//   activations, fragmentation, NCCL buffers, full-parameter init, memory outside PyTorch, growth
//   behind an OOM). Only a condition of some weight (medium or above) counts.
// - Consequence: what a rank that died leaves behind (its peers' desync and timeouts, their
//   lateness, NCCL tearing its communicators down, the launcher stopping the other ranks), and the
//   hang or failure that follows a severe NCCL error. The cause must not come after its effect
//   when both have a time; a pair that can go either way (a failure of one rank and of another,
//   a lost connection and a dead rank, a hang and the ranks aborted after it) needs both times and
//   the cause strictly first. A cause of something else must concern a rank: a job-level event (a
//   scheduler's cancel) ends a story, it does not start one.

#include "analysisresult.h"

namespace rs {

class StoryRelations
{
public:
    /// How finding `cause` relates to finding `effect` by the table alone (their ids, severities,
    /// ranks and times; not the other findings): Contributing, Consequence, or Unrelated.
    static StoryRole relation(const Finding &cause, const Finding &effect);
    /// Whether `a` and `b` concern a rank in common.
    static bool shareRank(const Finding &a, const Finding &b);
};

} // namespace rs
