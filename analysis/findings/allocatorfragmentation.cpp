// allocator-fragmentation: the caching allocator holds memory it cannot use. Evidence:
//  - an OOM whose reserved-but-unallocated memory would have covered the request (before it
//    fails, the allocator frees every cached segment it can: what stays is split, unusable);
//  - large non-releasable memory (free blocks inside split segments) in a memory_summary or a
//    snapshot;
//  - a large reserved − allocated gap when allocated peaked (trace counters at that moment, or the
//    Peak columns of a memory_summary), under memory pressure or larger than the healthy peers';
//  - cudaMalloc retries, only as support, or alone when nothing tells the gap.
// Severity follows the evidence: High only when the idle memory could have served the failed
// request, or when non-releasable memory is large against the GPU or the healthy peers under
// memory pressure; retries alone are Low. A rank that held less reserved-but-unallocated memory
// than its healthy peers (same kind of reading) is not fragmented, whatever else it shows, unless
// its own OOM proves it.
// What a memory_summary holds when printed is not evidence: after an OOM (or between steps) the
// tensors are freed and their memory stays cached, so Cur Usage shows reserved ≫ allocated in a
// healthy allocator. Only the peaks say how much was held beyond what was ever in use.

#include "rules.h"

#include "statistics.h"

#include <algorithm>

