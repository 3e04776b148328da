#include "rulecontext.h"

#include "oomincidents.h"

#include <algorithm>
#include <map>
#include <set>
#include <cmath>
#include <cstdio>

namespace rs {

TimeNs RuleContext::aligned(RankId rank, TimeNs t) const
{
    if (t == kNoTime)
        return kNoTime;
    for (const RankAlignment &a : alignment)
        if (a.rank == rank)
            return t + a.offsetNs;
    return t;
}

const RankMetrics *RuleContext::metricsOf(RankId rank) const
{
    for (const RankMetrics &m : metrics)
        if (m.rank == rank)
            return &m;
    return nullptr;
}

std::vector<const Divergence *> RuleContext::divergences(std::string_view metric) const
{
    std::vector<const Divergence *> out;
    for (const Divergence &d : divergent)
        if (d.metric == metric)
            out.push_back(&d);
    return out;
}

std::int64_t RuleContext::capacity(RankId rank) const
{
    const RankMetrics *m = metricsOf(rank);
    return m && m->capacityBytes ? *m->capacityBytes : 0;
}

std::int64_t RuleContext::stepAt(RankId rank, TimeNs t) const
{
    const Rank *r = session.rank(rank);
    if (!r || t == kNoTime)
        return -1;
    for (const Step &s : r->steps)
        if (s.range.contains(t))
            return s.number;
    return -1;
}

Evidence RuleContext::evidence(const LogRecord &r) const
{
    Evidence e;
    e.path = r.source < session.sources().size() ? session.sources()[r.source].evidencePath() : std::string();
    e.line = r.line;
    e.rank = r.rank;
    std::string text(session.logs().text(r));
    if (text.size() > 300)
        text = text.substr(0, 297) + "...";
    e.text = e.path + ":" + std::to_string(r.line) + ": " + text;
    if (r.time != kNoTime)
        e.timeNs = aligned(r.rank, r.time);
    return e;
}

Evidence RuleContext::evidence(const OomEvent &o) const
{
    Evidence e;
    e.path = o.source < session.sources().size() ? session.sources()[o.source].evidencePath() : std::string();
    e.line = o.line > 0 ? o.line : -1;
    e.rank = o.rank;
    std::string text = o.text;
    if (text.size() > 300)
        text = text.substr(0, 297) + "...";
    e.text = e.line > 0 ? e.path + ":" + std::to_string(e.line) + ": " + text : e.path + ": " + text;
    if (o.time != kNoTime)
        e.timeNs = aligned(o.rank, o.time);
    return e;
}

void RuleContext::gather(Finding &f, const LogRecord &r, std::size_t maxEvidence) const
{
    if (!f.timeNs && r.time != kNoTime && r.rank >= 0)
        f.timeNs = aligned(r.rank, r.time);
    if (r.rank >= 0 && std::find(f.ranks.begin(), f.ranks.end(), r.rank) == f.ranks.end()) {
        f.ranks.insert(std::upper_bound(f.ranks.begin(), f.ranks.end(), r.rank), r.rank);
    }
    if (f.evidence.size() < maxEvidence)
        f.evidence.push_back(evidence(r));
}

Evidence RuleContext::derived(RankId rank, std::string text, std::optional<TimeNs> alignedTime, std::string path) const
{
    Evidence e;
    e.rank = rank;
    e.path = std::move(path);
    e.text = e.path.empty() ? std::move(text) : e.path + ": " + text;
    e.timeNs = alignedTime;
    return e;
}

std::vector<OomInfo> collectOoms(const RuleContext &ctx)
{
    std::map<RankId, OomInfo> byRank;
    const Session &session = ctx.session;
    auto pathOf = [&](SourceId id) { return id < session.sources().size() ? session.sources()[id].evidencePath() : std::string(); };
    auto richness = [](const OomEvent *x) { return (x->requested >= 0) + (x->capacity >= 0) + (x->reserved >= 0); };
    // One OomInfo per rank over its incidents (OomIncidents decides which pieces are one failure).
    for (const RankOoms &ro : OomIncidents::find(session)) {
        OomInfo &o = byRank[ro.rank];
        o.rank = ro.rank;
        o.count = ro.count;
        for (const OomIncident &inc : ro.incidents) {
            if (inc.time != kNoTime && (o.rankTime == kNoTime || inc.time < o.rankTime)) {
                o.rankTime = inc.time;
                o.alignedTime = ctx.aligned(ro.rank, inc.time);
            }
            for (std::size_t i : inc.messages) {
                const OomEvent &e = session.ooms()[i];
                if (!o.event || richness(&e) > richness(o.event))
                    o.event = &e;
                o.evidence.push_back(ctx.evidence(e));
            }
            for (const auto &[track, index] : inc.instants) {
                const Track &t = session.tracks()[track];
                const TimeNs at = t.instants[index].time;
                o.evidence.push_back(ctx.derived(ro.rank, "[OutOfMemory] recorded by the profiler", ctx.aligned(ro.rank, at),
                                                 pathOf(t.source)));
            }
            for (std::size_t i : inc.records) {
                const LogRecord &r = session.logs().records[i];
                o.evidence.push_back(ctx.evidence(r));
                if (r.kind == LogKind::Nccl)
                    o.ncclOom = true;
            }
            // A table that counts more OOMs than the messages kept, or that is the only word of
            // one, is evidence; one printed after its message and counting just it adds nothing.
            for (std::size_t i : inc.summaries) {
                const MemorySummary &s = session.memorySummaries()[i];
                if (s.oom >= 0 && s.ooms <= 1 && !inc.messages.empty())
                    continue;
                o.evidence.push_back(ctx.derived(ro.rank, pathOf(s.source) + ":" + std::to_string(s.line) + ": memory_summary counts "
                                                              + std::to_string(s.ooms) + (s.ooms == 1 ? " CUDA OOM" : " CUDA OOMs"),
                                                 s.time != kNoTime ? std::optional<TimeNs>(ctx.aligned(ro.rank, s.time)) : std::nullopt));
            }
        }
    }
    std::vector<OomInfo> out;
    for (auto &[rank, o] : byRank) {
        // In a collective = inside the c10d call on the host (kernels run asynchronously, so a
        // kernel in flight says nothing about who asked for the memory).
        if (const Rank *r = ctx.session.rank(rank); r && o.rankTime != kNoTime) {
            for (TrackId id : r->tracks) {
                const Track &t = ctx.session.tracks()[id];
                if (t.kind != TrackKind::CpuThread)
                    continue;
                for (std::uint16_t d = 0; d < t.levelCount(); ++d) {
                    const auto [lo, hi] = t.levelRange(d, o.rankTime, o.rankTime + 1);
                    for (auto i = lo; i < hi; ++i) {
                        const std::string_view name = ctx.session.str(t.spans[i].name);
                        if (name == "record_param_comms" || name.rfind("c10d::", 0) == 0 || name.rfind("nccl:", 0) == 0)
                            o.duringCollective = true;
                    }
                }
            }
        }
        out.push_back(std::move(o));
    }
    return out;
}

std::string formatBytes(std::int64_t bytes)
{
    const double b = double(bytes);
    const double a = std::abs(b);
    char buf[48];
    if (a >= double(1LL << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", b / double(1LL << 30));
    else if (a >= double(1LL << 20))
        std::snprintf(buf, sizeof buf, "%.0f MiB", b / double(1LL << 20));
    else if (a >= 1024)
        std::snprintf(buf, sizeof buf, "%.0f KiB", b / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    return buf;
}

std::string formatDuration(TimeNs ns)
{
    char buf[48];
    const double a = std::abs(double(ns));
    if (a >= 1e9)
        std::snprintf(buf, sizeof buf, "%.2f s", double(ns) / 1e9);
    else if (a >= 1e6)
        std::snprintf(buf, sizeof buf, "%.1f ms", double(ns) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.1f us", double(ns) / 1e3);
    return buf;
}

std::string rankList(const std::vector<RankId> &ranks)
{
    std::string out = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i)
        out += (i ? ", " : "") + std::to_string(ranks[i]);
    return out;
}

} // namespace rs
