// oom: a CUDA OOM happened. States who, when, and the allocator's numbers at that moment; the
// other rules explain why.

#include "rules.h"

namespace rs::rules {

namespace {

class OomRule final : public FindingRule
{
public:
    std::string_view id() const override { return "oom"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        for (const OomInfo &o : ctx.ooms) {
            Finding f;
            f.severity = Severity::High;
            f.ranks = {o.rank};
            if (o.alignedTime != kNoTime)
                f.timeNs = o.alignedTime;
            f.title = "Rank " + std::to_string(o.rank) + " ran out of GPU memory";
            if (o.count > 1)
                f.title += " " + std::to_string(o.count) + " times";
            if (const OomEvent *e = o.event) {
                if (e->requested >= 0)
                    f.title += ": tried to allocate " + formatBytes(e->requested);
                if (e->capacity > 0)
                    f.title += " on a " + formatBytes(e->capacity) + " GPU";
                if (e->free >= 0)
                    f.title += " with " + formatBytes(e->free) + " free";
                if (e->allocated >= 0)
                    f.title += " (" + formatBytes(e->allocated) + " allocated";
                if (e->reserved >= 0)
                    f.title += std::string(e->allocated >= 0 ? ", " : " (") + formatBytes(e->reserved) + " reserved";
                if (e->allocated >= 0 || e->reserved >= 0)
                    f.title += ")";
            } else if (const RankMetrics *m = ctx.metricsOf(o.rank); m && m->peakSource == MemorySource::MemorySummary) {
                // Only the allocator's count says so: its table's peaks are the closest reading of
                // the moment (what it held when printed is what survived the failure).
                if (m->peakAllocatedBytes)
                    f.title += ": peak " + formatBytes(*m->peakAllocatedBytes) + " allocated";
                if (m->peakReservedBytes && m->peakReservedSource == MemorySource::MemorySummary)
                    f.title += std::string(m->peakAllocatedBytes ? ", " : ": peak ") + formatBytes(*m->peakReservedBytes) + " reserved";
                if (m->currentAllocatedBytes && m->currentReservedBytes)
                    f.evidence.push_back(ctx.derived(o.rank, "when the memory_summary was printed: " + formatBytes(*m->currentAllocatedBytes)
                                                                 + " allocated, " + formatBytes(*m->currentReservedBytes)
                                                                 + " reserved (memory the failed step freed stays cached)"));
            }
            const std::int64_t step = ctx.stepAt(o.rank, o.rankTime);
            if (step >= 0)
                f.title += " in step " + std::to_string(step);
            f.evidence.insert(f.evidence.begin(), o.evidence.begin(), o.evidence.end());
            f.fix = "Reduce the memory this rank needs at that moment; the other findings name the cause. First aid: "
                    "a smaller per-device batch (per_device_train_batch_size / micro-batch size) with more "
                    "gradient_accumulation_steps, and PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> oom()
{
    return std::make_unique<OomRule>();
}

} // namespace rs::rules
