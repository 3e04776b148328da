#pragma once
// The largest rises of allocated memory, per rank and step, each with what caused it.
//
// A rise is measured at every local peak of an allocated counter as the climb from the lowest
// value since the counter was last at least that high (a "draw-up"), so a spike that starts from a
// dip is measured from the dip and a plateau's small wiggles do not count. Each step keeps its
// largest rise; the rest are dropped. Cause: the largest snapshot allocation inside the rise, by
// its innermost non-library frame, when a snapshot with stacks covers it; otherwise the ops running
// on the rank's CPU threads at the peak ("outermost › innermost").

#include "analysisresult.h"
#include "session.h"

#include <algorithm>
#include <optional>

namespace rs {

class MemorySpikes
{
public:
    /// At most `maxPerRank` spikes per rank (one per step, largest first), smaller than
    /// `minBytes` ignored.
    static std::vector<Spike> find(const Session &session, const std::vector<RankAlignment> &alignment,
                                   std::size_t maxPerRank = 8, std::int64_t minBytes = 16 << 20);

    struct Rise {
        std::size_t from = 0; ///< sample index of the low point
        std::size_t to = 0;   ///< sample index of the peak
        double bytes = 0;     ///< climb
    };
    /// Draw-ups of one counter at each local peak, largest first.
    static std::vector<Rise> rises(const CounterSeries &series);

    /// The first host op with "Backward" in its name (autograd's backward ops) that starts in
    /// [peak, peak + window) on `rank`'s CPU threads: ns after the peak, or nothing.
    static std::optional<TimeNs> backwardAfter(const Session &session, const Rank &rank, TimeNs peak, TimeNs window);
    /// How long after a rise's peak its backward pass is looked for: the rise's own duration, at
    /// least 1 ms.
    static TimeNs backwardWindow(TimeNs riseDuration) { return std::max<TimeNs>(riseDuration, 1'000'000); }

    /// What a summary keeps of `track` (an allocated counter of `rank`): its rises of at least
    /// `minBytes`, largest first, at most `perStep` per step, each with the ops it is charged to.
    /// find() reads them in place of the thinned counter.
    static std::vector<SummaryFacts::Rise> summaryRises(const Session &session, const Rank &rank, const Track &track,
                                                        std::size_t perStep = 4, std::int64_t minBytes = 1 << 20);
};

} // namespace rs
