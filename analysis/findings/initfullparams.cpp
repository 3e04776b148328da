// init-full-params: the OOM came before the first training step — while weights were loaded,
// broadcast or wrapped (FSDP), when every rank briefly holds the full model.

#include "rules.h"

namespace rs::rules {

namespace {

class InitFullParamsRule final : public FindingRule
{
public:
    std::string_view id() const override { return "init-full-params"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        for (const OomInfo &o : collectOoms(ctx)) {
            const Rank *r = ctx.session.rank(o.rank);
            if (!r || r->steps.empty() || o.rankTime == kNoTime || o.rankTime >= r->steps.front().range.begin)
                continue;
            Finding f;
            f.ranks = {o.rank};
            f.severity = Severity::High;
            f.timeNs = o.alignedTime;
            f.title = "Rank " + std::to_string(o.rank) + " ran out of memory before its first step (during initialisation)";
            f.evidence = o.evidence;
            f.evidence.push_back(ctx.derived(o.rank, "the first ProfilerStep starts " + formatDuration(r->steps.front().range.begin - o.rankTime)
                                                         + " after the OOM",
                                             ctx.aligned(o.rank, r->steps.front().range.begin)));
            f.fix = "Do not materialise the full model on every GPU: create it on the meta device or load the checkpoint "
                    "on rank 0 only with FSDP(sync_module_states=True), shard it (ShardingStrategy.FULL_SHARD / "
                    "fsdp_config), or use CPU offload (cpu_offload=CPUOffload(offload_params=True)) while wrapping.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> initFullParams()
{
    return std::make_unique<InitFullParamsRule>();
}

} // namespace rs::rules
