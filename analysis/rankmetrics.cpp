#include "rankmetrics.h"

#include "statistics.h"

#include "clockalignment.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace rs {

namespace {

TimeNs offsetIn(const std::vector<RankAlignment> &alignment, RankId rank)
{
    for (const RankAlignment &a : alignment)
        if (a.rank == rank)
            return a.offsetNs;
    return 0;
}

// The span index range of `track` (all levels) inside [t0, t1), in start order per level.
template <typename F>
void forSpansIn(const Track &track, TimeNs t0, TimeNs t1, F &&f)
{
    for (std::uint16_t d = 0; d < track.levelCount(); ++d) {
        const auto [lo, hi] = track.levelRange(d, t0, t1);
        for (auto i = lo; i < hi; ++i)
            f(track.spans[i]);
    }
}

} // namespace

std::optional<std::int64_t> RankMetricsBuilder::firstInputElements(std::string_view args)
{
    const auto key = args.find("\"Input Dims\"");
    if (key == std::string_view::npos)
        return std::nullopt;
    auto p = args.find('[', key);
    if (p == std::string_view::npos)
        return std::nullopt;
    p = args.find_first_not_of(" \t\n", p + 1);
    if (p == std::string_view::npos || args[p] != '[')
        return std::nullopt;
    std::int64_t product = 1;
    int count = 0;
    ++p;
    while (p < args.size() && args[p] != ']') {
        if (std::isdigit(static_cast<unsigned char>(args[p]))) {
            std::int64_t v = 0;
            const auto r = std::from_chars(args.data() + p, args.data() + args.size(), v);
            product *= v;
            ++count;
            p = std::size_t(r.ptr - args.data());
        } else {
            ++p;
        }
    }
    if (count == 0)
        return std::nullopt;
    return product;
}

std::map<RankId, RankMetricsBuilder::Lateness> RankMetricsBuilder::collectiveLateness(
    const Session &session, const std::vector<RankAlignment> &alignment)
{
    struct C {
        TimeNs start, end;
        RankId rank;
        const Collective *c;
    };
    std::vector<C> all;
    for (const Collective &c : session.collectives()) {
        const TimeNs off = offsetIn(alignment, c.rank);
        all.push_back({c.start + off, c.end + off, c.rank, &c});
    }
    std::sort(all.begin(), all.end(), [](const C &a, const C &b) { return a.end < b.end; });
    std::map<RankId, std::vector<TimeNs>> late;
    std::map<RankId, Lateness> result;
    // Members of one collective end together on the aligned axis and share a signature (op, size
    // and process group: a tensor-parallel and a data-parallel allreduce may end together, and
    // another group's collective may end between two members of this one).
    std::vector<bool> used(all.size(), false);
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (used[i])
            continue;
        members.assign(1, i);
        for (std::size_t j = i + 1; j < all.size() && all[j].end - all[i].end <= ClockAlignment::kInlierToleranceNs; ++j) {
            if (used[j] || all[j].c->op != all[i].c->op || all[j].c->inNelems != all[i].c->inNelems
                || all[j].c->processGroup != all[i].c->processGroup)
                continue;
            if (std::none_of(members.begin(), members.end(), [&](std::size_t k) { return all[k].rank == all[j].rank; }))
                members.push_back(j);
        }
        for (std::size_t k : members)
            used[k] = true;
        if (members.size() < 2)
            continue;
        TimeNs earliest = all[i].start;
        for (std::size_t k : members)
            earliest = std::min(earliest, all[k].start);
        std::size_t latest = i;
        for (std::size_t k : members) {
            const TimeNs d = all[k].start - earliest;
            late[all[k].rank].push_back(d);
            Lateness &l = result[all[k].rank];
            if (d > l.max) {
                l.max = d;
                l.maxAt = earliest;
            }
            if (all[k].start > all[latest].start)
                latest = k;
        }
        // Last by a margin that matters (1 ms), not by kernel-launch jitter.
        TimeNs second = earliest;
        for (std::size_t k : members)
            if (k != latest)
                second = std::max(second, all[k].start);
        if (all[latest].start - second >= 1'000'000)
            ++result[all[latest].rank].lastArrivals;
    }
    for (auto &[rank, v] : late)
        result[rank].median = upperMedian(v);
    return result;
}

