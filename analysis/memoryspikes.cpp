#include "memoryspikes.h"

#include <algorithm>

namespace rs {

namespace {

TimeNs offsetIn(const std::vector<RankAlignment> &alignment, RankId rank)
{
    for (const RankAlignment &a : alignment)
        if (a.rank == rank)
            return a.offsetNs;
    return 0;
}

// What ran during a rise: the CPU op that overlaps the rise the most (the phase, e.g. the forward
// pass), and the innermost op at its peak. The profiler's own "Trace" spans and steps are skipped.
std::string causeFromSpans(const Session &session, const Rank &rank, TimeNs from, TimeNs peak)
{
    const Span *phase = nullptr;
    TimeNs phaseOverlap = -1;
    const Span *inner = nullptr;
    const StringId traceCat = session.strings().find("Trace");
    for (TrackId id : rank.tracks) {
        const Track &t = session.tracks()[id];
        if (t.kind != TrackKind::CpuThread)
            continue;
        for (std::uint16_t d = 0; d < t.levelCount(); ++d) {
            const auto [lo, hi] = t.levelRange(d, from, peak + 1);
            for (auto i = lo; i < hi; ++i) {
                const Span &s = t.spans[i];
                if ((s.flags & SpanFlagStep) || s.category == traceCat)
                    continue;
                const TimeNs overlap = std::min(s.end(), peak) - std::max(s.start, from);
                if (overlap > phaseOverlap || (overlap == phaseOverlap && phase && s.depth < phase->depth)) {
                    phase = &s;
                    phaseOverlap = overlap;
                }
                if (s.start <= peak && peak < s.end() && (!inner || s.depth > inner->depth))
                    inner = &s;
            }
        }
    }
    if (!phase)
        return {};
    std::string out(session.str(phase->name));
    if (inner && inner != phase)
        out += " \u203a " + std::string(session.str(inner->name));
    return out;
}

bool libraryFrame(const StackFrame &f)
{
    // Frames inside torch itself say where memory was taken, not why.
    return f.filename.find("/torch/") != std::string::npos || f.filename.find("site-packages") != std::string::npos
        || f.filename.empty() || f.filename.front() == '?' || f.name.rfind("torch::", 0) == 0
        || f.name.rfind("c10::", 0) == 0 || f.name.rfind("at::", 0) == 0;
}

std::string causeFromSnapshot(const Session &session, RankId rank, TimeNs t0, TimeNs t1)
{
    const AllocationRecord *largest = nullptr;
    for (const AllocationRecord &a : session.allocator().allocations)
        if (a.rank == rank && a.time != kNoTime && a.time >= t0 && a.time <= t1 && a.stack >= 0
            && (!largest || a.size > largest->size))
            largest = &a;
    if (!largest)
        return {};
    const auto &stack = session.allocator().stacks[std::size_t(largest->stack)];
    for (const StackFrame &f : stack)
        if (!libraryFrame(f))
            return f.name + " (" + f.filename + ":" + std::to_string(f.line) + ")";
    return stack.empty() ? std::string() : stack.front().name;
}

} // namespace

std::vector<MemorySpikes::Rise> MemorySpikes::rises(const CounterSeries &series)
{
    std::vector<Rise> out;
    const auto &v = series.values;
    // Stack of indexes with strictly decreasing values; each entry remembers the lowest sample of
    // the stretch that ends at it (after the entry below it). Popping merges stretches, so when i
    // is placed, `low` is the lowest sample since the counter was last higher than v[i].
    struct Entry {
        std::size_t index;
        std::size_t low;
    };
    std::vector<Entry> stack;
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::size_t low = i;
        while (!stack.empty() && v[stack.back().index] <= v[i]) {
            if (v[stack.back().low] < v[low])
                low = stack.back().low;
            stack.pop_back();
        }
        const bool peak = i + 1 == v.size() || v[i + 1] < v[i];
        if (peak && v[i] > v[low])
            out.push_back({low, i, v[i] - v[low]});
        stack.push_back({i, low});
    }
    std::sort(out.begin(), out.end(), [](const Rise &a, const Rise &b) { return a.bytes > b.bytes; });
    return out;
}

std::vector<Spike> MemorySpikes::find(const Session &session, const std::vector<RankAlignment> &alignment,
                                      std::size_t maxPerRank, std::int64_t minBytes)
{
    std::vector<Spike> out;
    for (const Rank &rank : session.ranks()) {
        const TimeNs off = offsetIn(alignment, rank.id);
        std::vector<Spike> mine;
        for (TrackId id : rank.tracks) {
            const Track &t = session.tracks()[id];
            if (t.kind != TrackKind::MemoryAllocated || t.device < 0 || t.counter.size() < 2)
                continue;
            for (const Rise &r : rises(t.counter)) {
                if (r.bytes < double(minBytes))
                    break;
                Spike s;
                s.rank = rank.id;
                s.timeNs = t.counter.times[r.from] + off;
                s.durationNs = t.counter.times[r.to] - t.counter.times[r.from];
                s.bytes = static_cast<std::int64_t>(r.bytes);
                const TimeNs peakRaw = t.counter.times[r.to];
                for (const Step &st : rank.steps)
                    if (st.range.contains(peakRaw))
                        s.step = st.number;
                // One spike per step: the first (largest) one wins.
                if (std::any_of(mine.begin(), mine.end(), [&](const Spike &o) { return o.step == s.step; }))
                    continue;
                s.attributedTo = causeFromSnapshot(session, rank.id, t.counter.times[r.from], peakRaw);
                if (s.attributedTo.empty())
                    s.attributedTo = causeFromSpans(session, rank, t.counter.times[r.from], peakRaw);
                s.source = session.sources()[t.source].path;
                mine.push_back(std::move(s));
                if (mine.size() >= maxPerRank)
                    break;
            }
        }
        std::sort(mine.begin(), mine.end(), [](const Spike &a, const Spike &b) { return a.bytes > b.bytes; });
        if (mine.size() > maxPerRank)
            mine.resize(maxPerRank);
        out.insert(out.end(), mine.begin(), mine.end());
    }
    std::stable_sort(out.begin(), out.end(), [](const Spike &a, const Spike &b) { return a.bytes > b.bytes; });
    return out;
}

} // namespace rs
