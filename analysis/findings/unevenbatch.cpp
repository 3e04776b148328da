// uneven-batch: a rank processed more micro-batches, more steps or larger inputs than its peers.
// Evidence comes from structural divergence (micro_batches, steps) and robust divergence of
// input elements; the step where the rank did more is located from the per-step counts. Only a
// located step makes it medium (high with an OOM on that rank): totals and step counts also differ
// when the ranks' traces simply cover different windows, so alone they are low.

#include "rules.h"

#include <algorithm>
#include <map>

namespace rs::rules {

namespace {

class UnevenBatchRule final : public FindingRule
{
public:
    std::string_view id() const override { return "uneven-batch"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        std::map<RankId, std::vector<const Divergence *>> byRank;
        for (const char *metric : {"micro_batches", "input_elements", "steps"})
            for (const Divergence *d : ctx.divergences(metric))
                if (d->value > d->median) // doing more than the peers; fewer shows up on the others
                    byRank[d->rank].push_back(d);
        const auto &ooms = ctx.ooms;
        for (const auto &[rank, divs] : byRank) {
            Finding f;
            f.ranks = {rank};
            const bool oomed = std::any_of(ooms.begin(), ooms.end(), [rank = rank](const OomInfo &o) { return o.rank == rank; });
            f.title = "Rank " + std::to_string(rank) + " processed more data than its peers";
            for (const Divergence *d : divs)
                f.evidence.push_back(ctx.derived(rank, d->reason));
            // Where: the first step in which this rank had more micro-batches (or inputs) than the
            // median of the other ranks that recorded the same step. Totals alone are weak evidence:
            // traces of different windows (one rank profiled more steps) differ in totals too.
            PerStepExtra extra = firstExtra(ctx, rank, &RankMetrics::microBatchesPerStep);
            const char *what = "micro-batches";
            if (extra.step < 0) {
                extra = firstExtra(ctx, rank, &RankMetrics::inputElementsPerStep);
                what = "input elements";
            }
            if (const Rank *r = ctx.session.rank(rank); r && extra.step >= 0) {
                for (const Step &s : r->steps)
                    if (s.number == extra.step) { // the first of that number (a rank may hold two captures)
                        f.timeNs = ctx.aligned(rank, s.range.begin);
                        f.endNs = ctx.aligned(rank, s.range.end);
                        break;
                    }
                f.title += " in step " + std::to_string(extra.step);
                f.evidence.push_back(ctx.derived(rank, "step " + std::to_string(extra.step) + ": " + std::to_string(extra.mine) + " "
                                                           + what + " on rank " + std::to_string(rank) + " where the other ranks have "
                                                           + std::to_string(extra.others),
                                                 f.timeNs));
            }
            f.severity = extra.step < 0 ? Severity::Low : oomed ? Severity::High : Severity::Medium;
            if (extra.step < 0)
                f.evidence.push_back(ctx.derived(rank, "no single step shows the difference: the traces may cover different windows"));
            if (oomed)
                f.evidence.push_back(ctx.derived(rank, "the same rank ran out of memory"));
            f.fix = "Give every rank the same work: make the dataset length divisible by world_size x micro-batch "
                    "size or use DistributedSampler(drop_last=True) (dataloader_drop_last=True in HF TrainingArguments), "
                    "and pad or bucket sequences to a fixed length so no rank gets a larger batch.";
            out.push_back(std::move(f));
        }
    }

private:
    struct PerStepExtra {
        std::int64_t step = -1;
        std::int64_t mine = 0;
        std::int64_t others = 0; // median of the other ranks in that step
    };
    using PerStep = std::vector<std::pair<std::int64_t, std::int64_t>> RankMetrics::*;

    static PerStepExtra firstExtra(const RuleContext &ctx, RankId rank, PerStep member)
    {
        const RankMetrics *m = ctx.metricsOf(rank);
        if (!m)
            return {};
        for (const auto &[step, n] : m->*member) {
            std::vector<std::int64_t> others;
            for (const RankMetrics &o : ctx.metrics)
                if (o.rank != rank)
                    for (const auto &[s2, n2] : o.*member)
                        if (s2 == step) {
                            others.push_back(n2);
                            break;
                        }
            // Two peers at least, as for divergence: with one, either rank could be the odd one.
            if (others.size() < 2)
                continue;
            std::sort(others.begin(), others.end());
            const std::int64_t med = others[others.size() / 2];
            if (n > med)
                return {step, n, med};
        }
        return {};
    }
};

} // namespace

std::unique_ptr<FindingRule> unevenBatch()
{
    return std::make_unique<UnevenBatchRule>();
}

} // namespace rs::rules
