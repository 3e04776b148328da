// activation-memory: activations dominate the peak. The largest rise of allocated memory on a
// rank under memory pressure happens inside a forward pass and makes up a large part of the peak:
// memory climbs through forward (activations kept for backward) and falls in backward.
//
// "Inside a forward pass": the spike is attributed to a forward (DDP's forward, a module's
// forward), or, in traces without such a span (no DDP, no with_stack/with_modules: the rise is
// charged to plain aten ops), it is not a backward or optimizer op and autograd's backward ops
// run right after its peak.

#include "memoryspikes.h"
#include "rules.h"

#include <algorithm>
#include <cctype>

namespace rs::rules {

namespace {

std::string lowered(std::string_view s)
{
    std::string lower(s);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return lower;
}

// Autograd's backward ops ("MmBackward0", "autograd::engine::evaluate_function: ...Backward0")
// start on the rank's host threads within `window` after the peak.
bool backwardFollows(const RuleContext &ctx, const Spike &s, TimeNs window)
{
    const Rank *r = ctx.session.rank(s.rank);
    if (!r)
        return false;
    const TimeNs peak = s.timeNs + s.durationNs - ctx.aligned(s.rank, 0); // on the rank's clock
    // A summary answered this on the full trace when it was written (for this very window).
    for (TrackId id : r->tracks) {
        const Track &t = ctx.session.tracks()[id];
        if (const SummaryFacts *facts = ctx.session.sources()[t.source].summary.get();
            facts && t.kind == TrackKind::MemoryAllocated)
            if (const SummaryFacts::Rise *rise = facts->riseAt(SummaryFacts::localTrack(ctx.session.tracks(), id), peak))
                return rise->backwardAfterNs && *rise->backwardAfterNs < window;
    }
    return MemorySpikes::backwardAfter(ctx.session, *r, peak, window).has_value();
}

bool forwardRise(const RuleContext &ctx, const Spike &s)
{
    const std::string what = lowered(s.attributedTo);
    if (what.find("forward") != std::string::npos)
        return true;
    if (what.empty() || what.find("backward") != std::string::npos || what.find("optimizer") != std::string::npos)
        return false;
    return backwardFollows(ctx, s, MemorySpikes::backwardWindow(s.durationNs));
}

class ActivationMemoryRule final : public FindingRule
{
public:
    std::string_view id() const override { return "activation-memory"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        const auto &ooms = ctx.ooms;
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
            if (!top || !forwardRise(ctx, *top) || top->bytes * 10 < *m.peakAllocatedBytes * 3)
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
