#include "storyrelations.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace rs {

namespace {

enum class Link : std::uint8_t { Contributes, Causes };
// SameRank: they share a rank. AnyRank: any. OtherRank: the effect names ranks, none of the
// cause's. NotCauseRanks: none of the cause's ranks (the whole job counts).
enum class Scope : std::uint8_t { SameRank, AnyRank, OtherRank, NotCauseRanks };

struct Relation {
    std::string_view cause;
    std::string_view effect;
    Link link;
    Scope scope;
    bool needsTime = false;             // both timed and the cause strictly first (pairs that can go either way)
    Severity minCause = Severity::Medium; // the weakest cause that counts
};

// A pair listed both ways (a lost connection can kill a rank; a dead rank makes NCCL report
// errors) is decided by time, so links never loop. A weak condition (a low finding: one cudaMalloc
// retry, a large NCCL_BUFFSIZE) explains nothing; a rank that died is a cause at any severity.
constexpr Relation kRelations[] = {
    // Why a rank ran out of memory: conditions of that same rank.
    {"uneven-batch", "oom", Link::Contributes, Scope::SameRank},
    {"activation-memory", "oom", Link::Contributes, Scope::SameRank},
    {"allocator-fragmentation", "oom", Link::Contributes, Scope::SameRank},
    {"nccl-buffer-memory", "oom", Link::Contributes, Scope::SameRank},
    {"init-full-params", "oom", Link::Contributes, Scope::SameRank},
    {"non-pytorch-memory", "oom", Link::Contributes, Scope::SameRank},
    {"memory-growth", "oom", Link::Contributes, Scope::SameRank},
    // What a rank that died leaves behind: its peers wait for it (desync, timeouts, lateness), NCCL
    // tears its communicators down, the launcher kills the others. The dead rank is often the one
    // the desync names, so any rank counts.
    {"oom", "collective-desync", Link::Causes, Scope::AnyRank, false, Severity::Info},
    {"oom", "straggler", Link::Causes, Scope::AnyRank, false, Severity::Info},
    {"oom", "rank-failure", Link::Causes, Scope::AnyRank, false, Severity::Info},
    {"oom", "nccl-error", Link::Causes, Scope::AnyRank, false, Severity::Info},
    {"rank-failure", "collective-desync", Link::Causes, Scope::AnyRank, false, Severity::Info},
    {"rank-failure", "straggler", Link::Causes, Scope::AnyRank, false, Severity::Info},
    {"rank-failure", "nccl-error", Link::Causes, Scope::AnyRank, false, Severity::Info},
    {"rank-failure", "rank-failure", Link::Causes, Scope::OtherRank, true, Severity::Info},
    // A broken connection hangs the peers and can kill a process; a harmless NCCL warning does not.
    {"nccl-error", "collective-desync", Link::Causes, Scope::AnyRank, false, Severity::High},
    {"nccl-error", "rank-failure", Link::Causes, Scope::AnyRank, true, Severity::High},
    // A hang ends in the watchdog aborting the ranks that waited, or in the scheduler's time limit.
    {"collective-desync", "rank-failure", Link::Causes, Scope::NotCauseRanks, true, Severity::Medium},
};

} // namespace

bool StoryRelations::shareRank(const Finding &a, const Finding &b)
{
    for (RankId r : a.ranks)
        if (r >= 0 && std::find(b.ranks.begin(), b.ranks.end(), r) != b.ranks.end())
            return true;
    return false;
}

StoryRole StoryRelations::relation(const Finding &cause, const Finding &effect)
{
    for (const Relation &rel : kRelations) {
        if (rel.cause != cause.id || rel.effect != effect.id || cause.severity < rel.minCause)
            continue;
        const bool inScope = rel.scope == Scope::AnyRank ? true
            : rel.scope == Scope::SameRank               ? shareRank(cause, effect)
            : rel.scope == Scope::OtherRank              ? !effect.ranks.empty() && !shareRank(cause, effect)
                                                         : !shareRank(cause, effect);
        if (!inScope)
            continue;
        if (rel.link == Link::Contributes)
            return StoryRole::Contributing;
        // Something follows from a rank, not from the job as a whole (a scheduler's cancel ends a
        // hang; it does not start one).
        if (std::none_of(cause.ranks.begin(), cause.ranks.end(), [](RankId r) { return r >= 0; }))
            continue;
        const bool timed = cause.timeNs && effect.timeNs;
        if (rel.needsTime ? timed && *cause.timeNs < *effect.timeNs : !timed || *cause.timeNs <= *effect.timeNs)
            return StoryRole::Consequence;
    }
    return StoryRole::Unrelated;
}

} // namespace rs
