#include "oomincidents.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

namespace rs {

namespace {

// A second of slack when a memory_summary and an OOM share a time stamp of whole seconds.
constexpr TimeNs kStampSlackNs = 1'000'000'000;
// Consecutive OOM lines of one writer this close belong to one failure (NCCL warns once per frame
// of its call stack).
constexpr std::int64_t kRecordLines = 100;

bool timed(TimeNs t)
{
    return t != kNoTime;
}

bool near(TimeNs a, TimeNs b)
{
    return std::llabs(a - b) <= OomIncidents::kWindowNs;
}

// Sizes in messages are printed with two decimals ("19.68 GiB"): equal within that rounding.
bool sameBytes(std::int64_t a, std::int64_t b)
{
    if (a < 0 || b < 0)
        return true; // one side does not say
    const std::int64_t big = std::max(a, b);
    return std::llabs(a - b) <= std::max<std::int64_t>(big / 100, 16 * 1024);
}

// Two allocator messages describe one failure: the same numbers, and times that do not tell them
// apart. In one file without times only the identical line written twice is a repeat; a job that
// recovers and fails again writes a new message.
bool sameFailure(const OomEvent &a, const OomEvent &b)
{
    if (a.requested < 0 || b.requested < 0 || !sameBytes(a.requested, b.requested) || !sameBytes(a.capacity, b.capacity)
        || !sameBytes(a.allocated, b.allocated) || !sameBytes(a.reserved, b.reserved) || !sameBytes(a.free, b.free))
        return false;
    if (timed(a.time) && timed(b.time))
        return near(a.time, b.time);
    if (a.source == b.source)
        return a.text == b.text;
    return true;
}

// What an incident has: the kinds of pieces, for the rule that an untimed piece joins an incident
// lacking its kind.
enum PieceKind : int { PieceMessage = 1, PieceInstant = 2, PieceRecord = 4 };

struct Building {
    OomIncident incident;
    int kinds = 0;
    std::vector<std::pair<SourceId, std::int64_t>> lines; // (source, line) of its text pieces
};

void noteTime(Building &b, TimeNs t)
{
    if (timed(t) && (!timed(b.incident.time) || t < b.incident.time))
        b.incident.time = t;
}

// The incident a timed or untimed piece of `kind` joins: the closest timed incident within the
// window that lacks the kind, else the first untimed one that lacks it (an untimed piece: the first
// that lacks it, timed or not), else none.
Building *joinTarget(std::vector<Building> &all, int kind, TimeNs t)
{
    Building *best = nullptr;
    if (timed(t)) {
        for (Building &b : all)
            if (!(b.kinds & kind) && timed(b.incident.time) && near(b.incident.time, t)
                && (!best || std::llabs(b.incident.time - t) < std::llabs(best->incident.time - t)))
                best = &b;
        if (best)
            return best;
        for (Building &b : all)
            if (!(b.kinds & kind) && !timed(b.incident.time))
                return &b;
        return nullptr;
    }
    for (Building &b : all)
        if (!(b.kinds & kind))
            return &b;
    return nullptr;
}

// True when everything `b` was read from lies after table `s`: later in the same file, or timed
// later than the table was printed.
bool after(const Building &b, const MemorySummary &s)
{
    bool sameFile = false, later = true;
    for (const auto &[source, line] : b.lines)
        if (source == s.source) {
            sameFile = true;
            later = later && line > s.line;
        }
    if (sameFile)
        return later;
    return timed(b.incident.time) && timed(s.time) && b.incident.time > s.time + kStampSlackNs;
}

} // namespace

std::vector<RankOoms> OomIncidents::find(const Session &session)
{
    std::map<RankId, std::vector<Building>> byRank;
    const auto &ooms = session.ooms();
    std::map<std::pair<SourceId, std::int64_t>, bool> messageLines;
    for (std::size_t i = 0; i < ooms.size(); ++i) {
        const OomEvent &e = ooms[i];
        if (e.rank < 0)
            continue;
        if (e.line > 0)
            messageLines[{e.source, e.line}] = true;
        auto &all = byRank[e.rank];
        Building *same = nullptr;
        for (Building &b : all) {
            for (std::size_t m : b.incident.messages)
                if (sameFailure(ooms[m], e))
                    same = &b;
            if (same)
                break;
        }
        if (!same) {
            all.emplace_back();
            same = &all.back();
            same->incident.rank = e.rank;
            same->kinds = PieceMessage;
        }
        same->incident.messages.push_back(i);
        if (e.line > 0)
            same->lines.emplace_back(e.source, e.line);
        noteTime(*same, e.time);
    }

    struct Mark {
        TimeNs time;
        TrackId track;
        std::uint32_t index;
    };
    std::map<RankId, std::vector<Mark>> instants;
    for (TrackId id = 0; id < session.tracks().size(); ++id) {
        const Track &t = session.tracks()[id];
        if (t.rank < 0)
            continue;
        for (std::uint32_t i = 0; i < t.instants.size(); ++i)
            if (t.instants[i].flags & SpanFlagOutOfMemory)
                instants[t.rank].push_back({t.instants[i].time, id, i});
    }
    for (auto &[rank, list] : instants) {
        std::stable_sort(list.begin(), list.end(), [](const Mark &a, const Mark &b) { return a.time < b.time; });
        auto &all = byRank[rank];
        for (const Mark &in : list) {
            Building *b = joinTarget(all, PieceInstant, in.time);
            if (!b) {
                all.emplace_back();
                b = &all.back();
                b->incident.rank = rank;
            }
            b->kinds |= PieceInstant;
            b->incident.instants.emplace_back(in.track, in.index);
            noteTime(*b, in.time);
        }
    }

    // OOM lines that are not the allocator's message (NCCL's cudaMalloc failing, "CUDA error: out
    // of memory"): runs of them from one writer are one piece.
    struct Run {
        RankId rank;
        SourceId source;
        std::int64_t lastLine;
        TimeNs lastTime;
        Building piece;
    };
    std::vector<Run> runs;
    const auto &records = session.logs().records;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const LogRecord &r = records[i];
        if (!(r.flags & LogFlagOom) || r.rank < 0 || messageLines.count({r.source, r.line}))
            continue;
        Run *run = nullptr;
        for (Run &x : runs)
            if (x.rank == r.rank && x.source == r.source
                && (timed(x.lastTime) && timed(r.time) ? near(x.lastTime, r.time) : r.line - x.lastLine <= kRecordLines))
                run = &x;
        if (!run) {
            runs.push_back({r.rank, r.source, r.line, r.time, {}});
            run = &runs.back();
        }
        run->lastLine = r.line;
        if (timed(r.time))
            run->lastTime = r.time;
        run->piece.incident.records.push_back(i);
        run->piece.lines.emplace_back(r.source, r.line);
        noteTime(run->piece, r.time);
    }
    for (Run &run : runs) {
        auto &all = byRank[run.rank];
        Building *b = joinTarget(all, PieceRecord, run.piece.incident.time);
        if (!b) {
            all.emplace_back();
            b = &all.back();
            b->incident.rank = run.rank;
        }
        b->kinds |= PieceRecord;
        for (std::size_t i : run.piece.incident.records)
            b->incident.records.push_back(i);
        for (const auto &l : run.piece.lines)
            b->lines.push_back(l);
        noteTime(*b, run.piece.incident.time);
    }