std::vector<RankMetrics> RankMetricsBuilder::build(const Session &session, const std::vector<RankAlignment> &alignment)
{
    std::vector<RankMetrics> out;
    const auto lateness = collectiveLateness(session, alignment);
    for (const Rank &rank : session.ranks()) {
        RankMetrics m;
        m.rank = rank.id;
        const TimeNs off = offsetIn(alignment, rank.id);
        // Memory peaks: the largest allocated value over every allocated counter of the rank.
        const Track *peakTrack = nullptr;
        std::size_t peakIndex = 0;
        for (TrackId id : rank.tracks) {
            const Track &t = session.tracks()[id];
            if (t.counter.empty())
                continue;
            const auto it = std::max_element(t.counter.values.begin(), t.counter.values.end());
            const auto value = static_cast<std::int64_t>(*it);
            if (t.kind == TrackKind::MemoryAllocated && t.device >= 0
                && (!m.peakAllocatedBytes || value > *m.peakAllocatedBytes)) {
                m.peakAllocatedBytes = value;
                peakTrack = &t;
                peakIndex = std::size_t(it - t.counter.values.begin());
                m.peakTimeNs = t.counter.times[peakIndex] + off;
            } else if (t.kind == TrackKind::MemoryReserved && t.device >= 0
                       && (!m.peakReservedBytes || value > *m.peakReservedBytes)) {
                m.peakReservedBytes = value;
            } else if (t.kind == TrackKind::GpuMemoryUsed && (!m.gpuUsedPeakBytes || value > *m.gpuUsedPeakBytes)) {
                m.gpuUsedPeakBytes = value;
            }
        }
        if (peakTrack) {
            // Reserved at the moment allocated peaked, from the same source and device.
            for (TrackId id : rank.tracks) {
                const Track &t = session.tracks()[id];
                if (t.kind != TrackKind::MemoryReserved || t.source != peakTrack->source || t.device != peakTrack->device
                    || t.counter.empty())
                    continue;
                const TimeNs at = peakTrack->counter.times[peakIndex];
                auto it = std::upper_bound(t.counter.times.begin(), t.counter.times.end(), at);
                if (it != t.counter.times.begin()) {
                    const double reserved = t.counter.values[std::size_t(it - t.counter.times.begin()) - 1];
                    m.fragmentationBytes = static_cast<std::int64_t>(reserved) - *m.peakAllocatedBytes;
                }
            }
        }
        if (m.gpuUsedPeakBytes && m.peakReservedBytes)
            m.nonPytorchBytes = *m.gpuUsedPeakBytes - *m.peakReservedBytes;
        for (const DeviceInfo &d : rank.devices)
            if (d.totalMemory > 0)
                m.capacityBytes = std::max<std::int64_t>(m.capacityBytes.value_or(0), d.totalMemory);

        // Steps and micro-batches.
        if (!rank.steps.empty()) {
            m.steps = std::int64_t(rank.steps.size());
            std::vector<TimeNs> d;
            for (const Step &s : rank.steps)
                d.push_back(s.range.duration());
            const TimeNs med = upperMedian(d);
            std::vector<TimeNs> dev;
            for (TimeNs x : d)
                dev.push_back(std::llabs(x - med));
            m.stepTimeMedianNs = med;
            m.stepTimeMadNs = upperMedian(dev);
            std::int64_t batches = 0, elements = 0;
            bool anyElements = false;
            for (const Step &s : rank.steps) {
                if (s.track == kNoTrack)
                    continue;
                const std::int64_t batchesBefore = batches, elementsBefore = elements;
                const Track &t = session.tracks()[s.track];
                std::vector<const Span *> inStep;
                forSpansIn(t, s.range.begin, s.range.end, [&](const Span &sp) {
                    if (sp.start >= s.range.begin && sp.start < s.range.end)
                        inStep.push_back(&sp);
                });
                std::sort(inStep.begin(), inStep.end(), [](const Span *a, const Span *b) { return a->start < b->start; });
                for (std::size_t i = 0; i < inStep.size(); ++i) {
                    const std::string_view name = session.str(inStep[i]->name);
                    if (name.find("DataLoader") == std::string_view::npos || name.find("__next__") == std::string_view::npos)
                        continue;
                    ++batches;
                    for (std::size_t j = i + 1; j < inStep.size(); ++j) {
                        if (inStep[j]->start < inStep[i]->end())
                            continue; // still inside the fetch
                        if (auto n = firstInputElements(session.args(s.track, inStep[j]->args))) {
                            elements += *n;
                            anyElements = true;
                            break;
                        }
                    }
                }
                if (batches > batchesBefore)
                    m.microBatchesPerStep.emplace_back(s.number, batches - batchesBefore);
                if (elements > elementsBefore)
                    m.inputElementsPerStep.emplace_back(s.number, elements - elementsBefore);
            }
            if (batches > 0)
                m.microBatches = batches;
            if (anyElements)
                m.inputElements = elements;
        }

        // Collectives: kernels from traces, else NCCL COLL calls from logs.
        std::int64_t coll = 0, lastSeq = -1;
        for (const Collective &c : session.collectives())
            if (c.rank == rank.id) {
                ++coll;
                lastSeq = std::max(lastSeq, c.seq);
            }
        if (coll == 0)
            for (const NcclCall &c : session.logs().calls)
                if (c.rank == rank.id)
                    ++coll;
        for (const WatchdogTimeout &w : session.logs().timeouts)
            if (w.rank == rank.id)
                lastSeq = std::max(lastSeq, w.seq);
        if (coll > 0)
            m.collectives = coll;
        if (lastSeq >= 0)
            m.lastCollectiveSeq = lastSeq;
        if (auto it = lateness.find(rank.id); it != lateness.end()) {
            m.collectiveLatenessNs = it->second.median;
            m.collectiveLatenessMaxNs = it->second.max;
            m.collectiveLatenessMaxAtNs = it->second.maxAt;
            m.lastArrivals = it->second.lastArrivals;
        }

        // OOMs from every kind of source, and the allocator's own view of its state.
        for (const OomEvent &o : session.ooms())
            if (o.rank == rank.id) {
                m.oom = true;
                ++m.oomCount;
                if (o.capacity > 0)
                    m.capacityBytes = std::max<std::int64_t>(m.capacityBytes.value_or(0), o.capacity);
            }
        for (const Track &t : session.tracks())
            if (t.rank == rank.id)
                for (const Instant &in : t.instants)
                    if (in.flags & SpanFlagOutOfMemory) {
                        m.oom = true;
                        ++m.oomCount;
                    }
        for (const MemorySummary &s : session.memorySummaries())
            if (s.rank == rank.id) {
                if (const MemorySummaryRow *r = s.row("Non-releasable memory"); r && r->current >= 0)
                    m.nonReleasableBytes = r->current;
                if (s.ooms > 0) // the allocator's own count, even when no message was kept
                    m.oom = true;
            }
        out.push_back(std::move(m));
    }
    return out;
}

} // namespace rs
