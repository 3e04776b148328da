#pragma once
// Which ranks CAUSED a hang or desync, decided on CollectiveProgress (DESIGN.md §3: a finding's
// ranks are the culprits, the waiting ranks are evidence). A hang: the SeqNum most ranks of a group
// wait on, the ranks that never got there (known progress below it, a SeqNum that lags, silent while
// their peers' watchdogs fire) and, when every rank waits alike, NCCL's op counters. A mismatch:
// the first SeqNum where ranks ran different ops or sizes, the odd ones out by majority. Plain
// data with the notes that say so; the collective-desync rule words it.

#include "collectiveprogress.h"

#include <optional>
#include <string>
#include <vector>

namespace rs {

/// A hang in one process group: who waits on what, and who never got there.
struct HangVerdict {
    std::string group;            ///< process group key
    std::int64_t seq = -1;        ///< the SeqNum most waiting ranks wait on (ties: the later); -1 when unknown
    std::string op;               ///< its op as the waiting ranks report it ("ALLREDUCE"), "" unknown
    std::vector<RankId> waiting;  ///< reported waiting on `seq` (watchdog, flight recorder)
    std::vector<RankId> behind;   ///< known progress below `seq`, a wait on an earlier SeqNum, or fewer NCCL calls
    std::vector<RankId> ahead;    ///< waited on a later SeqNum than the majority
    std::vector<RankId> silent;   ///< no report and nothing says it got there, though it has output or evidence
    std::vector<RankId> absent;   ///< a member by world size with no output at all in the session
    std::int64_t lag = 0;         ///< largest distance of a behind rank below `seq` (SeqNums)
    std::vector<ProgressNote> why; ///< per behind/ahead rank: what says where it stood

    /// Culprits: behind and silent ranks; else the absent ones; else a minority ahead.
    std::vector<RankId> culprits() const;
};

/// The first SeqNum of a group at which ranks ran different ops or sizes (within one evidence kind).
struct MismatchVerdict {
    std::string group;            ///< process group key
    std::int64_t seq = -1;        ///< the SeqNum
    std::vector<RankId> odd;      ///< not in the majority (every rank when there is none)
    std::vector<RankId> majority; ///< the ranks that agree, empty when no signature has a majority
    std::string oddRan;           ///< what the odd ranks ran ("REDUCE (NumelIn=…)"); without a majority, each
                                  ///< side: "rank 0 ran …, rank 1 ran …"
    std::string majorityRan;      ///< what the majority ran
    std::vector<ProgressNote> notes; ///< every rank's op at that SeqNum
};

class CollectiveCulprits
{
public:
    /// The hang of the group where most ranks report waiting, or nullopt. `recordWaiters` are ranks
    /// whose timeout lines were not read into a report (they count as waiting in the default group).
    static std::optional<HangVerdict> hang(const CollectiveProgress &p, const std::vector<RankId> &recordWaiters);
    /// The hang of one group (its verdict may have no waiting rank).
    static HangVerdict hangIn(const CollectiveProgress &p, const std::string &group, const std::vector<RankId> &recordWaiters);
    /// The first mismatching SeqNum of `group`, or nullopt.
    static std::optional<MismatchVerdict> firstMismatch(const CollectiveProgress &p, const std::string &group);
};

} // namespace rs
