// activation-memory: activations dominate the peak. The largest rise of allocated memory on a
// rank under memory pressure happens inside a forward pass and makes up a large part of the peak:
// memory climbs through forward (activations kept for backward) and falls in backward.

#include "rules.h"

#include <algorithm>
#include <cctype>

namespace rs::rules {

namespace {

bool mentionsForward(std::string_view s)
{
    std::string lower(s);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return lower.find("forward") != std::string::npos;
}

class ActivationMemoryRule final : public FindingRule
{
public:
    std::string_view id() const override { return "activation-memory"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        const auto ooms = collectOoms(ctx);
        for (const RankMetrics &m : ctx.metrics) {
            if (!m.peakAllocatedBytes || *m.peakAllocatedBytes <= 0)
                continue;
            const bool oomed = std::any_of(ooms.begin(), ooms.end(), [&](const OomInfo &o) { return o.rank == m.rank; });
            const std::int64_t cap = ctx.capacity(m.rank);
            const bool pressure = oomed || (cap > 0 && *m.peakAllocatedBytes >= cap * 85 / 100);
            if (!pressure)
                continue;
            const Spike *top = nullptr;
            for (const Spike &s : ctx.spikes)
                if (s.rank == m.rank && (!top || s.bytes > top->bytes))
                    top = &s;
            if (!top || !mentionsForward(top->attributedTo) || top->bytes * 10 < *m.peakAllocatedBytes * 3)
                continue;
            Finding f;
            f.ranks = {m.rank};
            f.severity = oomed ? Severity::High : Severity::Medium;
            f.timeNs = top->timeNs;
            f.endNs = top->timeNs + top->durationNs;
            f.title = "Activations drive rank " + std::to_string(m.rank) + "'s memory peak: +" + formatBytes(top->bytes)
                + " during the forward pass" + (top->step >= 0 ? " of step " + std::to_string(top->step) : std::string());
            f.evidence.push_back(ctx.derived(m.rank, "allocated memory rose by " + formatBytes(top->bytes) + " in "
                                                         + formatDuration(top->durationNs) + " while running " + top->attributedTo,
                                             top->timeNs, top->source));
            std::string peak = "peak allocated " + formatBytes(*m.peakAllocatedBytes);
            if (cap > 0)
                peak += " of " + formatBytes(cap) + " (" + std::to_string(*m.peakAllocatedBytes * 100 / cap) + "%)";
            f.evidence.push_back(ctx.derived(m.rank, peak, m.peakTimeNs));
            f.fix = "Trade compute for memory: enable activation checkpointing (model.gradient_checkpointing_enable(), "
                    "gradient_checkpointing=True in HF TrainingArguments, or torch.utils.checkpoint), or halve the "
                    "micro-batch and double gradient_accumulation_steps; autocast to bf16 halves activation size.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> activationMemory()
{
    return std::make_unique<ActivationMemoryRule>();
}

} // namespace rs::rules
