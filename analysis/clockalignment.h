#pragma once
// Puts every rank on one time axis. Each source starts from its own wall clock; ranks on different
// hosts disagree by milliseconds to seconds. The k-th collective of a process group ends at nearly
// the same instant on every member, so matching collective ends gives each rank's offset to a
// reference rank; ProfilerStep ends are a weaker anchor used only when collectives are missing and
// the clocks clearly disagree (or a rank has no clock at all).
//
// Matching collectives: when both ranks carry c10d sequence numbers, the pairs are exact (same
// process group, op and Seq). Otherwise the k-th collective of one rank is tried against the
// (k+s)-th of the other for shifts s in a window (traces may cover different windows), only pairs
// whose signature (op, process group, element count) agree count, and each shift's offset is the
// median of the pairs that agree within 1 ms. The shift with the most such pairs wins; when
// collectives repeat with one signature (periodic), several shifts agree almost as well and the
// one closest to a prior wins: the step-end offset when both ranks recorded steps, else the wall
// clock when both have one. The residual is the median absolute error of the pairs.
//
// A rank that shares no collectives with the reference (another process group) is matched to any
// rank already aligned, and the offsets compose. Between two ranks that both carry wall clocks, an
// estimate of more than an hour is not clock skew but unrelated traces (another run, another job
// whose step numbers happen to coincide): the wall clock is kept.

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
    /// Largest believable disagreement between two wall clocks of one job.
    static constexpr TimeNs kMaxClockSkewNs = 3'600'000'000'000;
    /// How far (in collectives) the shift search looks when sequence numbers are missing.
    static constexpr int kMaxShift = 256;
};

} // namespace rs
