// straggler: one rank arrives late at collectives (its peers wait in the kernel) or its steps are
// slower. Fires when a rank kept its peers waiting for a time that matters to a step (>= 100 ms
// and >= 10% of the median step) or consistently arrives later (robust divergence of the median
// lateness, >= 10 ms), or, with >= 3 steps, its step time is >= 10% above the median; so the
// jitter of healthy runs stays silent.

#include "rules.h"

#include <algorithm>
#include <map>

namespace rs::rules {

namespace {

class StragglerRule final : public FindingRule
{
public:
    std::string_view id() const override { return "straggler"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        std::vector<TimeNs> stepMedians;
        for (const RankMetrics &m : ctx.metrics)
            if (m.stepTimeMedianNs)
                stepMedians.push_back(*m.stepTimeMedianNs);
        std::sort(stepMedians.begin(), stepMedians.end());
        const TimeNs typicalStep = stepMedians.empty() ? 0 : stepMedians[stepMedians.size() / 2];
        const bool watchdog = !ctx.session.logs().timeouts.empty();
        std::map<RankId, Finding> byRank;
        for (const RankMetrics &m : ctx.metrics) {
            if (!m.collectiveLatenessMaxNs || m.lastArrivals == 0)
                continue;
            const TimeNs late = *m.collectiveLatenessMaxNs;
            if (late < 100'000'000 || (typicalStep > 0 && late * 10 < typicalStep))
                continue;
            Finding &f = byRank[m.rank];
            f.timeNs = m.collectiveLatenessMaxAtNs;
            if (m.collectiveLatenessMaxAtNs)
                f.endNs = *m.collectiveLatenessMaxAtNs + late;
            f.evidence.push_back(ctx.derived(m.rank, "its peers waited " + formatDuration(late) + " for rank "
                                                         + std::to_string(m.rank) + " at a collective; it arrived last at "
                                                         + std::to_string(m.lastArrivals) + " collectives",
                                             m.collectiveLatenessMaxAtNs));
        }
        for (const Divergence *d : ctx.divergences("collective_lateness_ns")) {
            const double extra = d->value - d->median;
            if (extra < 10e6 || (typicalStep > 0 && extra < 0.10 * double(typicalStep)))
                continue;
            Finding &f = byRank[d->rank];
            f.evidence.push_back(ctx.derived(d->rank, "rank " + std::to_string(d->rank) + " reaches collectives "
                                                          + formatDuration(TimeNs(extra)) + " after its peers (median)"));
        }
        for (const Divergence *d : ctx.divergences("step_time_median_ns")) {
            const RankMetrics *m = ctx.metricsOf(d->rank);
            if (!m || !m->steps || *m->steps < 3 || d->value < 1.10 * d->median)
                continue;
            Finding &f = byRank[d->rank];
            f.evidence.push_back(ctx.derived(d->rank, d->reason));
        }
        for (auto &[rank, f] : byRank) {
            f.ranks = {rank};
            f.severity = watchdog ? Severity::High : Severity::Medium;
            f.title = "Rank " + std::to_string(rank) + " is the straggler: the others wait for it";
            if (watchdog)
                f.evidence.push_back(ctx.derived(rank, "other ranks hit the NCCL watchdog timeout while waiting"));
            f.fix = "Find out why this rank is slower: compare its host and GPU (clocks, throttling and utilization in "
                    "nvidia-smi), its data loading (DataLoader num_workers, pin_memory, storage) and its batch "
                    "(see uneven-batch); if the work is uneven, even it out rather than raising NCCL timeouts.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> straggler()
{
    return std::make_unique<StragglerRule>();
}

} // namespace rs::rules
