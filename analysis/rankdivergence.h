#pragma once
// Which ranks deviate from their peers, metric by metric. Continuous metrics use a robust z score,
// (value − median) / (1.4826 · MAD), so one outlier cannot hide itself by inflating the spread;
// a rank must also differ from the median by a meaningful fraction, so tight distributions do not
// flag noise. Counted metrics (steps, micro-batches, collectives) are structural: any rank that
// differs from the value most ranks share diverges. Needs at least three ranks with the metric
// (two ranks cannot say which of them is the odd one).

#include "analysisresult.h"

namespace rs {

class RankDivergence
{
public:
    static std::vector<Divergence> find(const std::vector<RankMetrics> &metrics);

    static constexpr double kZThreshold = 3.5;        ///< Iglewicz & Hoaglin's outlier cut-off
    static constexpr double kMinRelativeDiff = 0.05;  ///< at least 5 % away from the median
};

} // namespace rs
