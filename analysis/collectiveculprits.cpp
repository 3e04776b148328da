#include "collectiveculprits.h"

#include "rankset.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace rs {

namespace {

using rankset::addUnique;
using rankset::has;

std::string rankWords(const std::vector<RankId> &ranks)
{
    std::string out = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i)
        out += (i ? ", " : "") + std::to_string(ranks[i]);
    return out;
}

std::string ranWhat(const CollectiveOp &o)
{
    return o.op + (o.sizesMustMatch && !o.sizes.empty() ? " (" + o.sizes + ")" : std::string());
}

std::string hex(std::uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// Every rank waits with the same SeqNum (or the log never said which): NCCL's own op counter on
// the first communicator of each rank can still show one that issued fewer calls.
void behindByOpCount(const CollectiveProgress &p, const std::vector<RankId> &members, HangVerdict &h)
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
        ProgressNote why = c->note;
        why.record = -1;
        why.line = -1;
        why.text = "rank " + std::to_string(r) + "'s last NCCL call has opCount " + hex(c->lastOpCount) + " where " + std::to_string(best)
            + " of " + std::to_string(first.size()) + " ranks reached " + hex(majority);
        h.why.push_back(std::move(why));
        h.why.push_back(c->note);
    }
}

} // namespace

std::vector<RankId> HangVerdict::culprits() const
{
    std::vector<RankId> out;
    for (RankId r : behind)
        addUnique(out, r);
    for (RankId r : silent)
        addUnique(out, r);
    if (out.empty())
        out = absent.empty() ? ahead : absent;
    return out;
}

std::optional<HangVerdict> CollectiveCulprits::hang(const CollectiveProgress &p, const std::vector<RankId> &recordWaiters)
{
    std::optional<HangVerdict> best;
    for (const std::string &g : p.groups()) {
        HangVerdict h = hangIn(p, g, recordWaiters);
        if (h.waiting.empty() && h.behind.empty() && h.ahead.empty())
            continue;
        if (!best || h.waiting.size() > best->waiting.size())
            best = std::move(h);
    }
    if (!best && !recordWaiters.empty())
        best = hangIn(p, "0", recordWaiters);
    return best;
}

HangVerdict CollectiveCulprits::hangIn(const CollectiveProgress &p, const std::string &group, const std::vector<RankId> &recordWaiters)
{
    HangVerdict h;
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
    // The world of the files that carry the waiting reports: a silent rank must belong to it.
    std::int32_t hangWorld = 0;
    for (RankId r : p.members(group))
        if (const RankProgress *pr = p.progress(r, group); pr && pr->waitingOn >= 0 && pr->waitingOn == h.seq)
            hangWorld = std::max(hangWorld, p.sourceWorldSize(pr->waitingNote.source));
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
            h.why.push_back(pr->waitingNote);
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
                h.why.push_back(pr->reachedNote);
                continue;
            }
        } else if (pr && pr->reached >= 0 && !pr->reachedIsLowerBound) {
            continue; // progress known but nothing to compare it with
        }
        if (!p.inJobOf(r, hangWorld))
            continue; // another job's rank (a folder of unrelated logs)
        if (has(withLogs, r) || pr)
            h.silent.push_back(r);
        else
            h.absent.push_back(r);
    }
    if (h.behind.empty() && h.silent.empty() && h.absent.empty() && h.ahead.empty())
        behindByOpCount(p, p.members(group), h);
    return h;
}

std::optional<MismatchVerdict> CollectiveCulprits::firstMismatch(const CollectiveProgress &p, const std::string &group)
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
            MismatchVerdict m;
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
                    m.notes.push_back(o->note);
                }
            if (tie) {
                m.oddRan.clear();
                for (const auto &[sig, ops] : sigs) {
                    std::vector<RankId> rs;
                    for (const CollectiveOp *o : ops)
                        addUnique(rs, o->rank);
                    m.oddRan += (m.oddRan.empty() ? "" : ", ") + rankWords(rs) + " ran " + ranWhat(*ops.front());
                }
            }
            return m;
        }
    }
    return std::nullopt;
}

} // namespace rs
