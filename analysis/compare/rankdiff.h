#pragma once
// Rank A against rank B: per-op and per-kernel totals side by side, largest differences first,
// and the durations of the steps both ranks ran, matched by ProfilerStep number.

#include "optotals.h"

#include <optional>
#include <vector>

namespace rs {

/// One name's totals on rank A and rank B. A side where the name never ran has zero totals.
struct OpDiffRow {
    StringId name = kEmptyString; ///< interned event name
    OpKind kind = OpKind::CpuOp;  ///< what kind of event it is
    OpStats a;                    ///< totals on rank A
    OpStats b;                    ///< totals on rank B

    std::int64_t countDelta() const { return b.count - a.count; }
    TimeNs timeDelta() const { return b.time - a.time; }
    std::int64_t bytesDelta() const { return b.bytes - a.bytes; }
    /// True when the name ran on only one of the two ranks.
    bool oneSided() const { return (a.count == 0) != (b.count == 0); }
};

/// One step number and its duration on each rank (nullopt where the rank has no such step).
struct StepDiffRow {
    std::int64_t number = 0;         ///< N of ProfilerStep#N
    std::optional<TimeNs> a;         ///< duration on rank A
    std::optional<TimeNs> b;         ///< duration on rank B
    std::optional<TimeNs> startA;    ///< start on rank A (data clock, no offset)
    std::optional<TimeNs> startB;    ///< start on rank B (data clock, no offset)
    bool incompleteA = false;        ///< rank A was cut off inside it (Step::incomplete)
    bool incompleteB = false;        ///< rank B was cut off inside it

    /// b − a, when both ranks ran the step.
    std::optional<TimeNs> delta() const
    {
        return a && b ? std::optional<TimeNs>(*b - *a) : std::nullopt;
    }
    /// True when both ranks ran the step to its end.
    bool completedByBoth() const { return a && b && !incompleteA && !incompleteB; }
};

class RankDiff
{
public:
    /// Every (kind, name) present on either side, ordered by |time delta| descending, then
    /// |bytes delta| descending, then name text, then kind. Deltas are B − A.
    static std::vector<OpDiffRow> ops(const Session &session, const RankOpTotals &a, const RankOpTotals &b);
    /// The step numbers of either rank in ascending order. When a rank recorded the same number
    /// twice (two profiler sessions), the first occurrence counts.
    static std::vector<StepDiffRow> steps(const Session &session, RankId a, RankId b);
    /// The step numbers both ranks ran to their end, ascending: the scope of a fair diff when one
    /// of them crashed (OpTotals::compute with steps).
    static std::vector<std::int64_t> completedByBoth(const Session &session, RankId a, RankId b);
    /// True when either rank has a cut-off step (it crashed, or its trace ended inside a step).
    static bool anyIncomplete(const Session &session, RankId a, RankId b);
};

} // namespace rs
