// collective-desync: ranks disagree on which collectives they run, or hang in one. The finding's
// ranks are the CULPRITS (DESIGN.md §3): the rank that never reached the collective its peers wait
// on (lower progress, its watchdog silent while theirs fire), the one whose SeqNum lags, the one
// that ran another op or size at the same SeqNum. The waiting ranks, what they wait on and the
// culprit's last records are the evidence. When every rank waits with equal progress no rank can
// be blamed: ranks stay empty and the init/network evidence is shown instead.

#include "rules.h"

#include "collectiveprogress.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace rs::rules {

namespace {

bool has(const std::vector<RankId> &v, RankId r)
{
    return std::find(v.begin(), v.end(), r) != v.end();
}

void addUnique(std::vector<RankId> &v, RankId r)
{
    if (!has(v, r))
        v.insert(std::upper_bound(v.begin(), v.end(), r), r);
}

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
    const std::string path = n.source < ctx.session.sources().size() ? ctx.session.sources()[n.source].path : std::string();
    std::optional<TimeNs> at;
    if (n.time != kNoTime)
        at = ctx.aligned(n.rank, n.time);
    return ctx.derived(n.rank, n.text, at, path);
}

// A hang in one process group: who waits on what, and who never got there.
struct Hang {
    std::string group;
    std::int64_t seq = -1;             // the SeqNum most waiting ranks wait on (-1: unknown)
    std::string op;                    // its op as the waiting ranks report it
    std::vector<RankId> waiting;       // reported a timeout on `seq`
    std::vector<RankId> behind;        // known progress below `seq` (or waited on an earlier one)
    std::vector<RankId> ahead;         // waited on a later SeqNum
    std::vector<RankId> silent;        // no report and nothing says it got there; has output
    std::vector<RankId> absent;        // a member (world size) with no output at all
    std::int64_t lag = 0;              // largest distance of a behind rank below `seq`
    std::vector<Evidence> why;         // per culprit: what says it is behind
};

// The first SeqNum of a group at which ranks ran different ops or sizes (one kind of evidence).
struct Mismatch {
    std::string group;
    std::int64_t seq = -1;
    std::vector<RankId> odd;           // not in the majority (all of them when there is none)
    std::vector<RankId> majority;
    std::string oddRan, majorityRan;   // what each side ran, as the evidence spells it
    std::vector<Evidence> evidence;
};

std::string ranWhat(const CollectiveOp &o)
{
    return o.op + (o.sizesMustMatch && !o.sizes.empty() ? " (" + o.sizes + ")" : std::string());
}

std::optional<Mismatch> firstMismatch(const RuleContext &ctx, const CollectiveProgress &p, const std::string &group)
{
    for (const GroupSeqOps &g : p.seqs()) {
        if (g.group != group)
            continue;
        std::map<ProgressKind, std::map<std::string, std::vector<const CollectiveOp *>>> byKind;
        for (const CollectiveOp &o : g.ops) {
            std::string sig = o.opKey;
            if (o.sizesMustMatch)
                sig += "|" + o.sizes + "|" + o.dtypes;
            byKind[o.kind][sig].push_back(&o);
        }
        for (const auto &[kind, sigs] : byKind) {
            if (sigs.size() < 2)
                continue;
            auto best = sigs.begin();
            bool tie = false;
            for (auto it = sigs.begin(); it != sigs.end(); ++it) {
                if (it->second.size() > best->second.size()) {
                    best = it;
                    tie = false;
                } else if (it != best && it->second.size() == best->second.size()) {
                    tie = true;
                }
            }
            Mismatch m;
            m.group = group;
            m.seq = g.seq;
            for (const auto &[sig, ops] : sigs)
                for (const CollectiveOp *o : ops) {
                    if (!tie && sig == best->first) {
                        addUnique(m.majority, o->rank);
                        m.majorityRan = ranWhat(*o);
                    } else {
                        addUnique(m.odd, o->rank);
                        if (m.oddRan.empty())
                            m.oddRan = ranWhat(*o);
                    }
                    m.evidence.push_back(noteEvidence(ctx, o->note));
                }
            if (tie) {
                m.oddRan.clear();
                for (const auto &[sig, ops] : sigs) {
                    std::vector<RankId> rs;
                    for (const CollectiveOp *o : ops)
                        addUnique(rs, o->rank);
                    m.oddRan += (m.oddRan.empty() ? "" : ", ") + rankList(rs) + " ran " + ranWhat(*ops.front());
                }
            }
            return m;
        }
    }
    return std::nullopt;
}

