#include "optotals.h"

#include <algorithm>
#include <charconv>
#include <iterator>

namespace rs {

namespace {

constexpr std::uint32_t kNoSlot = 0xffffffffu;

// Accumulates totals keyed by (kind, name) with one dense slot table per kind: a name lookup is an
// array index, which matters when a trace holds millions of spans.
class Accumulator
{
public:
    explicit Accumulator(std::size_t poolSize)
    {
        for (auto &s : m_slots)
            s.assign(poolSize, kNoSlot);
    }
    OpStats &at(OpKind kind, StringId name)
    {
        auto &slots = m_slots[static_cast<std::size_t>(kind)];
        if (name >= slots.size())
            slots.resize(std::size_t(name) + 1, kNoSlot);
        std::uint32_t &slot = slots[name];
        if (slot == kNoSlot) {
            slot = static_cast<std::uint32_t>(m_totals.size());
            m_totals.push_back({name, kind, {}});
        }
        return m_totals[slot].stats;
    }
    std::vector<OpTotal> take()
    {
        std::sort(m_totals.begin(), m_totals.end(), [](const OpTotal &a, const OpTotal &b) {
            return a.kind != b.kind ? a.kind < b.kind : a.name < b.name;
        });
        return std::move(m_totals);
    }

private:
    std::vector<std::uint32_t> m_slots[3];
    std::vector<OpTotal> m_totals;
};

bool countedCpuSpan(const Span &s, StringId traceCategory)
{
    return !(s.flags & SpanFlagStep) && s.category != traceCategory;
}

// The innermost counted span of one host thread at a time t, found by one cursor per depth level.
// Memory samples are visited in time order, so every cursor only moves forward: over a whole
// counter the cursors walk each level once.
class ThreadCursor
{
public:
    ThreadCursor(const Track &track, StringId traceCategory)
        : m_track(track), m_trace(traceCategory), m_pos(track.levelCount())
    {
        for (std::uint16_t d = 0; d < track.levelCount(); ++d)
            m_pos[d] = track.levelBegin[d];
    }
    void reset()
    {
        for (std::uint16_t d = 0; d < m_track.levelCount(); ++d)
            m_pos[d] = m_track.levelBegin[d];
    }
    // Walks down from the outermost level while spans contain t (nesting: a span at depth d lies
    // inside one at depth d − 1, so the first level without one ends the chain).
    const Span *innermostAt(TimeNs t)
    {
        const Span *inner = nullptr;
        for (std::uint16_t d = 0; d < m_track.levelCount(); ++d) {
            std::uint32_t &p = m_pos[d];
            const std::uint32_t end = m_track.levelBegin[std::size_t(d) + 1];
            // A zero-length span still covers its own instant, as in MemorySpikes.
            while (p < end && std::max(m_track.spans[p].end(), m_track.spans[p].start + 1) <= t)
                ++p;
            if (p == end || m_track.spans[p].start > t)
                break;
            const Span &s = m_track.spans[p];
            if (countedCpuSpan(s, m_trace))
                inner = &s;
        }
        return inner;
    }

private:
    const Track &m_track;
    StringId m_trace;
    std::vector<std::uint32_t> m_pos;
};

} // namespace

const char *opKindName(OpKind kind)
{
    switch (kind) {
    case OpKind::CpuOp: return "op";
    case OpKind::Kernel: return "kernel";
    case OpKind::GpuMemory: return "memcpy/memset";
    }
    return "op";
}

const OpTotal *RankOpTotals::find(OpKind kind, StringId name) const
{
    const auto it = std::lower_bound(totals.begin(), totals.end(), std::make_pair(kind, name),
                                     [](const OpTotal &t, const std::pair<OpKind, StringId> &k) {
                                         return t.kind != k.first ? t.kind < k.first : t.name < k.second;
                                     });
    return it != totals.end() && it->kind == kind && it->name == name ? &*it : nullptr;
}

namespace {

// Sorted, merged time windows; an empty scope (no filter) contains everything.
class Windows
{
public:
    void add(TimeRange r) { m_ranges.push_back(r); }
    void finish()
    {
        std::sort(m_ranges.begin(), m_ranges.end(), [](const TimeRange &a, const TimeRange &b) { return a.begin < b.begin; });
    }
    bool contains(TimeNs t) const
    {
        auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), t, [](TimeNs x, const TimeRange &r) { return x < r.begin; });
        return it != m_ranges.begin() && std::prev(it)->contains(t);
    }

private:
    std::vector<TimeRange> m_ranges;
};

