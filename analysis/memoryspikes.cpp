#include "memoryspikes.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string_view>

namespace rs {

namespace {

TimeNs offsetIn(const std::vector<RankAlignment> &alignment, RankId rank)
{
    for (const RankAlignment &a : alignment)
        if (a.rank == rank)
            return a.offsetNs;
    return 0;
}

// Generic tensor factories say that memory was taken, not what for: attribution names the op
// that called them.
bool allocationPrimitive(std::string_view name)
{
    static constexpr std::string_view kNames[] = {
        "aten::empty", "aten::empty_strided", "aten::empty_like", "aten::new_empty", "aten::new_empty_strided",
        "aten::zeros", "aten::zeros_like", "aten::new_zeros", "aten::ones", "aten::ones_like", "aten::full",
        "aten::full_like", "aten::resize_", "aten::fill_", "aten::zero_"};
    return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// What ran during a rise, weighted by the bytes each op allocated. Every upward sample of the
// counter is charged to the op that was running on the rank's host threads at that instant: on
// each thread the chain of spans containing the sample, and among threads the one whose innermost
// span started last (the others are blocked in a call that started earlier, like the Python thread
// waiting in backward() while the autograd thread allocates). The charge goes to the chain's
// outermost span (the phase: DistributedDataParallel.forward, an optimizer step) and its innermost
// non-factory op. The phase with the most bytes wins, with its costliest op: "phase › op". The
// profiler's own "Trace" span and the steps are skipped (they contain everything).
std::string causeFromSpans(const Session &session, const Rank &rank, const CounterSeries &series, std::size_t from,
                           std::size_t to)
{
    const StringId traceCat = session.strings().find("Trace");
    std::vector<const Track *> threads;
    for (TrackId id : rank.tracks)
        if (session.tracks()[id].kind == TrackKind::CpuThread && !session.tracks()[id].spans.empty())
            threads.push_back(&session.tracks()[id]);
    std::map<StringId, double> phaseBytes;
    std::map<std::pair<StringId, StringId>, double> opBytes;
    std::vector<const Span *> chain, best;
    for (std::size_t i = from + 1; i <= to && i < series.size(); ++i) {
        const double inc = series.values[i] - series.values[i - 1];
        if (inc <= 0)
            continue;
        const TimeNs t = series.times[i];
        best.clear();
        for (const Track *track : threads) {
            chain.clear();
            for (std::uint16_t d = 0; d < track->levelCount(); ++d) {
                const auto [lo, hi] = track->levelRange(d, t, t + 1);
                for (auto k = lo; k < hi; ++k) {
                    const Span &sp = track->spans[k];
                    if (sp.start <= t && t < std::max(sp.end(), sp.start + 1) && !(sp.flags & SpanFlagStep)
                        && sp.category != traceCat)
                        chain.push_back(&sp);
                }
            }
            if (!chain.empty() && (best.empty() || chain.back()->start > best.back()->start))
                best = chain;
        }
        if (best.empty())
            continue;
        std::size_t leaf = best.size() - 1;
        while (leaf > 0 && allocationPrimitive(session.str(best[leaf]->name)))
            --leaf;
        phaseBytes[best.front()->name] += inc;
        opBytes[{best.front()->name, best[leaf]->name}] += inc;
    }
    if (phaseBytes.empty())
        return {};
    const auto phase = std::max_element(phaseBytes.begin(), phaseBytes.end(),
                                        [](const auto &a, const auto &b) { return a.second < b.second; })->first;
    StringId op = phase;
    double opMax = -1;
    for (const auto &[key, bytes] : opBytes)
        if (key.first == phase && bytes > opMax) {
            op = key.second;
            opMax = bytes;
        }
    std::string out(session.str(phase));
    if (op != phase)
        out += " \u203a " + std::string(session.str(op));
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
    auto where = [](const StackFrame &f) { return f.name + " (" + f.filename + ":" + std::to_string(f.line) + ")"; };
    // The user's own Python code first: stacks recorded with context="all" interleave the
    // interpreter's C frames (methodobject.c: cfunction_call), which name no cause.
    for (const StackFrame &f : stack)
        if (!libraryFrame(f) && f.filename.size() > 3 && f.filename.compare(f.filename.size() - 3, 3, ".py") == 0)
            return where(f);
    for (const StackFrame &f : stack)
        if (!libraryFrame(f))
            return where(f);
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
        // One rise considered: true once the rank has its fill of spikes.
        auto consider = [&](const Track &t, TimeNs from, TimeNs peak, double bytes, const auto &spanCause) {
            Spike s;
            s.rank = rank.id;
            s.timeNs = from + off;
            s.durationNs = peak - from;
            s.bytes = static_cast<std::int64_t>(bytes);
            for (const Step &st : rank.steps)
                if (st.range.contains(peak))
                    s.step = st.number;
            // One spike per step: the first (largest) one wins.
            if (std::any_of(mine.begin(), mine.end(), [&](const Spike &o) { return o.step == s.step; }))
                return false;
            s.attributedTo = causeFromSnapshot(session, rank.id, from, peak);
            if (s.attributedTo.empty())
                s.attributedTo = spanCause();
            s.source = session.sources()[t.source].evidencePath();
            mine.push_back(std::move(s));
            return mine.size() >= maxPerRank;
        };
        for (TrackId id : rank.tracks) {
            const Track &t = session.tracks()[id];
            if (t.kind != TrackKind::MemoryAllocated || t.device < 0)
                continue;
            // A summary's counter is thinned: its rises were measured on the full one.
            if (const SummaryFacts *facts = session.sources()[t.source].summary.get()) {
                const std::int32_t local = SummaryFacts::localTrack(session.tracks(), id);
                for (const SummaryFacts::Rise &r : facts->rises) {
                    if (r.track != local)
                        continue;
                    if (r.bytes < double(minBytes))
                        break;
                    if (consider(t, r.from, r.to, r.bytes, [&] { return r.spanCause; }))
                        break;
                }
                continue;
            }
            if (t.counter.size() < 2)
                continue;
            for (const Rise &r : rises(t.counter)) {
                if (r.bytes < double(minBytes))
                    break;
                if (consider(t, t.counter.times[r.from], t.counter.times[r.to], r.bytes,
                             [&] { return causeFromSpans(session, rank, t.counter, r.from, r.to); }))
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

std::optional<TimeNs> MemorySpikes::backwardAfter(const Session &session, const Rank &rank, TimeNs peak, TimeNs window)
{
    std::optional<TimeNs> first;
    for (TrackId id : rank.tracks) {
        const Track &t = session.tracks()[id];
        if (t.kind != TrackKind::CpuThread)
            continue;
        for (std::uint16_t d = 0; d < t.levelCount(); ++d) {
            const auto [lo, hi] = t.levelRange(d, peak, peak + window);
            for (auto i = lo; i < hi; ++i)
                if (t.spans[i].start >= peak && (!first || t.spans[i].start - peak < *first)
                    && session.str(t.spans[i].name).find("Backward") != std::string_view::npos)
                    first = t.spans[i].start - peak;
        }
    }
    return first;
}

std::vector<SummaryFacts::Rise> MemorySpikes::summaryRises(const Session &session, const Rank &rank, const Track &track,
                                                           std::size_t perStep, std::int64_t minBytes)
{
    std::vector<SummaryFacts::Rise> out;
    if (track.counter.size() < 2)
        return out;
    std::map<std::int64_t, std::size_t> inStep; // step number (-1: none) -> rises kept
    for (const Rise &r : rises(track.counter)) {
        if (r.bytes < double(minBytes))
            break;
        const TimeNs peak = track.counter.times[r.to];
        std::int64_t step = -1;
        for (const Step &st : rank.steps)
            if (st.range.contains(peak))
                step = st.number;
        // The analysis keeps the largest rise of a step; the next few stand by for a session in
        // which another source's steps cut the rank's time differently.
        if (inStep[step]++ >= perStep)
            continue;
        SummaryFacts::Rise f;
        f.track = SummaryFacts::localTrack(session.tracks(), static_cast<std::uint32_t>(&track - session.tracks().data()));
        f.from = track.counter.times[r.from];
        f.to = peak;
        f.bytes = r.bytes;
        f.spanCause = causeFromSpans(session, rank, track.counter, r.from, r.to);
        f.backwardAfterNs = backwardAfter(session, rank, peak, backwardWindow(peak - f.from));
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace rs
