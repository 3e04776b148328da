#pragma once
// Which steps were cut off. A rank's last step is incomplete when
//  - its ProfilerStep span never closed (the importer marks it: the trace ended inside it);
//  - the rank's failure falls inside it: an OOM (message or the profiler's [OutOfMemory] marker),
//    a watchdog timeout or a launcher's report of its death, timed on a clock, between the step's
//    start and the end of its trace (the trace may run on after the step while the GPU catches up);
//  - it ends where the rank's trace ends while a peer's step of the same number lasts longer, and
//    it is shorter than the rank's own other steps (the rank stopped; its peers went on).
//    Durations are compared, not times: clocks are not aligned yet when the session is frozen.
// An incomplete step is a fragment, not a fast step: metrics, outlier tests and comparisons leave
// it out. Decided once, when the session is frozen (SessionBuilder), so every reader agrees.

#include "session.h"

namespace rs {

class StepCompleteness
{
public:
    /// Sets Step::incomplete on `ranks` (the session's ranks, being frozen) from the evidence of
    /// `session` (its sources, tracks, OOMs and logs must already be in place).
    static void mark(std::vector<Rank> &ranks, const Session &session);

    /// A step ends "at the data end" when it ends within this of its trace's last event…
    static constexpr TimeNs kDataEndSlackNs = 1'000'000;
    /// …and a peer's same step is longer by at least this fraction of it.
    static constexpr double kPeerLongerFraction = 0.10;
};

} // namespace rs
