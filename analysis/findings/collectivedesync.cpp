// collective-desync: ranks disagree on which collectives they run, or hang in one. The finding's
// ranks are the CULPRITS (DESIGN.md §3): the rank that never reached the collective its peers wait
// on (lower progress, its watchdog silent while theirs fire), the one whose SeqNum lags, the one
// that ran another op or size at the same SeqNum. The waiting ranks, what they wait on and the
// culprit's last records are the evidence. When every rank waits with equal progress no rank can
// be blamed: ranks stay empty and the init/network evidence is shown instead.

#include "rules.h"

#include "rankset.h"

#include "collectiveculprits.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace rs::rules {

namespace {

using rankset::addUnique;
using rankset::has;

std::string plural(const std::vector<RankId> &v, const char *one, const char *many)
{
    return v.size() == 1 ? one : many;
}

std::string capital(std::string s)
{
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z')
        s[0] = char(s[0] - 'a' + 'A');
    return s;
}

// The evidence line of a progress note: the log record itself when it came from one.
Evidence noteEvidence(const RuleContext &ctx, const ProgressNote &n)
{
    if (n.record >= 0 && std::size_t(n.record) < ctx.session.logs().records.size())
        return ctx.evidence(ctx.session.logs().records[std::size_t(n.record)]);
    const std::string path = n.source < ctx.session.sources().size() ? ctx.session.sources()[n.source].evidencePath() : std::string();
    std::optional<TimeNs> at;
    if (n.time != kNoTime)
        at = ctx.aligned(n.rank, n.time);
    return ctx.derived(n.rank, n.text, at, path);
}

// The last lines a rank wrote before its peers' first report (what it was doing then), with its
// last error among them; NCCL INFO chatter and the rows of printed tables are skipped.
std::vector<Evidence> lastLines(const RuleContext &ctx, RankId rank, TimeNs before, std::size_t n)
{
    std::vector<const LogRecord *> mine;
    const LogRecord *lastError = nullptr;
    for (const LogRecord &r : ctx.session.logs().records) {
        if (r.rank != rank || (r.kind == LogKind::Nccl && r.level == LogLevel::Info) || (r.flags & LogFlagNcclInit))
            continue;
        if (before != kNoTime && r.time != kNoTime && ctx.aligned(r.rank, r.time) > before)
            continue;
        const std::string_view text = ctx.session.logs().text(r);
        const std::size_t lead = text.find_first_not_of(' ');
        if (lead == std::string::npos || text[lead] == '|' || text[lead] == '=' || text.compare(lead, 3, "---") == 0)
            continue;
        mine.push_back(&r);
        if (r.level == LogLevel::Error)
            lastError = &r;
    }
    std::vector<const LogRecord *> pick(mine.size() > n ? mine.end() - std::ptrdiff_t(n) : mine.begin(), mine.end());
    if (lastError && std::find(pick.begin(), pick.end(), lastError) == pick.end()) {
        if (!pick.empty() && pick.size() >= n)
            pick.erase(pick.begin());
        pick.insert(pick.begin(), lastError);
    }
    std::vector<Evidence> out;
    for (const LogRecord *r : pick)
        out.push_back(ctx.evidence(*r));
    return out;
}

// The last collective each kind of evidence saw `rank` run in `group`, and its last NCCL call.
std::vector<Evidence> lastCollective(const RuleContext &ctx, const CollectiveProgress &p, RankId rank, const std::string &group)
{
    std::map<ProgressKind, const CollectiveOp *> last;
    for (const GroupSeqOps &g : p.seqs())
        if (g.group == group)
            for (const CollectiveOp &o : g.ops)
                if (o.rank == rank && o.kind != ProgressKind::Watchdog)
                    last[o.kind] = &o; // seqs are sorted: the last one wins
    std::vector<Evidence> out;
    for (const auto &[kind, o] : last) {
        ProgressNote n = o->note;
        n.text = "last collective of rank " + std::to_string(rank) + ": " + n.text;
        out.push_back(noteEvidence(ctx, n));
    }
    for (const CallProgress &c : p.calls())
        if (c.rank == rank && c.slot == 0)
            out.push_back(noteEvidence(ctx, c.note)); // the COLL line itself
    return out;
}

// Lines about NCCL's setup and the network, for a hang no rank can be blamed for.
std::vector<Evidence> initEvidence(const RuleContext &ctx)
{
    std::vector<Evidence> out;
    std::set<RankId> initDone;
    for (const NcclCommInfo &c : ctx.session.logs().comms)
        if (c.complete)
            initDone.insert(c.rank);
    int init = 0, net = 0, settings = 0, warns = 0;
    std::set<std::string> seen;
    for (const LogRecord &r : ctx.session.logs().records) {
        if (r.kind != LogKind::Nccl)
            continue;
        const std::string_view text = ctx.session.logs().text(r);
        const bool isNet = text.find("NET/") != std::string::npos || text.find("Using network") != std::string::npos;
        std::string body(text.substr(text.find("NCCL") == std::string::npos ? 0 : text.find("NCCL")));
        if (!seen.insert(body).second)
            continue;
        if ((r.flags & LogFlagNcclInit) && init < 2 && text.find("COMPLETE") != std::string::npos)
            ++init, out.push_back(ctx.evidence(r));
        else if (r.level == LogLevel::Warning && warns < 4)
            ++warns, out.push_back(ctx.evidence(r));
        else if ((r.flags & LogFlagNcclSetting) && settings < 4)
            ++settings, out.push_back(ctx.evidence(r));
        else if (isNet && net < 3)
            ++net, out.push_back(ctx.evidence(r));
    }
    if (!initDone.empty())
        out.insert(out.begin(), ctx.derived(kJobLevel, std::to_string(initDone.size()) + " ranks logged NCCL Init COMPLETE"));
    return out;
}

class CollectiveDesyncRule final : public FindingRule
{
public:
    std::string_view id() const override { return "collective-desync"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override;
};

void CollectiveDesyncRule::evaluate(const RuleContext &ctx, std::vector<Finding> &out) const
{
    const CollectiveProgress p = CollectiveProgress::gather(ctx.session);
    // Timeout lines the importer could not read into a report still say the rank waited.
    std::vector<RankId> recordWaiters;
    std::vector<const LogRecord *> waitRecords;
    for (const LogRecord &r : ctx.session.logs().records)
        if (r.flags & (LogFlagWatchdogTimeout | LogFlagDesync)) {
            waitRecords.push_back(&r);
            if (r.rank >= 0 && (r.flags & LogFlagWatchdogTimeout))
                addUnique(recordWaiters, r.rank);
        }

    // The hang: the group where most ranks report waiting.
    std::optional<HangVerdict> hang = CollectiveCulprits::hang(p, recordWaiters);

    Finding f;
    std::vector<RankId> culprits;
    // The first SeqNum at which ranks ran different ops: in the hung group, or in any group.
    std::optional<MismatchVerdict> mismatch;
    if (hang)
        mismatch = CollectiveCulprits::firstMismatch(p, hang->group);
    else
        for (const std::string &g : p.groups())
            if (!mismatch)
                mismatch = CollectiveCulprits::firstMismatch(p, g);
    std::vector<Evidence> mismatchEvidence;
    if (mismatch)
        for (const ProgressNote &n : mismatch->notes)
            mismatchEvidence.push_back(noteEvidence(ctx, n));

    // Steps in which a rank issued a different number of collectives than the majority.
    std::vector<RankId> oddSteps;
    std::vector<Evidence> stepEvidence;
    std::optional<TimeNs> stepTime;
    const auto &counts = p.collectivesPerStep();
    if (counts.size() >= 2) {
        std::set<std::int64_t> common;
        for (const auto &[step, n] : counts.begin()->second)
            common.insert(step);
        for (const auto &[rank, steps] : counts) {
            std::set<std::int64_t> both;
            for (std::int64_t s : common)
                if (steps.count(s))
                    both.insert(s);
            common = both;
        }
        for (std::int64_t step : common) {
            std::map<int, int> freq;
            for (const auto &[rank, steps] : counts)
                ++freq[steps.at(step)];
            const auto majority = std::max_element(freq.begin(), freq.end(), [](const auto &a, const auto &b) { return a.second < b.second; });
            if (majority->second * 2 <= int(counts.size()) || freq.size() == 1)
                continue;
            for (const auto &[rank, steps] : counts) {
                if (steps.at(step) == majority->first)
                    continue;
                addUnique(oddSteps, rank);
                std::optional<TimeNs> at;
                for (const Step &st : ctx.session.rank(rank)->steps)
                    if (st.number == step)
                        at = ctx.aligned(rank, st.range.begin);
                stepEvidence.push_back(ctx.derived(rank, "step " + std::to_string(step) + ": rank " + std::to_string(rank) + " issued "
                                                             + std::to_string(steps.at(step)) + " collectives where "
                                                             + std::to_string(majority->second) + " of " + std::to_string(counts.size())
                                                             + " ranks issued " + std::to_string(majority->first),
                                                   at));
                if (!stepTime)
                    stepTime = at;
            }
        }
    }

    if (!hang && !mismatch && oddSteps.empty())
        return;

    const std::string fr = " For the next hang set TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 (a "
                           "flight-recorder dump per rank shows each rank's last collectives) and TORCH_NCCL_DESYNC_DEBUG=1.";
    if (hang) {
        const HangVerdict &h = *hang;
        f.severity = Severity::High;
        const std::string what = (h.op.empty() ? std::string("the collective") : h.op) + (h.seq >= 0 ? " SeqNum " + std::to_string(h.seq) : "");
        // The first report of a waiting rank times the finding (the earliest).
        TimeNs firstWait = kNoTime;
        std::vector<Evidence> waitEvidence;
        for (RankId r : h.waiting) {
            const RankProgress *pr = p.progress(r, h.group);
            if (pr && pr->waitingOn >= 0) {
                Evidence e = noteEvidence(ctx, pr->waitingNote);
                if (e.timeNs && (firstWait == kNoTime || *e.timeNs < firstWait))
                    firstWait = *e.timeNs;
                waitEvidence.push_back(std::move(e));
            } else {
                for (const LogRecord *rec : waitRecords)
                    if (rec->rank == r) {
                        Evidence e = ctx.evidence(*rec);
                        if (e.timeNs && (firstWait == kNoTime || *e.timeNs < firstWait))
                            firstWait = *e.timeNs;
                        waitEvidence.push_back(std::move(e));
                        break;
                    }
            }
        }
        const std::string waiters = h.waiting.empty() ? std::string() : rankList(h.waiting) + " timed out waiting";
        if (mismatch && (h.seq < 0 || mismatch->seq <= h.seq)) {
            culprits = mismatch->odd;
            f.title = capital(rankList(mismatch->odd)) + (mismatch->majority.empty() ? " disagree at SeqNum " + std::to_string(mismatch->seq) + ": " + mismatch->oddRan
                                                                                      : " ran " + mismatch->oddRan + " at SeqNum " + std::to_string(mismatch->seq)
                                                                                          + " where " + rankList(mismatch->majority) + " ran " + mismatch->majorityRan);
            // The odd ranks wait too, in the op nobody else runs; the title names the others.
            std::vector<RankId> others;
            for (RankId r : h.waiting)
                if (!has(mismatch->odd, r))
                    others.push_back(r);
            if (!others.empty())
                f.title += "; " + rankList(others) + " timed out waiting";
            f.evidence = mismatchEvidence;
            f.fix = "The ranks called different collectives at the same point: a rank-dependent branch, a different "
                    "config or data shape on " + rankList(mismatch->odd) + ". Make every rank call the same collectives in the "
                    "same order with the same shapes and dtypes; TORCH_DISTRIBUTED_DEBUG=DETAIL checks each call." + fr;
        } else if (!h.behind.empty() || !h.silent.empty() || !h.absent.empty() || !h.ahead.empty()) {
            culprits = h.culprits();
            const std::string who = capital(rankList(culprits));
            if (!h.behind.empty() && h.lag > 1 && h.silent.empty())
                f.title = who + plural(culprits, " lags ", " lag ") + std::to_string(h.lag) + " collectives behind"
                    + (waiters.empty() ? std::string() : ": " + waiters + " on " + what);
            else if (culprits == h.ahead)
                f.title = who + plural(culprits, " is", " are") + " ahead of " + what + (waiters.empty() ? std::string() : " that " + waiters + " on");
            else
                f.title = who + " never reached " + what + (waiters.empty() ? std::string() : ": " + waiters + " for " + plural(culprits, "it", "them"));
            for (const ProgressNote &n : h.why)
                f.evidence.push_back(noteEvidence(ctx, n));
            for (RankId r : h.silent)
                f.evidence.push_back(ctx.derived(r, "rank " + std::to_string(r) + " reported no watchdog timeout on " + what
                                                        + " while its peers did: it never enqueued it (a rank waiting in it times out too)"));
            if (culprits == h.absent)
                for (RankId r : h.absent)
                    f.evidence.push_back(ctx.derived(r, "rank " + std::to_string(r) + " of " + std::to_string(p.worldSize())
                                                            + " left no output in these files: it never reported the wait (or its log is missing)"));
            for (RankId r : culprits) {
                for (Evidence &e : lastCollective(ctx, p, r, h.group))
                    f.evidence.push_back(std::move(e));
                for (Evidence &e : lastLines(ctx, r, firstWait, 3))
                    f.evidence.push_back(std::move(e));
            }
            f.fix = capital(rankList(culprits)) + " stopped before the collective " + plural(culprits, "its", "their")
                + " peers wait on: read what " + plural(culprits, "it", "they") + " did last (the lines above: a stalled data "
                  "loader or filesystem, an exception, a rank-dependent branch or early exit that skips the collective) and "
                  "make every rank issue the same collectives." + fr;
        } else {
            const bool first = h.seq >= 0 && h.seq <= 1;
            f.title = first ? "Every rank timed out on " + what + ", the first collective: no rank can be blamed; NCCL could not "
                              "move data (init or network)"
                            : "Every rank waits on " + what + " with equal progress: no rank can be blamed from this evidence";
            f.evidence = initEvidence(ctx);
            f.fix = std::string(first ? "No rank fell behind: the first collective never completed anywhere, so the communicator "
                                        "never worked. "
                                      : "No rank fell behind: the collective itself never completed. ")
                + "Check the network NCCL chose (the NET/ and setting lines above: NCCL_SOCKET_IFNAME, NCCL_IB_HCA, the net "
                  "plugin, firewalls between nodes), run nccl-tests across the same nodes, and rerun with NCCL_DEBUG=INFO "
                  "NCCL_DEBUG_SUBSYS=INIT,NET." + fr;
        }
        for (Evidence &e : waitEvidence)
            f.evidence.push_back(std::move(e));
        if (firstWait != kNoTime)
            f.timeNs = firstWait;
        // Deaths of waiting ranks follow their watchdog (it takes the process down): consequences.
        for (const ChildFailure &c : ctx.session.logs().failures)
            if (c.rank >= 0 && f.evidence.size() < 24)
                f.evidence.push_back(ctx.derived(c.rank, c.launcher + ": rank " + std::to_string(c.rank) + " exited"
                                                             + (c.signal.empty() ? " with code " + std::to_string(c.exitCode) : " on " + c.signal)
                                                             + (has(h.waiting, c.rank) ? " after its watchdog timeout" : "")
                                                             + (c.rootCause ? " (reported as the first failure)" : ""),
                                                 c.time != kNoTime ? std::optional<TimeNs>(ctx.aligned(c.rank, c.time)) : std::nullopt));
    } else {
        f.severity = Severity::Medium;
        for (RankId r : oddSteps)
            addUnique(culprits, r);
        if (mismatch)
            for (RankId r : mismatch->odd)
                addUnique(culprits, r);
        f.title = "Ranks disagree on the collectives they run (" + rankList(culprits) + " differs)";
        f.evidence = stepEvidence;
        if (mismatch) {
            f.evidence.push_back(ctx.derived(mismatch->odd.front(), "SeqNum " + std::to_string(mismatch->seq) + ": " + rankList(mismatch->odd)
                                                                        + " ran " + mismatch->oddRan
                                                                        + (mismatch->majority.empty() ? std::string() : " where " + rankList(mismatch->majority) + " ran " + mismatch->majorityRan)));
            for (Evidence &e : mismatchEvidence)
                f.evidence.push_back(std::move(e));
        }
        f.timeNs = stepTime;
        if (!f.timeNs)
            for (const Evidence &e : f.evidence)
                if (e.timeNs && (!f.timeNs || *e.timeNs < *f.timeNs))
                    f.timeNs = e.timeNs;
        f.fix = "Find the rank that skipped or added a collective (" + rankList(culprits) + ") and make every rank take the same "
                "code path with the same number of batches." + fr;
    }
    if (hang)
        for (Evidence &e : stepEvidence)
            f.evidence.push_back(std::move(e));
    for (const LogRecord *r : waitRecords)
        if ((r->flags & LogFlagDesync) && f.evidence.size() < 24)
            f.evidence.push_back(ctx.evidence(*r));
    if (!f.timeNs)
        for (const Evidence &e : f.evidence)
            if (e.timeNs && (!f.timeNs || *e.timeNs < *f.timeNs))
                f.timeNs = e.timeNs;
    if (f.evidence.empty())
        for (const LogRecord *r : waitRecords)
            f.evidence.push_back(ctx.evidence(*r));
    // One line once: a mismatch's report is also a waiting rank's.
    std::set<std::string> seen;
    f.evidence.erase(std::remove_if(f.evidence.begin(), f.evidence.end(), [&](const Evidence &e) { return !seen.insert(e.text).second; }),
                     f.evidence.end());
    if (f.evidence.size() > 24)
        f.evidence.resize(24);
    f.ranks = culprits;
    out.push_back(std::move(f));
}

} // namespace

std::unique_ptr<FindingRule> collectiveDesync()
{
    return std::make_unique<CollectiveDesyncRule>();
}

} // namespace rs::rules
