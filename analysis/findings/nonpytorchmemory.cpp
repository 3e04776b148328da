// non-pytorch-memory: the GPU holds much more than PyTorch reserved (CUDA context, NCCL buffers,
// another process). Measured sample by sample: nvidia-smi memory.used minus the reserved counter
// of the same rank at that instant; or from the OOM text ("this process has X memory in use").

#include "rules.h"

#include <algorithm>

namespace rs::rules {

namespace {

constexpr std::int64_t GiB = 1LL << 30;

class NonPytorchMemoryRule final : public FindingRule
{
public:
    std::string_view id() const override { return "non-pytorch-memory"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        const auto &ooms = ctx.ooms;
        for (const Rank &r : ctx.session.ranks()) {
            const std::int64_t cap = ctx.capacity(r.id);
            std::int64_t worst = 0;
            TimeNs worstAt = kNoTime;
            std::string usedPath;
            double usedAtWorst = 0;
            for (TrackId uid : r.tracks) {
                const Track &used = ctx.session.tracks()[uid];
                if (used.kind != TrackKind::GpuMemoryUsed)
                    continue;
                for (TrackId rid : r.tracks) {
                    const Track &res = ctx.session.tracks()[rid];
                    if (res.kind != TrackKind::MemoryReserved || res.device < 0 || res.counter.empty())
                        continue;
                    for (std::size_t i = 0; i < used.counter.size(); ++i) {
                        const TimeNs t = used.counter.times[i];
                        if (t < res.counter.times.front() || t > res.counter.times.back())
                            continue;
                        const auto it = std::upper_bound(res.counter.times.begin(), res.counter.times.end(), t);
                        const double reserved = res.counter.values[std::size_t(it - res.counter.times.begin()) - 1];
                        const auto gap = static_cast<std::int64_t>(used.counter.values[i] - reserved);
                        if (gap > worst) {
                            worst = gap;
                            worstAt = t;
                            usedPath = ctx.session.sources()[used.source].path;
                            usedAtWorst = used.counter.values[i];
                        }
                    }
                }
            }
            Finding f;
            if (worst > 0) {
                f.evidence.push_back(ctx.derived(r.id, "nvidia-smi memory.used " + formatBytes(std::int64_t(usedAtWorst))
                                                           + " while PyTorch reserved " + formatBytes(std::int64_t(usedAtWorst) - worst),
                                                 ctx.aligned(r.id, worstAt), usedPath));
                f.timeNs = ctx.aligned(r.id, worstAt);
            }
            for (const OomInfo &o : ooms)
                if (o.rank == r.id && o.event && o.event->processInUse > 0 && o.event->reserved > 0) {
                    const std::int64_t gap = o.event->processInUse - o.event->reserved;
                    if (gap > worst) {
                        worst = gap;
                        f.evidence.push_back(ctx.evidence(*o.event));
                    }
                }
            const std::int64_t threshold = std::max<std::int64_t>(2 * GiB, cap / 10);
            if (worst < threshold)
                continue;
            const bool oomed = std::any_of(ooms.begin(), ooms.end(), [&](const OomInfo &o) { return o.rank == r.id; });
            f.ranks = {r.id};
            f.severity = oomed ? Severity::Medium : Severity::Low;
            f.title = "Rank " + std::to_string(r.id) + "'s GPU holds " + formatBytes(worst) + " that PyTorch did not allocate";
            f.fix = "Leave headroom for memory outside PyTorch: lower NCCL_BUFFSIZE / the number of NCCL channels, "
                    "cap PyTorch with torch.cuda.set_per_process_memory_fraction(), and look for another process on the "
                    "GPU with nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> nonPytorchMemory()
{
    return std::make_unique<NonPytorchMemoryRule>();
}

} // namespace rs::rules