// Every rank waits with the same SeqNum (or the log never said which): NCCL's own op counter on
// the first communicator of each rank can still show one that issued fewer calls.
void behindByOpCount(const RuleContext &ctx, const CollectiveProgress &p, const std::vector<RankId> &members, Hang &h)
{
    std::map<RankId, const CallProgress *> first;
    for (const CallProgress &c : p.calls())
        if (c.slot == 0 && has(members, c.rank))
            first[c.rank] = &c;
    if (first.size() < 2 || first.size() != members.size())
        return;
    std::map<std::uint64_t, int> votes;
    for (const auto &[r, c] : first)
        ++votes[c->lastOpCount];
    std::uint64_t majority = 0;
    int best = 0;
    for (const auto &[count, n] : votes)
        if (n >= best) {
            best = n;
            majority = count;
        }
    for (const auto &[r, c] : first) {
        if (c->lastOpCount >= majority)
            continue;
        h.behind.push_back(r);
        h.waiting.erase(std::remove(h.waiting.begin(), h.waiting.end(), r), h.waiting.end());
        const auto hex = [](std::uint64_t v) {
            char buf[24];
            std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
            return std::string(buf);
        };
        h.why.push_back(ctx.derived(r, "rank " + std::to_string(r) + "'s last NCCL call has opCount " + hex(c->lastOpCount) + " where "
                                           + std::to_string(best) + " of " + std::to_string(first.size()) + " ranks reached "
                                           + hex(majority)));
        h.why.push_back(noteEvidence(ctx, c->note));
    }
}

Hang findHang(const RuleContext &ctx, const CollectiveProgress &p, const std::string &group,
              const std::vector<RankId> &recordWaiters)
{
    Hang h;
    h.group = group;
    std::map<std::int64_t, int> votes;
    std::map<std::int64_t, std::map<std::string, int>> ops;
    for (RankId r : p.members(group)) {
        const RankProgress *pr = p.progress(r, group);
        if (pr && pr->waitingOn >= 0) {
            ++votes[pr->waitingOn];
            ++ops[pr->waitingOn][pr->waitingOp];
        }
    }
    for (const auto &[seq, n] : votes)
        if (h.seq < 0 || n >= votes[h.seq]) // ties: the later SeqNum (the earlier one is behind)
            h.seq = seq;
    if (h.seq >= 0) {
        int best = 0;
        for (const auto &[op, n] : ops[h.seq])
            if (!op.empty() && n > best) {
                best = n;
                h.op = op;
            }
    }
    const auto &withLogs = p.ranksWithLogs();
    for (RankId r : p.members(group)) {
        const RankProgress *pr = p.progress(r, group);
        const bool reported = (pr && (pr->waitingOn >= 0 || pr->watchdogReported)) || (group == "0" && has(recordWaiters, r));
        if (pr && pr->waitingOn >= 0 && h.seq >= 0 && pr->waitingOn != h.seq) {
            if (pr->waitingOn < h.seq) {
                h.behind.push_back(r);
                h.lag = std::max(h.lag, h.seq - pr->waitingOn);
            } else {
                h.ahead.push_back(r);
            }
            h.why.push_back(noteEvidence(ctx, pr->waitingNote));
            continue;
        }
        if (reported) {
            h.waiting.push_back(r);
            continue;
        }
        if (pr && pr->reached >= 0 && h.seq >= 0) {
            if (pr->reached >= h.seq)
                continue; // it got there (and waits without a report of its own)
            if (!pr->reachedIsLowerBound) {
                h.behind.push_back(r);
                h.lag = std::max(h.lag, h.seq - pr->reached);
                Evidence e = noteEvidence(ctx, pr->reachedNote);
                h.why.push_back(std::move(e));
                continue;
            }
        } else if (pr && pr->reached >= 0 && !pr->reachedIsLowerBound) {
            continue; // progress known but nothing to compare it with
        }
        if (has(withLogs, r) || pr)
            h.silent.push_back(r);
        else
            h.absent.push_back(r);
    }
    if (h.behind.empty() && h.silent.empty() && h.absent.empty() && h.ahead.empty())
        behindByOpCount(ctx, p, p.members(group), h);
    return h;
}

