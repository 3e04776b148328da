// nccl-buffer-memory: memory went to communication. An OOM inside a c10d collective or reported by
// NCCL itself, or a large NCCL_BUFFSIZE on a rank under memory pressure.

#include "rules.h"

#include <algorithm>
#include <cstdlib>

namespace rs::rules {

namespace {

constexpr std::int64_t kDefaultBuffSize = 4LL << 20;

class NcclBufferMemoryRule final : public FindingRule
{
public:
    std::string_view id() const override { return "nccl-buffer-memory"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        const auto &ooms = ctx.ooms;
        for (const OomInfo &o : ooms) {
            if (!o.duringCollective && !o.ncclOom)
                continue;
            Finding f;
            f.ranks = {o.rank};
            f.severity = Severity::High;
            if (o.alignedTime != kNoTime)
                f.timeNs = o.alignedTime;
            f.title = "Rank " + std::to_string(o.rank) + " ran out of memory inside a collective";
            f.evidence = o.evidence;
            f.fix = fixText();
            out.push_back(std::move(f));
        }
        // Large buffers: one finding for every rank that set them (a job sets them for all ranks),
        // medium when one of those ranks is short of memory.
        std::vector<RankId> flagged;
        Finding f;
        f.severity = Severity::Low;
        std::int64_t largest = 0;
        for (const NcclSetting &s : ctx.session.logs().settings) {
            if (s.name != "NCCL_BUFFSIZE" || s.rank < 0)
                continue;
            const std::int64_t v = std::strtoll(s.value.c_str(), nullptr, 10);
            if (v <= kDefaultBuffSize || std::find(flagged.begin(), flagged.end(), s.rank) != flagged.end())
                continue;
            const RankMetrics *m = ctx.metricsOf(s.rank);
            const std::int64_t cap = ctx.capacity(s.rank);
            const bool oomed = std::any_of(ooms.begin(), ooms.end(), [&](const OomInfo &o) { return o.rank == s.rank; });
            const bool pressure = oomed || (m && m->peakReservedBytes && cap > 0 && *m->peakReservedBytes >= cap * 85 / 100);
            largest = std::max(largest, v);
            if (f.evidence.size() < 8)
                for (const LogRecord &r : ctx.session.logs().records)
                    if (r.rank == s.rank && r.line == s.line && (r.flags & LogFlagNcclSetting)) {
                        f.evidence.push_back(ctx.evidence(r));
                        break;
                    }
            if (pressure) {
                f.severity = Severity::Medium;
                f.evidence.push_back(ctx.derived(s.rank, "rank " + std::to_string(s.rank)
                                                             + " is short of memory (OOM or reserved >= 85% of the GPU)"));
            }
            flagged.push_back(s.rank);
        }
        if (flagged.empty())
            return;
        std::sort(flagged.begin(), flagged.end());
        f.ranks = flagged;
        f.title = "NCCL_BUFFSIZE is " + formatBytes(largest) + " (default 4 MiB) on " + rankList(flagged);
        f.fix = fixText();
        out.push_back(std::move(f));
    }

private:
    static std::string fixText()
    {
        return "Give communication less memory: unset NCCL_BUFFSIZE or lower it towards the 4194304 default, lower "
               "DDP's bucket_cap_mb (default 25) or FSDP's limit_all_gathers=True, and keep NCCL_NCHANNELS_PER_PEER / "
               "NCCL_MAX_NCHANNELS at their defaults.";
    }
};

} // namespace

std::unique_ptr<FindingRule> ncclBufferMemory()
{
    return std::make_unique<NcclBufferMemoryRule>();
}

} // namespace rs::rules
