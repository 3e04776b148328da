#pragma once
// Which ranks deviate from their peers, metric by metric. Continuous metrics use a robust z score,
// (value − median) / (1.4826 · MAD), so one outlier cannot hide itself by inflating the spread;
// a rank must also differ from the median by a meaningful fraction, so tight distributions do not
// flag noise. Collective lateness diverges only upwards (arriving early is no fault) and by a
// material amount: >= 1 ms and >= 1 % of the median step. Counted metrics (steps, micro-batches,
// collectives) are structural: any rank that differs from the value most ranks share diverges.
// Needs at least three ranks with the metric (two ranks cannot say which of them is the odd one).

#include "analysisresult.h"

namespace rs {

class RankDivergence
{
public:
    static std::vector<Divergence> find(const std::vector<RankMetrics> &metrics);

    static constexpr double kZThreshold = 3.5;        ///< Iglewicz & Hoaglin's outlier cut-off
    static constexpr double kMinRelativeDiff = 0.05;  ///< at least 5 % away from the median
    /// Collective lateness diverges only when a rank is late (never early) by at least this much…
    static constexpr TimeNs kMinLatenessNs = 1'000'000;
    /// …and by at least this fraction of the job's median step.
    static constexpr double kMinLatenessStepFraction = 0.01;
};

} // namespace rs