    // Timed incidents by time; untimed ones keep source order, after them.
    for (auto &[rank, all] : byRank)
        std::stable_sort(all.begin(), all.end(), [](const Building &a, const Building &b) {
            if (timed(a.incident.time) != timed(b.incident.time))
                return timed(a.incident.time);
            return timed(a.incident.time) && a.incident.time < b.incident.time;
        });

    std::map<RankId, RankOoms> out;
    const auto &summaries = session.memorySummaries();
    std::map<RankId, int> extra;
    std::map<RankId, std::vector<std::size_t>> unattached;
    for (std::size_t si = 0; si < summaries.size(); ++si) {
        const MemorySummary &s = summaries[si];
        if (s.rank < 0 || s.ooms < 0)
            continue;
        RankOoms &ro = out[s.rank];
        ro.allocatorCount = std::max(ro.allocatorCount, s.ooms);
        if (s.ooms == 0)
            continue;
        auto &all = byRank[s.rank];
        // The table counts the incidents before it; it belongs to the one it follows (named by
        // MemorySummary::oom, else the latest not known to come after it).
        Building *target = nullptr;
        bool named = false;
        int before = 0;
        for (Building &b : all) {
            const auto &msgs = b.incident.messages;
            const bool linked = s.oom >= 0 && std::find(msgs.begin(), msgs.end(), std::size_t(s.oom)) != msgs.end();
            if (!linked && after(b, s))
                continue;
            ++before;
            if (linked || !named)
                target = &b;
            named = named || linked;
        }
        extra[s.rank] = std::max(extra[s.rank], int(std::min<std::int64_t>(s.ooms, 1 << 30)) - before);
        if (target)
            target->incident.summaries.push_back(si);
        else
            unattached[s.rank].push_back(si);
    }
    for (auto &[rank, all] : byRank) {
        RankOoms &ro = out[rank];
        ro.rank = rank;
        for (Building &b : all)
            ro.incidents.push_back(std::move(b.incident));
    }
    for (auto &[rank, list] : unattached) {
        // OOMs only the allocator counted: one incident stands for them, with the tables as evidence.
        OomIncident inc;
        inc.rank = rank;
        inc.summaries = list;
        for (std::size_t si : list) // when the table was printed: the failures came before it
            if (timed(summaries[si].time) && (!timed(inc.time) || summaries[si].time < inc.time))
                inc.time = summaries[si].time;
        out[rank].incidents.push_back(std::move(inc));
    }
    std::vector<RankOoms> result;
    for (auto &[rank, ro] : out) {
        ro.rank = rank;
        const int counted = int(ro.incidents.size()) - (unattached.count(rank) ? 1 : 0);
        ro.count = counted + std::max(0, extra.count(rank) ? extra[rank] : 0);
        if (ro.count > 0)
            result.push_back(std::move(ro));
    }
    return result;
}

const RankOoms *OomIncidents::of(const std::vector<RankOoms> &all, RankId rank)
{
    for (const RankOoms &r : all)
        if (r.rank == rank)
            return &r;
    return nullptr;
}

int OomIncidents::countOf(const std::vector<RankOoms> &all, RankId rank)
{
    const RankOoms *r = of(all, rank);
    return r ? r->count : 0;
}

} // namespace rs