std::int64_t stepNumber(std::string_view name)
{
    const auto hash = name.find('#');
    std::int64_t n = -1;
    if (hash != std::string_view::npos)
        std::from_chars(name.data() + hash + 1, name.data() + name.size(), n);
    return n;
}

} // namespace

RankOpTotals OpTotals::compute(const Session &session, RankId rank)
{
    return compute(session, rank, nullptr);
}

RankOpTotals OpTotals::compute(const Session &session, RankId rank, const std::vector<std::int64_t> &steps)
{
    return compute(session, rank, &steps);
}

RankOpTotals OpTotals::compute(const Session &session, RankId rankId, const std::vector<std::int64_t> *steps)
{
    RankOpTotals out;
    out.rank = rankId;
    const Rank *rank = session.rank(rankId);
    if (!rank)
        return out;
    // The windows of the chosen steps: host spans, and their GPU-side copies when there are any.
    Windows host, gpu;
    bool gpuCopies = false;
    if (steps) {
        auto chosen = [&](std::int64_t n) { return std::find(steps->begin(), steps->end(), n) != steps->end(); };
        for (const Step &s : rank->steps)
            if (chosen(s.number))
                host.add(s.range);
        for (TrackId id : rank->tracks) {
            const Track &t = session.tracks()[id];
            if (t.kind == TrackKind::GpuStream)
                for (const Span &s : t.spans)
                    if ((s.flags & SpanFlagStep) && chosen(stepNumber(session.str(s.name)))) {
                        gpu.add({s.start, s.end()});
                        gpuCopies = true;
                    }
        }
        host.finish();
        gpu.finish();
    }
    const auto inHost = [&](TimeNs t) { return !steps || host.contains(t); };
    const auto inGpu = [&](TimeNs t) { return !steps || (gpuCopies ? gpu.contains(t) : host.contains(t)); };
    const StringId traceCat = session.strings().find("Trace");
    Accumulator acc(session.strings().size());
    std::vector<ThreadCursor> threads;
    std::vector<const Track *> memory;
    for (TrackId id : rank->tracks) {
        const Track &t = session.tracks()[id];
        if (t.kind == TrackKind::CpuThread) {
            for (const Span &s : t.spans)
                if (countedCpuSpan(s, traceCat) && inHost(s.start)) {
                    OpStats &st = acc.at(OpKind::CpuOp, s.name);
                    ++st.count;
                    st.time += s.duration;
                }
            out.spansVisited += t.spans.size();
            if (!t.spans.empty())
                threads.emplace_back(t, traceCat);
        } else if (t.kind == TrackKind::GpuStream) {
            for (const Span &s : t.spans) {
                OpKind kind;
                if (s.flags & SpanFlagKernel)
                    kind = OpKind::Kernel;
                else if (s.flags & (SpanFlagMemcpy | SpanFlagMemset))
                    kind = OpKind::GpuMemory;
                else
                    continue;
                if (!inGpu(s.start))
                    continue;
                OpStats &st = acc.at(kind, s.name);
                ++st.count;
                st.time += s.duration;
            }
            out.spansVisited += t.spans.size();
        } else if (t.kind == TrackKind::MemoryAllocated && t.device >= 0 && t.counter.size() >= 2) {
            memory.push_back(&t);
        }
    }
    for (const Track *m : memory) {
        for (ThreadCursor &c : threads)
            c.reset();
        const CounterSeries &series = m->counter;
        // The first sample is the allocator's total when the profiler started, not an allocation.
        for (std::size_t i = 1; i < series.size(); ++i) {
            const double rise = series.values[i] - series.values[i - 1];
            if (!(rise > 0))
                continue;
            const TimeNs t = series.times[i];
            if (!inHost(t))
                continue;
            const Span *best = nullptr;
            for (ThreadCursor &c : threads)
                if (const Span *s = c.innermostAt(t); s && (!best || s->start > best->start))
                    best = s;
            const auto bytes = static_cast<std::int64_t>(rise);
            if (best) {
                acc.at(OpKind::CpuOp, best->name).bytes += bytes;
                out.attributedBytes += bytes;
            } else {
                out.unattributedBytes += bytes;
            }
        }
    }
    out.totals = acc.take();
    return out;
}

} // namespace rs