namespace rs::rules {

namespace {

constexpr std::int64_t GiB = 1LL << 30;

// A gap that matters on its own: at least 2 GiB and 15 % of what was reserved.
bool largeGap(std::int64_t idle, std::int64_t reserved)
{
    return idle >= 2 * GiB && idle * 100 >= reserved * 15;
}

class AllocatorFragmentationRule final : public FindingRule
{
public:
    std::string_view id() const override { return "allocator-fragmentation"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        const auto &ooms = ctx.ooms;
        auto oomOf = [&](RankId rank) -> const OomInfo * {
            for (const OomInfo &o : ooms)
                if (o.rank == rank)
                    return &o;
            return nullptr;
        };
        for (const RankMetrics &m : ctx.metrics) {
            Finding f;
            f.ranks = {m.rank};
            Severity sev = Severity::Info;
            const std::int64_t cap = ctx.capacity(m.rank);
            const OomInfo *oom = oomOf(m.rank);
            const bool pressure = oom || (cap > 0 && m.peakReservedBytes && *m.peakReservedBytes >= cap * 85 / 100);
            const Severity weight = pressure ? Severity::Medium : Severity::Low;

            // The gap no larger than the healthy peers' is how this job allocates: only the OOM's
            // own numbers (idle memory that would have served the request) can still show
            // fragmentation then.
            const bool underPeers = gapUnderPeers(ctx, m, oomOf);
            if (oom && oom->event && oom->event->reserved >= 0 && oom->event->allocated >= 0) {
                const std::int64_t idle = oom->event->reserved - oom->event->allocated;
                if (oom->event->requested > 0 && idle >= oom->event->requested) {
                    sev = Severity::High;
                    f.evidence.push_back(ctx.evidence(*oom->event));
                    f.evidence.push_back(ctx.derived(m.rank, formatBytes(idle) + " was reserved but unallocated when "
                                                                 + formatBytes(oom->event->requested)
                                                                 + " was requested: the free memory was split into pieces too small"));
                    f.timeNs = oom->alignedTime != kNoTime ? std::optional<TimeNs>(oom->alignedTime) : std::nullopt;
                } else if (cap > 0 && idle >= cap / 10 && !underPeers) {
                    sev = std::max(sev, Severity::Medium);
                    f.evidence.push_back(ctx.derived(m.rank, formatBytes(idle) + " reserved but unallocated at the OOM"));
                }
            }

            // Non-releasable memory is fragmentation itself; each figure against the reserved
            // memory of the same moment (Cur with Cur, Peak with Peak).
            for (const MemorySummary &s : ctx.session.memorySummaries()) {
                if (s.rank != m.rank)
                    continue;
                const MemorySummaryRow *nr = s.row("Non-releasable memory");
                const MemorySummaryRow *res = s.row("GPU reserved memory");
                if (!nr || !res)
                    continue;
                const std::string where = ctx.session.sources()[s.source].evidencePath() + ":" + std::to_string(s.line);
                const bool now = nr->current >= GiB && nr->current * 10 >= res->current;
                const bool atPeak = nr->peak >= GiB && res->peak > 0 && nr->peak * 10 >= res->peak;
                if ((now || atPeak) && !underPeers) {
                    const std::int64_t v = now ? nr->current : nr->peak, of = now ? res->current : res->peak;
                    sev = std::max(sev, pressure && nonReleasableLarge(ctx, m, v, oomOf) ? Severity::High : weight);
                    f.evidence.push_back(ctx.derived(m.rank, where + ": memory_summary shows " + formatBytes(v) + " non-releasable of "
                                                                 + formatBytes(of) + " reserved" + (now ? "" : " (peaks)")));
                }
            }
            const bool summarised = std::any_of(ctx.session.memorySummaries().begin(), ctx.session.memorySummaries().end(),
                                                [&](const MemorySummary &s) { return s.rank == m.rank; });
            if (!summarised && !underPeers && m.nonReleasableBytes && m.peakReservedBytes
                && *m.nonReleasableBytes >= GiB && *m.nonReleasableBytes * 10 >= *m.peakReservedBytes) {
                sev = std::max(sev, pressure && nonReleasableLarge(ctx, m, *m.nonReleasableBytes, oomOf) ? Severity::High : weight);
                f.evidence.push_back(ctx.derived(m.rank, "the allocator snapshot shows " + formatBytes(*m.nonReleasableBytes)
                                                             + " free inside split segments (non-releasable) of "
                                                             + formatBytes(*m.peakReservedBytes) + " reserved"));
            }

            // The gap when allocated peaked, weighed against the healthy peers that read it from the
            // same kind of evidence: a gap every rank shares is how this job allocates.
            const Gap gap = gapOf(ctx, m, oomOf);
            if (gap.known && gap.large && !underPeers) {
                sev = std::max(sev, weight);
                std::string text = gapText(m, gap);
                if (gap.peers > 0)
                    text += " (median of " + std::to_string(gap.peers) + " healthy peers: " + formatBytes(gap.peerMedian) + ")";
                f.evidence.push_back(ctx.derived(m.rank, text, m.fragmentationSource == MemorySource::Trace ? m.peakTimeNs : std::nullopt));
                if (!f.timeNs && m.fragmentationSource == MemorySource::Trace)
                    f.timeNs = m.peakTimeNs;
            }

            // Retries: the allocator found no cached block that fit, freed its cache and tried
            // cudaMalloc again. Under pressure that is normal; with a small gap it says nothing more,
            // and alone it is a hint (Low), not a diagnosis.
            for (const MemorySummary &s : ctx.session.memorySummaries()) {
                if (s.rank != m.rank || s.allocRetries <= 0)
                    continue;
                const std::string where = ctx.session.sources()[s.source].evidencePath() + ":" + std::to_string(s.line);
                const std::string text = where + ": " + std::to_string(s.allocRetries)
                    + " cudaMalloc retries (the allocator emptied its cache to find room)";
                if (!f.evidence.empty())
                    f.evidence.push_back(ctx.derived(m.rank, text));
                else if (!gap.known && !underPeers) {
                    sev = std::max(sev, Severity::Low);
                    f.evidence.push_back(ctx.derived(m.rank, text));
                }
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

private:
    // Reserved − allocated of `m` no larger than the median of its healthy peers', compared on the
    // best kind of reading both have (a memory_summary's peaks are not a trace's moment).
    template <typename OomOf>
    static bool gapUnderPeers(const RuleContext &ctx, const RankMetrics &m, OomOf &&oomOf)
    {
        for (const MemoryReading &own : m.memoryReadings) {
            if (!own.idleBytes)
                continue;
            std::vector<double> peers;
            for (const RankMetrics &p : ctx.metrics)
                if (p.rank != m.rank && !oomOf(p.rank))
                    for (const MemoryReading &r : p.memoryReadings)
                        if (r.source == own.source && r.idleBytes)
                            peers.push_back(double(*r.idleBytes));
            if (!peers.empty())
                return double(*own.idleBytes) <= median(peers);
        }
        return false;
    }

    // Non-releasable memory that is large against the GPU (>= 10 % of it) or against the healthy
    // peers (twice their median and a GiB more).
    template <typename OomOf>
    static bool nonReleasableLarge(const RuleContext &ctx, const RankMetrics &m, std::int64_t bytes, OomOf &&oomOf)
    {
        const std::int64_t cap = ctx.capacity(m.rank);
        if (cap > 0 && bytes * 10 >= cap)
            return true;
        std::vector<double> peers;
        for (const RankMetrics &p : ctx.metrics)
            if (p.rank != m.rank && !oomOf(p.rank) && (p.nonReleasableBytes || p.nonReleasablePeakBytes))
                peers.push_back(double(std::max(p.nonReleasableBytes.value_or(0), p.nonReleasablePeakBytes.value_or(0))));
        if (peers.empty())
            return false;
        const double med = median(peers);
        return double(bytes) >= 2 * med && double(bytes) - med >= double(GiB);
    }

    struct Gap {
        bool known = false;   // the rank's reserved − allocated at its peak (or at the OOM) is known
        bool large = false;   // and it is fragmentation: large, under pressure or beyond the peers
        int peers = 0;        // healthy peers with the same kind of reading
        std::int64_t peerMedian = 0;
        std::int64_t reserved = 0;  // reserved of the same reading
        std::int64_t allocated = 0; // allocated of the same reading
    };

    template <typename OomOf>
    static Gap gapOf(const RuleContext &ctx, const RankMetrics &m, OomOf &&oomOf)
    {
        Gap g;
        if (!m.fragmentationBytes)
            return g;
        g.known = true;
        if (m.fragmentationSource == MemorySource::OomMessage)
            return g; // the OOM's own numbers are weighed against its request above
        for (const MemoryReading &r : m.memoryReadings)
            if (r.source == m.fragmentationSource && r.reservedBytes) {
                g.reserved = *r.reservedBytes;
                g.allocated = r.allocatedBytes.value_or(0);
            }
        if (g.reserved <= 0 || !largeGap(*m.fragmentationBytes, g.reserved))
            return g;
        std::vector<double> peers;
        for (const RankMetrics &p : ctx.metrics)
            if (p.rank != m.rank && p.fragmentationBytes && p.fragmentationSource == m.fragmentationSource && !oomOf(p.rank))
                peers.push_back(double(*p.fragmentationBytes));
        g.peers = int(peers.size());
        if (!peers.empty()) {
            g.peerMedian = std::int64_t(median(peers));
            // Twice the peers' gap and a GiB more: beyond what this job's allocation pattern leaves.
            g.large = *m.fragmentationBytes >= 2 * g.peerMedian && *m.fragmentationBytes - g.peerMedian >= GiB;
            return g;
        }
        const std::int64_t cap = ctx.capacity(m.rank);
        g.large = oomOf(m.rank) || (cap > 0 && m.peakReservedBytes && *m.peakReservedBytes >= cap * 85 / 100);
        return g;
    }

    static std::string gapText(const RankMetrics &m, const Gap &g)
    {
        const std::string idle = formatBytes(*m.fragmentationBytes);
        switch (m.fragmentationSource) {
        case MemorySource::MemorySummary:
            return "memory_summary Peak Usage: " + formatBytes(g.reserved) + " reserved, " + formatBytes(g.allocated)
                + " allocated: up to " + idle
                + " was held beyond the most ever in use";
        case MemorySource::Snapshot:
            return "in the allocator snapshot, " + idle + " of " + formatBytes(g.reserved) + " reserved is not allocated";
        default: return "at the allocated peak, " + idle + " was reserved but not allocated";
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> allocatorFragmentation()
{
    return std::make_unique<AllocatorFragmentationRule>();
}

} // namespace rs::rules
