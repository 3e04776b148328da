#pragma once
// Puts every rank on one time axis. Each source starts from its own wall clock; ranks on different
// hosts disagree by milliseconds to seconds. The k-th collective of a process group ends at nearly
// the same instant on every member, so matching collective ends gives each rank's offset to a
// reference rank; ProfilerStep ends are a weaker anchor used only when collectives are missing and
// the clocks clearly disagree (or a rank has no clock at all).
//
// Matching collectives: ranks that ran on one host (NCCL's Init lines, a launcher's failure report
// or a trace's metadata name it) and whose sources both carry that host's clock share one clock:
// their offset is what the collective ends that agree near zero say (within the 1 ms tolerance:
// processes' profiler clocks on one node differ by microseconds), and a rank that ran extra
// collectives cannot pull it a collective period away. Otherwise, when both ranks carry c10d
// sequence numbers, the pairs are exact (same process group and Seq), as long as they agree on one
// offset (a counter that ran ahead of the peers' mid-trace pairs each collective with a later one),
// and unless the wall clocks line up more collective ends than they do. Otherwise the k-th
// collective of one rank is tried against the (k+s)-th of the other for shifts s in a window (traces
// may cover different windows) and each shift's consensus offset (pairs with one signature — op,
// process group, element count — that agree within 1 ms) is a candidate. Each candidate is scored by
// matching collectives by time, not by position, so a rank that skipped or added collectives does
// not split the count between two shifts. The candidate with the most anchors wins; when collectives
// repeat with one signature (periodic), several agree almost as well and the one closest to a prior
// wins: the step-end offset when both ranks recorded steps, else the wall clock when both have one.
// The residual is the median absolute error of the pairs.
//
// Confidence: an offset is Low when it rests on few collectives, leaves a large residual, was one
// of several candidates the repeating collectives allow, comes from step ends alone or from nothing,
// or composes through a rank that is Low itself.
//
// A rank that shares no collectives with the reference (another process group) is matched to any
// rank already aligned, and the offsets compose. Between two ranks that both carry wall clocks, an
// estimate of more than an hour is not clock skew but unrelated traces (another run, another job
// whose step numbers happen to coincide): the wall clock is kept.

#include "analysisresult.h"
#include "session.h"

#include <map>
#include <string>

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
    /// Fewer matched collectives than this make an offset Low confidence.
    static constexpr int kMinConfidentAnchors = 4;
    /// A median residual above this makes an offset Low confidence (one collective's kernels end
    /// within tens of microseconds on every member).
    static constexpr TimeNs kMaxConfidentResidualNs = 250'000;

    /// The host each rank ran on, where a source names it (NCCL Init lines of the whole job's
    /// communicator, launcher failure reports, a "hostname" trace metadata key); ranks named with
    /// two different hosts are left out.
    static std::map<RankId, std::string> hosts(const Session &session);
};

} // namespace rs
