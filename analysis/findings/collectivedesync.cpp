// collective-desync: ranks disagree on which collectives they run. Evidence: ProcessGroupNCCL
// watchdog timeouts (some rank never joined), desync reports, and steps in which one rank issued a
// different number of collectives than the ranks that agree.

#include "rules.h"

#include <algorithm>
#include <map>
#include <set>

namespace rs::rules {

namespace {

// Collective calls per step: c10d's record_param_comms host ops inside the step (the kernels run
// later, asynchronously), or, without those, the kernels that start inside it.
std::map<std::int64_t, int> perStep(const Session &s, const Rank &r)
{
    std::map<std::int64_t, int> out;
    for (const Step &st : r.steps) {
        int ops = 0;
        for (TrackId id : r.tracks) {
            const Track &t = s.tracks()[id];
            if (t.kind != TrackKind::CpuThread)
                continue;
            for (std::uint16_t d = 0; d < t.levelCount(); ++d) {
                const auto [lo, hi] = t.levelRange(d, st.range.begin, st.range.end);
                for (auto i = lo; i < hi; ++i)
                    if (t.spans[i].start >= st.range.begin && s.str(t.spans[i].name) == "record_param_comms")
                        ++ops;
            }
        }
        if (ops == 0)
            for (const Collective &c : s.collectives())
                if (c.rank == r.id && st.range.contains(c.start))
                    ++ops;
        out[st.number] = ops;
    }
    return out;
}

class CollectiveDesyncRule final : public FindingRule
{
public:
    std::string_view id() const override { return "collective-desync"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        Finding f;
        std::set<RankId> timedOut;
        for (const WatchdogTimeout &w : ctx.session.logs().timeouts)
            if (w.rank >= 0)
                timedOut.insert(w.rank);
        for (const LogRecord &r : ctx.session.logs().records)
            if ((r.flags & (LogFlagWatchdogTimeout | LogFlagDesync)) && f.evidence.size() < 8) {
                f.evidence.push_back(ctx.evidence(r));
                if (!f.timeNs && r.time != kNoTime && r.rank >= 0)
                    f.timeNs = ctx.aligned(r.rank, r.time);
            }
        // Per-step counts over the steps every rank recorded.
        std::map<RankId, std::map<std::int64_t, int>> counts;
        for (const Rank &r : ctx.session.ranks())
            if (!r.steps.empty())
                counts[r.id] = perStep(ctx.session, r);
        std::set<RankId> odd;
        if (counts.size() >= 2) {
            std::set<std::int64_t> common;
            for (const auto &[step, n] : counts.begin()->second)
                common.insert(step);
            for (const auto &[rank, steps] : counts) {
                std::set<std::int64_t> mine;
                for (const auto &[step, n] : steps)
                    mine.insert(step);
                std::set<std::int64_t> both;
                std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(), std::inserter(both, both.end()));
                common = both;
            }
            for (std::int64_t step : common) {
                std::map<int, int> freq;
                for (const auto &[rank, steps] : counts)
                    ++freq[steps.at(step)];
                const auto majority = std::max_element(freq.begin(), freq.end(),
                                                       [](const auto &a, const auto &b) { return a.second < b.second; });
                if (majority->second * 2 <= int(counts.size()) || freq.size() == 1)
                    continue;
                for (const auto &[rank, steps] : counts) {
                    if (steps.at(step) == majority->first)
                        continue;
                    odd.insert(rank);
                    const Rank *r = ctx.session.rank(rank);
                    std::optional<TimeNs> at;
                    for (const Step &st : r->steps)
                        if (st.number == step)
                            at = ctx.aligned(rank, st.range.begin);
                    f.evidence.push_back(ctx.derived(rank, "step " + std::to_string(step) + ": rank " + std::to_string(rank)
                                                               + " issued " + std::to_string(steps.at(step)) + " collectives where "
                                                               + std::to_string(majority->second) + " of " + std::to_string(counts.size())
                                                               + " ranks issued " + std::to_string(majority->first),
                                                     at));
                    if (!f.timeNs)
                        f.timeNs = at;
                }
            }
        }
        if (f.evidence.empty())
            return;
        std::set<RankId> ranks(odd);
        ranks.insert(timedOut.begin(), timedOut.end());
        f.ranks.assign(ranks.begin(), ranks.end());
        f.severity = timedOut.empty() ? Severity::Medium : Severity::High;
        if (!timedOut.empty()) {
            std::vector<RankId> waited(timedOut.begin(), timedOut.end());
            f.title = "Collectives hung: " + rankList(waited) + " timed out waiting";
            if (!odd.empty())
                f.title += " for " + rankList(std::vector<RankId>(odd.begin(), odd.end()));
        } else {
            f.title = "Ranks disagree on the collectives they run (" + rankList(std::vector<RankId>(odd.begin(), odd.end()))
                + " differs)";
        }
        for (const ChildFailure &c : ctx.session.logs().failures)
            if (c.rootCause)
                f.evidence.push_back(ctx.derived(c.rank, "torchrun: rank " + std::to_string(c.rank) + " failed first (exitcode "
                                                             + std::to_string(c.exitCode) + ")"));
        f.fix = "Find the rank that skipped or added a collective (the odd rank above, or the one that failed first) and "
                "make every rank take the same code path with the same number of batches. For a hang, run with "
                "TORCH_NCCL_DESYNC_DEBUG=1 and TORCH_NCCL_TRACE_BUFFER_SIZE=2000 to get a flight-recorder dump.";
        out.push_back(std::move(f));
    }
};

} // namespace

std::unique_ptr<FindingRule> collectiveDesync()
{
    return std::make_unique<CollectiveDesyncRule>();
}

} // namespace rs::rules
