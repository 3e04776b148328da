#pragma once
// Puts every rank on one time axis. Each source starts from its own wall clock; ranks on different
// hosts disagree by milliseconds to seconds. The k-th collective of a process group ends at nearly
// the same instant on every member, so matching collective ends gives each rank's offset to a
// reference rank; ProfilerStep ends are a weaker anchor used only when collectives are missing and
// the clocks clearly disagree (or a rank has no clock at all).
//
// Matching is robust to traces that cover different windows: the k-th collective of one rank is
// tried against the (k+s)-th of the other for shifts s in a window, only pairs whose signature
// (op, process group, element count) agree count, and the shift with the most pairs that agree on
// one offset (within 1 ms) wins. The offset is the median of those pairs; the residual is their
// median absolute error.

#include "analysisresult.h"
#include "session.h"

#include <map>

namespace rs {

class ClockAlignment
{
public:
    /// Offsets for every rank of `session`; `overrides` (rank → offset ns) win over estimates.
    static std::vector<RankAlignment> align(const Session &session, const std::map<RankId, TimeNs> &overrides = {});

    /// Tolerance within which two collective-end differences are taken as the same offset.
    static constexpr TimeNs kInlierToleranceNs = 1'000'000;
    /// Step-end differences below this keep the wall clock: steps do not end together exactly.
    static constexpr TimeNs kStepTrustNs = 50'000'000;
};

} // namespace rs
