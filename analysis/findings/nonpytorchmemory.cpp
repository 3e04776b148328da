// non-pytorch-memory: the GPU holds much more than PyTorch reserved (CUDA context, NCCL buffers,
// another process). Three measures, the largest wins:
//   * nvidia-smi memory.used minus the reserved counter of the same rank at that instant. When no
//     nvidia-smi sample falls inside the trace (a sidecar sampling every 15 s around a 3 s trace),
//     the nearest sample within kNearestLimit is compared with the trace's peak reserved, which can
//     only make the gap smaller; the evidence says how far apart they were.
//   * the OOM text ("this process has X memory in use") minus the reserved it states.
//   * the memory of other processes that nvidia-smi lists on the rank's GPU (compute-apps rows or
//     the table's Processes). One listing is one host at one moment, so processes are weighed per
//     source: several files of several hosts can map one GPU index to one rank without those
//     processes sharing a GPU. The rank's own process is the one with its pid (trace or NCCL
//     line); without such a match the largest process is taken as its own, so the others' sum is
//     a lower bound.

#include "rules.h"

#include <algorithm>
#include <map>
#include <set>

namespace rs::rules {

namespace {

constexpr std::int64_t GiB = 1LL << 30;
constexpr TimeNs kNearestLimit = 120LL * 1000000000LL;

struct CounterGap {
    std::int64_t bytes = 0;
    TimeNs at = kNoTime;
    std::string text;
    std::string path;
};

// The largest memory.used − reserved of rank `r` from counters.
CounterGap counterGap(const RuleContext &ctx, const Rank &r)
{
    CounterGap best;
    const auto &tracks = ctx.session.tracks();
    const auto &sources = ctx.session.sources();
    for (TrackId uid : r.tracks) {
        const Track &used = tracks[uid];
        if (used.kind != TrackKind::GpuMemoryUsed || used.counter.empty())
            continue;
        const auto &ut = used.counter.times;
        for (TrackId rid : r.tracks) {
            const Track &res = tracks[rid];
            if (res.kind != TrackKind::MemoryReserved || res.device < 0 || res.counter.empty())
                continue;
            // Numbered samples of a clock-less file and wall-clock samples share no axis.
            if (sources[used.source].hasClock != sources[res.source].hasClock)
                continue;
            const TimeNs lo = res.counter.times.front(), hi = res.counter.times.back();
            bool inside = false;
            for (std::size_t i = 0; i < used.counter.size(); ++i) {
                const TimeNs t = ut[i];
                if (t < lo || t > hi)
                    continue;
                inside = true;
                const auto it = std::upper_bound(res.counter.times.begin(), res.counter.times.end(), t);
                const double reserved = res.counter.values[std::size_t(it - res.counter.times.begin()) - 1];
                const auto gap = static_cast<std::int64_t>(used.counter.values[i] - reserved);
                if (gap > best.bytes) {
                    best.bytes = gap;
                    best.at = t;
                    best.path = sources[used.source].evidencePath();
                    best.text = "nvidia-smi memory.used " + formatBytes(std::int64_t(used.counter.values[i])) + " while PyTorch reserved "
                        + formatBytes(std::int64_t(reserved));
                }
            }
            if (inside)
                continue;
            const double peak = *std::max_element(res.counter.values.begin(), res.counter.values.end());
            const auto after = std::size_t(std::lower_bound(ut.begin(), ut.end(), lo) - ut.begin());
            for (std::size_t i : {after - 1, after}) { // the sample just before the trace, the one just after
                if (i >= ut.size())
                    continue;
                const TimeNs apart = ut[i] < lo ? lo - ut[i] : ut[i] - hi;
                const auto gap = static_cast<std::int64_t>(used.counter.values[i] - peak);
                if (apart > kNearestLimit || gap <= best.bytes)
                    continue;
                best.bytes = gap;
                best.at = ut[i];
                best.path = sources[used.source].evidencePath();
                best.text = "nvidia-smi memory.used " + formatBytes(std::int64_t(used.counter.values[i])) + " at the sample nearest the trace, "
                    + formatDuration(apart) + (ut[i] < lo ? " before its first" : " after its last")
                    + " reserved sample, while PyTorch reserved at most " + formatBytes(std::int64_t(peak));
            }
        }
    }
    return best;
}

struct Sharing {
    std::int64_t bytes = 0;                   // memory of the other processes
    std::vector<const GpuProcess *> others;   // largest first
    const GpuProcess *assumedOwn = nullptr;   // set when no pid matched the rank
};

// Other processes on rank `r`'s GPU, per listing (source); the listing with the most memory wins.
Sharing sharing(const RuleContext &ctx, const Rank &r)
{
    std::set<std::int64_t> pids;
    for (TrackId id : r.tracks) {
        const Track &t = ctx.session.tracks()[id];
        if (t.kind == TrackKind::CpuThread && t.pid > 0)
            pids.insert(t.pid);
    }
    for (const NcclCommInfo &c : ctx.session.logs().comms)
        if (c.rank == r.id && c.pid > 0)
            pids.insert(c.pid);
    // source → pid → the row with the most memory for that pid (a listing may repeat over time)
    std::map<SourceId, std::map<std::int64_t, const GpuProcess *>> bySource;
    for (const GpuProcess &p : ctx.session.gpus().processes) {
        if (p.rank != r.id || p.pid <= 0)
            continue;
        const GpuProcess *&slot = bySource[p.source][p.pid];
        if (!slot || p.usedMemory > slot->usedMemory)
            slot = &p;
    }
    Sharing best;
    for (const auto &[source, procs] : bySource) {
        std::vector<const GpuProcess *> list;
        for (const auto &[pid, p] : procs)
            list.push_back(p);
        std::sort(list.begin(), list.end(), [](const GpuProcess *a, const GpuProcess *b) { return a->usedMemory > b->usedMemory; });
        Sharing s;
        const bool matched = std::any_of(list.begin(), list.end(), [&](const GpuProcess *p) { return pids.count(p->pid) > 0; });
        if (!matched && list.size() < 2)
            continue; // one process, not known to be another: most likely the rank itself
        for (const GpuProcess *p : list) {
            if (matched ? pids.count(p->pid) > 0 : p == list.front()) {
                if (!matched)
                    s.assumedOwn = p;
                continue;
            }
            s.others.push_back(p);
            s.bytes += std::max<std::int64_t>(0, p->usedMemory);
        }
        if (s.bytes > best.bytes)
            best = std::move(s);
    }
    return best;
}

Evidence processEvidence(const RuleContext &ctx, const GpuProcess &p, const std::string &note = {})
{
    Evidence e;
    e.path = p.source < ctx.session.sources().size() ? ctx.session.sources()[p.source].evidencePath() : std::string();
    e.line = p.line > 0 ? p.line : -1;
    e.rank = p.rank;
    const std::string what = "pid " + std::to_string(p.pid) + " " + (p.name.empty() ? std::string("(no name)") : p.name) + " uses "
        + (p.usedMemory >= 0 ? formatBytes(p.usedMemory) : std::string("an unreported amount")) + " of GPU"
        + (p.index >= 0 ? " " + std::to_string(p.index) : std::string()) + note;
    e.text = (e.line > 0 ? e.path + ":" + std::to_string(e.line) : e.path) + ": " + what;
    if (p.time != kNoTime)
        e.timeNs = ctx.aligned(p.rank, p.time);
    return e;
}

class NonPytorchMemoryRule final : public FindingRule
{
public:
    std::string_view id() const override { return "non-pytorch-memory"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        const auto &ooms = ctx.ooms;
        for (const Rank &r : ctx.session.ranks()) {
            const std::int64_t cap = ctx.capacity(r.id);
            Finding f;
            std::int64_t worst = 0;
            const CounterGap gap = counterGap(ctx, r);
            if (gap.bytes > 0) {
                worst = gap.bytes;
                f.timeNs = ctx.aligned(r.id, gap.at);
                f.evidence.push_back(ctx.derived(r.id, gap.text, f.timeNs, gap.path));
            }
            for (const OomInfo &o : ooms)
                if (o.rank == r.id && o.event && o.event->processInUse > 0 && o.event->reserved > 0) {
                    const std::int64_t g = o.event->processInUse - o.event->reserved;
                    if (g > worst) {
                        worst = g;
                        f.evidence.push_back(ctx.evidence(*o.event));
                    }
                }
            const Sharing shared = sharing(ctx, r);
            const std::int64_t threshold = std::max<std::int64_t>(2 * GiB, cap / 10);
            if (std::max(worst, shared.bytes) < threshold)
                continue;
            for (const GpuProcess *p : shared.others)
                if (f.evidence.size() < 8)
                    f.evidence.push_back(processEvidence(ctx, *p));
            if (shared.assumedOwn)
                f.evidence.push_back(processEvidence(ctx, *shared.assumedOwn,
                                                     " (no listed pid is one rank " + std::to_string(r.id)
                                                         + " is known to run; the largest process is taken as its own)"));
            const bool oomed = std::any_of(ooms.begin(), ooms.end(), [&](const OomInfo &o) { return o.rank == r.id; });
            f.ranks = {r.id};
            f.severity = oomed ? Severity::Medium : Severity::Low;
            if (!shared.others.empty() && shared.bytes >= threshold) {
                const GpuProcess &p = *shared.others.front();
                f.title = "Rank " + std::to_string(r.id) + "'s GPU" + (p.index >= 0 ? " " + std::to_string(p.index) : std::string())
                    + " is shared with " + (p.name.empty() ? std::string("a process") : p.name) + ", pid " + std::to_string(p.pid) + ", "
                    + formatBytes(std::max<std::int64_t>(0, p.usedMemory));
                if (shared.others.size() > 1)
                    f.title += ", and " + std::to_string(shared.others.size() - 1) + " more (" + formatBytes(shared.bytes) + " in all)";
                f.fix = "Move the other process off this GPU (or this rank off it: CUDA_VISIBLE_DEVICES), or cap both: "
                        "torch.cuda.set_per_process_memory_fraction() for PyTorch, the other program's own memory limit "
                        "(e.g. vLLM's --gpu-memory-utilization).";
            } else {
                f.title = "Rank " + std::to_string(r.id) + "'s GPU holds " + formatBytes(worst) + " that PyTorch did not allocate";
                f.fix = "Leave headroom for memory outside PyTorch: lower NCCL_BUFFSIZE / the number of NCCL channels, "
                        "cap PyTorch with torch.cuda.set_per_process_memory_fraction(), and look for another process on the "
                        "GPU with nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv.";
            }
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
