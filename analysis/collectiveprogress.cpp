#include "collectiveprogress.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <tuple>

namespace rs {

namespace {

// A watchdog counter far above the work it reports on is uninitialised memory (the importer drops
// the values it sees as such; a session built elsewhere may still carry them).
constexpr std::int64_t kMaxAhead = 1'000'000;

bool plausible(std::int64_t value, std::int64_t work)
{
    if (value < 0)
        return false;
    if (work >= 0)
        return value <= work || value - work <= kMaxAhead; // no overflow: both are non-negative
    return value < (std::int64_t(1) << 40);
}

std::string shapes(const std::vector<std::vector<std::int64_t>> &v)
{
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        s += i ? ", [" : "[";
        for (std::size_t j = 0; j < v[i].size(); ++j)
            s += (j ? ", " : "") + std::to_string(v[i][j]);
        s += "]";
    }
    return s + "]";
}

std::string joined(const std::vector<std::string> &v)
{
    std::string s;
    for (const std::string &x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

} // namespace

const char *progressKindName(ProgressKind k)
{
    switch (k) {
    case ProgressKind::FlightRecorder: return "flight recorder";
    case ProgressKind::FlightRecorderStatus: return "flight recorder pg_status";
    case ProgressKind::Watchdog: return "watchdog";
    case ProgressKind::WatchdogProgress: return "watchdog progress";
    case ProgressKind::Trace: return "trace";
    case ProgressKind::NcclCall: return "NCCL COLL";
    }
    return "";
}

std::string CollectiveProgress::groupKey(std::string_view name)
{
    if (name == "default_pg")
        return "0";
    return std::string(name);
}

std::string CollectiveProgress::opKey(std::string_view op)
{
    if (op.rfind("nccl:", 0) == 0)
        op.remove_prefix(5);
    std::string out;
    for (char c : op)
        if (c != '_')
            out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool CollectiveProgress::sizesMustMatch(std::string_view key)
{
    // All-to-all and the v-variants move per-rank amounts; point-to-point pairs differ by design.
    for (std::string_view uneven : {"alltoall", "send", "recv", "scatter", "gather", "coalesced", "barrier"})
        if (key.find(uneven) != std::string_view::npos && key.find("allgather") == std::string_view::npos
            && key.find("reducescatter") == std::string_view::npos)
            return false;
    return !key.empty();
}

const LogRecord *CollectiveProgress::record(const Session &s, RankId rank, std::int64_t line, std::uint16_t flag)
{
    if (m_recordIndex.empty())
        for (std::size_t i = 0; i < s.logs().records.size(); ++i) {
            const LogRecord &r = s.logs().records[i];
            if (r.flags & (LogFlagWatchdogTimeout | LogFlagWatchdogProgress | LogFlagNcclCollective))
                m_recordIndex.emplace(std::make_pair(r.rank, r.line), i);
        }
    const auto [lo, hi] = m_recordIndex.equal_range({rank, line});
    for (auto it = lo; it != hi; ++it)
        if (s.logs().records[it->second].flags & flag)
            return &s.logs().records[it->second];
    return nullptr;
}

RankProgress &CollectiveProgress::entry(RankId rank, const std::string &group)
{
    for (RankProgress &p : m_progress)
        if (p.rank == rank && p.group == group)
            return p;
    RankProgress p;
    p.rank = rank;
    p.group = group;
    m_progress.push_back(std::move(p));
    return m_progress.back();
}

void CollectiveProgress::addOp(const std::string &group, std::int64_t seq, CollectiveOp op)
{
    GroupSeqOps &g = m_byKey[{group, seq}];
    g.group = group;
    g.seq = seq;
    // One op per rank and kind: a repeated report (a rethrown timeout, a second dump) adds nothing.
    for (const CollectiveOp &o : g.ops)
        if (o.rank == op.rank && o.kind == op.kind)
            return;
    g.ops.push_back(std::move(op));
}

CollectiveProgress CollectiveProgress::gather(const Session &s)
{
    CollectiveProgress p;
    for (const Source &src : s.sources())
        p.m_sourceWorld.push_back(src.worldSize);
    for (const Rank &r : s.ranks())
        for (SourceId id : r.sources)
            if (id < s.sources().size() && s.sources()[id].worldSize > 0)
                p.m_rankWorlds[r.id].push_back(s.sources()[id].worldSize);
    for (const Rank &r : s.ranks())
        if (r.unknownProcess.empty()) {
            p.m_realRanks.push_back(r.id);
            p.m_worldSize = std::max(p.m_worldSize, r.worldSize);
        }
    for (const NcclCommInfo &c : s.logs().comms)
        if (c.nranks > 0 && c.nranks <= 65536)
            p.m_worldSize = std::max(p.m_worldSize, c.nranks);
    std::set<RankId> withLogs;
    for (const LogRecord &r : s.logs().records)
        if (r.rank >= 0)
            withLogs.insert(r.rank);
    p.m_ranksWithLogs.assign(withLogs.begin(), withLogs.end());

    p.gatherFlightRecorder(s);
    p.gatherWatchdog(s);
    p.gatherTraces(s);
    p.gatherCalls(s);
    p.gatherSteps(s);
    for (auto &[key, g] : p.m_byKey) {
        std::sort(g.ops.begin(), g.ops.end(), [](const CollectiveOp &a, const CollectiveOp &b) {
            return a.rank != b.rank ? a.rank < b.rank : a.kind < b.kind;
        });
        p.m_seqs.push_back(g);
    }
    p.m_byKey.clear();
    p.m_recordIndex.clear();
    std::sort(p.m_progress.begin(), p.m_progress.end(), [](const RankProgress &a, const RankProgress &b) {
        return a.group != b.group ? a.group < b.group : a.rank < b.rank;
    });
    return p;
}

void CollectiveProgress::gatherWatchdog(const Session &s)
{
    // Evidence of a group-less "[Rank R]" tag goes to the default group unless other groups exist.
    bool otherGroups = false;
    for (const WatchdogTimeout &w : s.logs().timeouts)
        otherGroups |= w.pgId > 0;
    for (const WatchdogProgress &w : s.logs().progress)
        otherGroups |= w.pgId > 0;
    for (const FlightRecord &e : s.flightRecorder().entries)
        otherGroups |= groupKey(e.pgDesc) != "0" && e.pgId != "0";
    const auto key = [&](std::int32_t pgId, const std::string &desc) {
        if (pgId >= 0)
            return std::to_string(pgId);
        if (!desc.empty())
            return groupKey(desc);
        return std::string(otherGroups ? "?" : "0");
    };
    // The structured reports carry a line but not their file: the flagged record of the same rank
    // and line says which file (and its text is the evidence).
    const auto note = [&](RankId rank, std::int64_t line, TimeNs time, ProgressKind kind, std::uint16_t flag, std::string text) {
        ProgressNote n{rank, kind, 0, line, -1, time, std::move(text)};
        if (const LogRecord *r = record(s, rank, line, flag)) {
            n.record = r - s.logs().records.data();
            n.source = r->source;
            if (n.time == kNoTime)
                n.time = r->time;
        }
        return n;
    };
    for (const WatchdogTimeout &w : s.logs().timeouts) {
        if (w.rank < 0)
            continue;
        RankProgress &e = entry(w.rank, key(w.pgId, w.pgDesc));
        e.watchdogReported = true;
        if (w.seq < 0)
            continue;
        std::string sizes;
        if (w.numelIn >= 0 || w.numelOut >= 0)
            sizes = "NumelIn=" + std::to_string(w.numelIn) + ", NumelOut=" + std::to_string(w.numelOut);
        ProgressNote n = note(w.rank, w.line, w.time, ProgressKind::Watchdog, LogFlagWatchdogTimeout,
                              "watchdog: " + (w.opType.empty() ? std::string("work") : w.opType) + " SeqNum " + std::to_string(w.seq)
                                  + (sizes.empty() ? "" : " (" + sizes + ")") + " timed out"
                                  + (w.ranForMs >= 0 ? " after " + std::to_string(w.ranForMs) + " ms" : std::string()));
        // The first report is the work the watchdog waited on; a later one is a rethrow or another group.
        if (e.waitingOn < 0) {
            e.waitingOn = w.seq;
            e.waitingOp = w.opType;
            e.waitingSizes = sizes;
            e.waitingNote = n;
        }
        if (w.seq > e.reached || e.reachedIsLowerBound) {
            e.reached = std::max(e.reached, w.seq);
            e.reachedIsLowerBound = false;
            e.reachedNote = n;
        }
        CollectiveOp op{w.rank, ProgressKind::Watchdog, w.opType, opKey(w.opType), sizes, {}, false, false, n};
        op.sizesMustMatch = !sizes.empty() && sizesMustMatch(op.opKey);
        addOp(e.group, w.seq, std::move(op));
    }
    for (const WatchdogProgress &w : s.logs().progress) {
        if (w.rank < 0)
            continue;
        RankProgress &e = entry(w.rank, key(w.pgId, w.pgDesc));
        e.watchdogReported = true;
        const std::int64_t enq = plausible(w.lastEnqueued, w.work) ? w.lastEnqueued : -1;
        const std::int64_t done = plausible(w.lastCompleted, w.work) ? w.lastCompleted : -1;
        ProgressNote n = note(w.rank, w.line, w.time, ProgressKind::WatchdogProgress, LogFlagWatchdogProgress,
                              "watchdog at work " + std::to_string(w.work) + ": last enqueued "
                                  + (enq >= 0 ? std::to_string(enq) : std::string("unknown")) + ", last completed "
                                  + (done >= 0 ? std::to_string(done) : std::string("unknown")));
        if (w.work >= 0 && e.waitingOn < 0) {
            e.waitingOn = w.work;
            e.waitingNote = n;
        }
        const std::int64_t reached = std::max(enq, w.work);
        if (reached >= 0 && (reached > e.reached || e.reachedIsLowerBound)) {
            e.reached = std::max(e.reached, reached);
            e.reachedIsLowerBound = false;
            e.reachedNote = n;
        }
        if (done > e.completed) {
            e.completed = done;
            e.completedNote = n;
        }
    }
}

void CollectiveProgress::gatherFlightRecorder(const Session &s)
{
    const FlightRecorderEvidence &fr = s.flightRecorder();
    // A group is known across ranks by its name (process_group[0], pg_config's `name`); pg_id is
    // process-local (new_group([0, 1]) and new_group([2, 3]) can both be pg_id 1 on their ranks).
    const auto key = [](const std::string &name, const std::string &desc) { return desc == "default_pg" ? std::string("0") : groupKey(name); };
    for (const FlightRecorderGroup &g : fr.groups) {
        std::vector<RankId> &ranks = m_groupRanks[key(g.name.empty() ? g.pgId : g.name, g.desc)];
        for (RankId r : g.ranks)
            if (std::find(ranks.begin(), ranks.end(), r) == ranks.end())
                ranks.push_back(r);
        std::sort(ranks.begin(), ranks.end());
    }
    for (const FlightRecorderStatus &st : fr.status) {
        if (st.rank < 0)
            continue;
        std::string desc, name = st.pgId;
        for (const FlightRecorderGroup &g : fr.groups)
            if (g.pgId == st.pgId && g.rank == st.rank && g.source == st.source) {
                desc = g.desc;
                if (!g.name.empty())
                    name = g.name;
            }
        RankProgress &e = entry(st.rank, key(name, desc));
        ProgressNote n{st.rank, ProgressKind::FlightRecorderStatus, st.source, -1, -1, kNoTime,
                       "flight recorder pg_status of PG " + st.pgId + ": last enqueued " + std::to_string(st.lastEnqueued)
                           + ", started " + std::to_string(st.lastStarted) + ", completed " + std::to_string(st.lastCompleted)};
        if (st.lastEnqueued >= 0 && (st.lastEnqueued > e.reached || e.reachedIsLowerBound)) {
            e.reached = std::max(e.reached, st.lastEnqueued);
            e.reachedIsLowerBound = false;
            e.reachedNote = n;
        }
        e.started = std::max(e.started, st.lastStarted);
        if (st.lastCompleted > e.completed) {
            e.completed = st.lastCompleted;
            e.completedNote = n;
        }
    }
    // The oldest entry not completed is the work a dumping rank's watchdog waited on.
    std::map<std::pair<RankId, std::string>, const FlightRecord *> oldestPending;
    for (const FlightRecord &f : fr.entries) {
        if (f.rank < 0 || f.isP2p || f.collectiveSeq < 0)
            continue;
        const std::string group = key(f.pgName.empty() ? f.pgId : f.pgName, f.pgDesc);
        const char *state = f.state == FlightRecord::State::Completed ? "completed"
            : f.state == FlightRecord::State::Started                ? "started"
                                                                      : "scheduled";
        const std::string sizes = f.inputSizes.empty() && f.outputSizes.empty()
            ? std::string()
            : "in " + shapes(f.inputSizes) + " out " + shapes(f.outputSizes);
        ProgressNote n{f.rank, ProgressKind::FlightRecorder, f.source, -1, -1, f.created,
                       "flight recorder entry " + std::to_string(f.index) + ": " + f.profilingName + " SeqNum "
                           + std::to_string(f.collectiveSeq) + " of PG " + f.pgId + (sizes.empty() ? "" : " (" + sizes + ")") + " "
                           + state};
        CollectiveOp op{f.rank, ProgressKind::FlightRecorder, f.profilingName, opKey(f.profilingName), sizes,
                        joined(f.inputDtypes), false, f.state == FlightRecord::State::Completed, n};
        op.sizesMustMatch = !op.sizes.empty() && sizesMustMatch(op.opKey);
        addOp(group, f.collectiveSeq, std::move(op));
        RankProgress &e = entry(f.rank, group);
        if (f.collectiveSeq > e.reached || e.reachedIsLowerBound) {
            e.reached = std::max(e.reached, f.collectiveSeq);
            e.reachedIsLowerBound = false;
            e.reachedNote = n;
        }
        if (f.state != FlightRecord::State::Scheduled)
            e.started = std::max(e.started, f.collectiveSeq);
        if (f.state == FlightRecord::State::Completed && f.collectiveSeq > e.completed) {
            e.completed = f.collectiveSeq;
            e.completedNote = n;
        }
        if (f.state != FlightRecord::State::Completed) {
            const FlightRecord *&o = oldestPending[{f.rank, group}];
            if (!o || f.collectiveSeq < o->collectiveSeq)
                o = &f;
        }
    }
    for (const auto &[k, f] : oldestPending) {
        RankProgress &e = entry(k.first, k.second);
        if (e.waitingOn >= 0)
            continue;
        e.waitingOn = f->collectiveSeq;
        e.waitingOp = f->profilingName;
        e.waitingSizes = f->inputSizes.empty() ? std::string() : "in " + shapes(f->inputSizes);
        e.waitingNote = {f->rank, ProgressKind::FlightRecorder, f->source, -1, -1, f->created,
                         "flight recorder entry " + std::to_string(f->index) + ": " + f->profilingName + " SeqNum "
                             + std::to_string(f->collectiveSeq) + " of PG " + f->pgId + " never completed"};
    }
}

void CollectiveProgress::gatherTraces(const Session &s)
{
    for (const Collective &c : s.collectives()) {
        if (c.rank < 0 || c.seq < 0)
            continue;
        const std::string group = c.processGroup ? groupKey(s.str(c.processGroup)) : std::string("0");
        const std::string op(s.str(c.op));
        const SourceId src = c.track < s.tracks().size() ? s.tracks()[c.track].source : 0;
        std::string sizes;
        if (c.inNelems >= 0 || c.outNelems >= 0)
            sizes = "in " + std::to_string(c.inNelems) + " out " + std::to_string(c.outNelems) + " elements";
        ProgressNote n{c.rank, ProgressKind::Trace, src, -1, -1, c.start, "trace: " + op + " SeqNum " + std::to_string(c.seq)
                                                                          + (sizes.empty() ? "" : " (" + sizes + ")")};
        CollectiveOp o{c.rank, ProgressKind::Trace, op, opKey(op), sizes, std::string(s.str(c.dtype)), false, true, n};
        o.sizesMustMatch = !sizes.empty() && sizesMustMatch(o.opKey);
        addOp(group, c.seq, std::move(o));
        // A trace window ends when the profiler stops, not when the rank does: a lower bound only.
        RankProgress &e = entry(c.rank, group);
        if (c.seq > e.reached && e.reachedIsLowerBound) {
            e.reached = c.seq;
            e.reachedNote = n;
        }
    }
}

void CollectiveProgress::gatherCalls(const Session &s)
{
    std::map<RankId, std::vector<std::string>> comms; // per rank, in order of first appearance
    for (const NcclCall &c : s.logs().calls) {
        if (c.rank < 0)
            continue;
        std::vector<std::string> &mine = comms[c.rank];
        auto it = std::find(mine.begin(), mine.end(), c.comm);
        if (it == mine.end()) {
            mine.push_back(c.comm);
            it = mine.end() - 1;
        }
        const int slot = int(it - mine.begin());
        CallProgress *cp = nullptr;
        for (CallProgress &x : m_calls)
            if (x.rank == c.rank && x.slot == slot)
                cp = &x;
        if (!cp) {
            m_calls.push_back({c.rank, slot, c.comm, 0, {}, 0, {}});
            cp = &m_calls.back();
        }
        ++cp->calls;
        if (cp->calls == 1 || c.opCount >= cp->lastOpCount) {
            cp->lastOpCount = c.opCount;
            cp->lastOp = c.op;
            char hex[32];
            std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(c.opCount));
            cp->note = {c.rank, ProgressKind::NcclCall, 0, c.line, -1, c.time, "NCCL COLL: " + c.op + " opCount " + hex};
            if (const LogRecord *r = record(s, c.rank, c.line, LogFlagNcclCollective)) {
                cp->note.source = r->source;
                cp->note.record = r - s.logs().records.data();
            }
        }
    }
    std::sort(m_calls.begin(), m_calls.end(),
              [](const CallProgress &a, const CallProgress &b) { return a.slot != b.slot ? a.slot < b.slot : a.rank < b.rank; });
}

void CollectiveProgress::gatherSteps(const Session &s)
{
    for (const Rank &r : s.ranks()) {
        if (r.steps.empty())
            continue;
        std::map<std::int64_t, int> &out = m_perStep[r.id];
        for (const Step &st : r.steps) {
            // The host call is counted where it was issued; kernels run later, asynchronously.
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
    }
}

bool CollectiveProgress::inJobOf(RankId rank, std::int32_t worldSize) const
{
    if (worldSize <= 0)
        return true;
    if (rank >= worldSize)
        return false;
    const auto it = m_rankWorlds.find(rank);
    if (it == m_rankWorlds.end())
        return true;
    return std::find(it->second.begin(), it->second.end(), worldSize) != it->second.end();
}

std::vector<std::string> CollectiveProgress::groups() const
{
    std::set<std::string> all;
    for (const RankProgress &p : m_progress)
        all.insert(p.group);
    for (const GroupSeqOps &g : m_seqs)
        all.insert(g.group);
    std::vector<std::string> out;
    if (all.count("0"))
        out.push_back("0");
    for (const std::string &g : all)
        if (g != "0")
            out.push_back(g);
    return out;
}

std::vector<RankId> CollectiveProgress::members(const std::string &group) const
{
    if (auto it = m_groupRanks.find(group); it != m_groupRanks.end() && !it->second.empty())
        return it->second;
    std::set<RankId> out;
    if (group == "0") {
        out.insert(m_realRanks.begin(), m_realRanks.end());
        for (RankId r = 0; r < m_worldSize; ++r)
            out.insert(r);
    }
    for (const RankProgress &p : m_progress)
        if (p.group == group)
            out.insert(p.rank);
    return {out.begin(), out.end()};
}

const RankProgress *CollectiveProgress::progress(RankId rank, const std::string &group) const
{
    for (const RankProgress &p : m_progress)
        if (p.rank == rank && p.group == group)
            return &p;
    return nullptr;
}

const GroupSeqOps *CollectiveProgress::at(const std::string &group, std::int64_t seq) const
{
    const auto it = std::lower_bound(m_seqs.begin(), m_seqs.end(), std::make_pair(group, seq),
                                     [](const GroupSeqOps &g, const std::pair<std::string, std::int64_t> &k) {
                                         return std::tie(g.group, g.seq) < std::tie(k.first, k.second);
                                     });
    return it != m_seqs.end() && it->group == group && it->seq == seq ? &*it : nullptr;
}

} // namespace rs
