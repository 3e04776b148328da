#pragma once
// The default reference rank of the compare view, "the median rank": the rank that is most typical
// of the job over the DESIGN.md §3 metrics, so every other rank's deviation reads against a peer
// that did nothing unusual.
//
// The rule, deterministic:
// 1. The metrics are peak allocated, peak reserved, peak time, nvidia-smi used peak, steps, median
//    step time, collectives and OOM (1 for a rank that ran out of memory, else 0).
// 2. Only the ranks with the most of these metrics present compete (a rank missing data cannot be
//    the yardstick of ranks that have it).
// 3. Per metric, over the competing ranks that have it: the median m (mean of the two middle values
//    for an even count) and a scale s = 1.4826 · MAD; when the MAD is 0 (most ranks agree), s is the
//    mean absolute deviation from m; when that is 0 too, every rank agrees and the metric adds
//    nothing.
// 4. A rank's distance is the sum over the metrics of |value − m| / s.
// 5. The smallest distance wins (compared with a relative tolerance of 1e-9); ties go to the lowest
//    rank id.

#include "analysisresult.h"

#include <optional>
#include <vector>

namespace rs {

class ReferenceRank
{
public:
    /// A rank's standing in the rule.
    struct Score {
        RankId rank = 0;       ///< the rank
        int metrics = 0;       ///< how many of the metrics it has
        bool competes = false; ///< has the most metrics of all ranks (rule 2)
        double distance = 0;   ///< rule 4's sum (0 for ranks that do not compete)
    };

    /// The metric values of rule 1 in that order; nullopt where the rank has no value.
    static std::vector<std::optional<double>> values(const RankMetrics &m);
    /// Number of metrics of rule 1.
    static constexpr int kMetricCount = 8;
    /// One score per entry of `metrics`, in the same order.
    static std::vector<Score> scores(const std::vector<RankMetrics> &metrics);
    /// The median rank of `metrics`, or kNoRank when it is empty.
    static RankId pick(const std::vector<RankMetrics> &metrics);
};

} // namespace rs
