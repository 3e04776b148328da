// uneven-batch: a rank processed more micro-batches, more steps or larger inputs than its peers.
// Evidence comes from structural divergence (micro_batches, steps) and robust divergence of
// input elements; the step where the rank did more is located from the per-step counts.

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
        const auto ooms = collectOoms(ctx);
        for (const auto &[rank, divs] : byRank) {
            Finding f;
            f.ranks = {rank};
            const bool oomed = std::any_of(ooms.begin(), ooms.end(), [rank = rank](const OomInfo &o) { return o.rank == rank; });
            f.severity = oomed ? Severity::High : Severity::Medium;
            f.title = "Rank " + std::to_string(rank) + " processed more data than its peers";
            for (const Divergence *d : divs)
                f.evidence.push_back(ctx.derived(rank, d->reason));
            // Where: the first step in which this rank had more micro-batches (or inputs) than the median rank.
            if (const RankMetrics *m = ctx.metricsOf(rank)) {
                auto firstExtra = [&](auto member) -> std::int64_t {
                    for (const auto &[step, n] : (*m).*member) {
                        std::vector<std::int64_t> others;
                        for (const RankMetrics &o : ctx.metrics)
                            if (o.rank != rank)
                                for (const auto &[s2, n2] : o.*member)
                                    if (s2 == step)
                                        others.push_back(n2);
                        if (others.empty())
                            continue;
                        std::sort(others.begin(), others.end());
                        if (n > others[others.size() / 2])
                            return step;
                    }
                    return -1;
                };
                std::int64_t step = firstExtra(&RankMetrics::microBatchesPerStep);
                if (step < 0)
                    step = firstExtra(&RankMetrics::inputElementsPerStep);
                if (const Rank *r = ctx.session.rank(rank); r && step >= 0)
                    for (const Step &s : r->steps)
                        if (s.number == step) {
                            f.timeNs = ctx.aligned(rank, s.range.begin);
                            f.endNs = ctx.aligned(rank, s.range.end);
                            f.title += " in step " + std::to_string(step);
                            for (const auto &[s2, n] : m->microBatchesPerStep)
                                if (s2 == step)
                                    f.evidence.push_back(ctx.derived(rank, "step " + std::to_string(step) + ": " + std::to_string(n)
                                                                               + " micro-batches on rank " + std::to_string(rank),
                                                                     f.timeNs));
                        }
            }
            if (oomed)
                f.evidence.push_back(ctx.derived(rank, "the same rank ran out of memory"));
            f.fix = "Give every rank the same work: make the dataset length divisible by world_size x micro-batch "
                    "size or use DistributedSampler(drop_last=True) (dataloader_drop_last=True in HF TrainingArguments), "
                    "and pad or bucket sequences to a fixed length so no rank gets a larger batch.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> unevenBatch()
{
    return std::make_unique<UnevenBatchRule>();
}

} // namespace rs::rules