// The last lines a rank wrote before its peers' first report (what it was doing then); NCCL INFO
// chatter is skipped.
std::vector<Evidence> lastLines(const RuleContext &ctx, RankId rank, TimeNs before, std::size_t n)
{
    std::vector<const LogRecord *> mine;
    for (const LogRecord &r : ctx.session.logs().records) {
        if (r.rank != rank || (r.kind == LogKind::Nccl && r.level == LogLevel::Info) || (r.flags & LogFlagNcclInit))
            continue;
        if (before != kNoTime && r.time != kNoTime && ctx.aligned(r.rank, r.time) > before)
            continue;
        mine.push_back(&r);
    }
    std::vector<Evidence> out;
    for (std::size_t i = mine.size() > n ? mine.size() - n : 0; i < mine.size(); ++i)
        out.push_back(ctx.evidence(*mine[i]));
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
        const bool isNet = r.text.find("NET/") != std::string::npos || r.text.find("Using network") != std::string::npos;
        std::string body = r.text.substr(r.text.find("NCCL") == std::string::npos ? 0 : r.text.find("NCCL"));
        if (!seen.insert(body).second)
            continue;
        if ((r.flags & LogFlagNcclInit) && init < 2 && r.text.find("COMPLETE") != std::string::npos)
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
    std::optional<Hang> hang;
    for (const std::string &g : p.groups()) {
        Hang h = findHang(ctx, p, g, recordWaiters);
        if (h.waiting.empty() && h.behind.empty() && h.ahead.empty())
            continue;
        if (!hang || h.waiting.size() > hang->waiting.size())
            hang = std::move(h);
    }
    if (!hang && !recordWaiters.empty()) {
        hang = findHang(ctx, p, "0", recordWaiters);
    }

    Finding f;
    std::vector<RankId> culprits;
    // The first SeqNum at which ranks ran different ops: in the hung group, or in any group.
    std::optional<Mismatch> mismatch;
    if (hang)
        mismatch = firstMismatch(ctx, p, hang->group);
    else
        for (const std::string &g : p.groups())
            if (!mismatch)
                mismatch = firstMismatch(ctx, p, g);

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
        Hang &h = *hang;
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
            if (!waiters.empty())
                f.title += "; " + waiters;
            f.evidence = mismatch->evidence;
            f.fix = "The ranks called different collectives at the same point: a rank-dependent branch, a different "
                    "config or data shape on " + rankList(mismatch->odd) + ". Make every rank call the same collectives in the "
                    "same order with the same shapes and dtypes; TORCH_DISTRIBUTED_DEBUG=DETAIL checks each call." + fr;
        } else if (!h.behind.empty() || !h.silent.empty() || !h.absent.empty() || !h.ahead.empty()) {
            for (RankId r : h.behind)
                addUnique(culprits, r);
            for (RankId r : h.silent)
                addUnique(culprits, r);
            if (culprits.empty())
                culprits = h.absent.empty() ? h.ahead : h.absent;
            const std::string who = capital(rankList(culprits));
            if (!h.behind.empty() && h.lag > 1 && h.silent.empty())
                f.title = who + plural(culprits, " lags ", " lag ") + std::to_string(h.lag) + " collectives behind"
                    + (waiters.empty() ? std::string() : ": " + waiters + " on " + what);
            else if (culprits == h.ahead)
                f.title = who + plural(culprits, " is", " are") + " ahead of " + what + (waiters.empty() ? std::string() : " that " + waiters + " on");
            else
                f.title = who + " never reached " + what + (waiters.empty() ? std::string() : ": " + waiters + " for " + plural(culprits, "it", "them"));
            f.evidence = h.why;
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
            for (Evidence &e : mismatch->evidence)
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
