// allocator-fragmentation: the caching allocator holds memory it cannot use. Evidence: an OOM
// whose reserved-but-unallocated memory would have covered the request, large non-releasable
// memory in a memory_summary, a large reserved − allocated gap at the peak under pressure, or
// cudaMalloc retries (the allocator had to free its cache and try again).

#include "rules.h"

#include <algorithm>

namespace rs::rules {

namespace {

constexpr std::int64_t GiB = 1LL << 30;

class AllocatorFragmentationRule final : public FindingRule
{
public:
    std::string_view id() const override { return "allocator-fragmentation"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        const auto &ooms = ctx.ooms;
        for (const RankMetrics &m : ctx.metrics) {
            Finding f;
            f.ranks = {m.rank};
            Severity sev = Severity::Info;
            const std::int64_t cap = ctx.capacity(m.rank);
            const OomInfo *oom = nullptr;
            for (const OomInfo &o : ooms)
                if (o.rank == m.rank)
                    oom = &o;
            const bool pressure = oom || (cap > 0 && m.peakReservedBytes && *m.peakReservedBytes >= cap * 85 / 100);
            if (oom && oom->event && oom->event->reserved >= 0 && oom->event->allocated >= 0) {
                const std::int64_t idle = oom->event->reserved - oom->event->allocated;
                if (oom->event->requested > 0 && idle >= oom->event->requested) {
                    sev = Severity::High;
                    f.evidence.push_back(ctx.evidence(*oom->event));
                    f.evidence.push_back(ctx.derived(m.rank, formatBytes(idle) + " was reserved but unallocated when "
                                                                 + formatBytes(oom->event->requested)
                                                                 + " was requested: the free memory was split into pieces too small"));
                    f.timeNs = oom->alignedTime != kNoTime ? std::optional<TimeNs>(oom->alignedTime) : std::nullopt;
                } else if (cap > 0 && idle >= cap / 10) {
                    sev = std::max(sev, Severity::Medium);
                    f.evidence.push_back(ctx.derived(m.rank, formatBytes(idle) + " reserved but unallocated at the OOM"));
                }
            }
            for (const MemorySummary &s : ctx.session.memorySummaries()) {
                if (s.rank != m.rank)
                    continue;
                const MemorySummaryRow *nr = s.row("Non-releasable memory");
                const MemorySummaryRow *res = s.row("GPU reserved memory");
                const std::string where = ctx.session.sources()[s.source].path + ":" + std::to_string(s.line);
                if (nr && res && nr->current >= GiB && nr->current * 10 >= res->current) {
                    sev = std::max(sev, pressure ? Severity::Medium : Severity::Low);
                    f.evidence.push_back(ctx.derived(m.rank, where + ": memory_summary shows " + formatBytes(nr->current)
                                                                 + " non-releasable of " + formatBytes(res->current) + " reserved"));
                }
                if (s.allocRetries > 0) {
                    sev = std::max(sev, pressure ? Severity::Medium : Severity::Low);
                    f.evidence.push_back(ctx.derived(m.rank, where + ": " + std::to_string(s.allocRetries)
                                                                 + " cudaMalloc retries (the allocator emptied its cache to find room)"));
                }
            }
            if (pressure && m.fragmentationBytes && m.peakReservedBytes && *m.fragmentationBytes >= 2 * GiB
                && *m.fragmentationBytes * 100 >= *m.peakReservedBytes * 15) {
                sev = std::max(sev, Severity::Medium);
                f.evidence.push_back(ctx.derived(m.rank, "at the allocated peak, " + formatBytes(*m.fragmentationBytes)
                                                             + " was reserved but not allocated",
                                                 m.peakTimeNs));
                if (!f.timeNs)
                    f.timeNs = m.peakTimeNs;
            }
            if (f.evidence.empty())
                continue;
            f.severity = sev;
            f.title = "Rank " + std::to_string(m.rank) + "'s caching allocator is fragmented";
            f.fix = "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch >= 2.1) so freed blocks can be merged; "
                    "on older versions use PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512. Call torch.cuda.empty_cache() "
                    "after evaluation or checkpoint saves that allocate differently shaped tensors.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> allocatorFragmentation()
{
    return std::make_unique<AllocatorFragmentationRule>();
}

} // namespace rs::rules
