#include "rankmetrics.h"

#include "statistics.h"

#include "clockalignment.h"
#include "oomincidents.h"

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

MemorySource RankMetricsBuilder::counterSource(std::string_view format)
{
    if (format == "memory-snapshot")
        return MemorySource::Snapshot;
    if (format == "job-log" || format == "nccl-log")
        return MemorySource::Log;
    if (format == "summary")
        return MemorySource::Summary;
    if (format == "memory-summary")
        return MemorySource::MemorySummary;
    return MemorySource::Trace;
}

std::vector<MemoryReading> RankMetricsBuilder::memoryReadings(const Session &session, const Rank &rank, TimeNs offset)
{
    std::map<MemorySource, MemoryReading> by; // keyed by kind: the map's order is the precedence
    auto at = [&](MemorySource s) -> MemoryReading & {
        MemoryReading &r = by[s];
        r.source = s;
        return r;
    };

    // Counters (a trace's [memory] events, a snapshot's replayed trace, a log's per-step figures):
    // the highest allocated value of each kind, and what its reserved counter read at that moment.
    std::map<MemorySource, std::pair<const Track *, std::size_t>> allocatedPeak;
    for (TrackId id : rank.tracks) {
        const Track &t = session.tracks()[id];
        if ((t.kind != TrackKind::MemoryAllocated && t.kind != TrackKind::MemoryReserved) || t.device < 0 || t.counter.empty())
            continue;
        const Source &src = session.sources()[t.source];
        const MemorySource kind = counterSource(src.contentFormat());
        const auto it = std::max_element(t.counter.values.begin(), t.counter.values.end());
        const auto value = static_cast<std::int64_t>(*it);
        const auto index = std::size_t(it - t.counter.values.begin());
        MemoryReading &r = at(kind);
        if (t.kind == TrackKind::MemoryAllocated) {
            if (r.allocatedBytes && value <= *r.allocatedBytes)
                continue;
            r.allocatedBytes = value;
            // A trace's times are its rank's axis even without a wall clock; a snapshot without
            // time_us only has trace order, which is no time.
            if (kind == MemorySource::Trace || src.hasClock)
                r.allocatedAtNs = t.counter.times[index] + offset;
            else
                r.allocatedAtNs.reset();
            allocatedPeak[kind] = {&t, index};
        } else if (!r.reservedBytes || value > *r.reservedBytes) {
            r.reservedBytes = value;
        }
    }
    for (const auto &[kind, peak] : allocatedPeak) {
        const Track &a = *peak.first;
        const TimeNs when = a.counter.times[peak.second];
        for (TrackId id : rank.tracks) {
            const Track &t = session.tracks()[id];
            if (t.kind != TrackKind::MemoryReserved || t.source != a.source || t.device != a.device || t.counter.empty())
                continue;
            auto it = std::upper_bound(t.counter.times.begin(), t.counter.times.end(), when);
            if (it != t.counter.times.begin()) {
                const double reserved = t.counter.values[std::size_t(it - t.counter.times.begin()) - 1];
                by[kind].idleBytes = static_cast<std::int64_t>(reserved) - static_cast<std::int64_t>(a.counter.values[peak.second]);
            }
        }
    }

    // A snapshot's segments: what was reserved (their total_size) and allocated when it was taken.
    std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> segments; // device -> (reserved, allocated)
    for (const SegmentRecord &seg : session.allocator().segments)
        if (seg.rank == rank.id) {
            segments[seg.device].first += seg.totalSize;
            segments[seg.device].second += seg.allocatedSize;
        }
    for (const auto &[device, sums] : segments) {
        MemoryReading &r = at(MemorySource::Snapshot);
        if (!r.allocatedBytes || sums.second > *r.allocatedBytes) {
            r.allocatedBytes = sums.second;
            r.allocatedAtNs.reset();
            r.idleBytes = sums.first - sums.second;
        }
        if (!r.reservedBytes || sums.first > *r.reservedBytes)
            r.reservedBytes = sums.first;
    }

    // memory_summary tables: the Peak Usage column of the pool "all". Their reserved peak bounds
    // what was reserved when allocated peaked, so the difference bounds the idle memory from above.
    for (const MemorySummary &s : session.memorySummaries()) {
        if (s.rank != rank.id)
            continue;
        const MemorySummaryRow *a = s.row("Allocated memory");
        const MemorySummaryRow *res = s.row("GPU reserved memory");
        const bool hasAllocated = a && a->peak >= 0, hasReserved = res && res->peak >= 0;
        if (!hasAllocated && !hasReserved)
            continue;
        MemoryReading &r = at(MemorySource::MemorySummary);
        if (hasAllocated && (!r.allocatedBytes || a->peak > *r.allocatedBytes)) {
            r.allocatedBytes = a->peak;
            if (hasReserved && res->peak >= a->peak)
                r.idleBytes = res->peak - a->peak;
            else
                r.idleBytes.reset();
        }
        if (hasReserved && (!r.reservedBytes || res->peak > *r.reservedBytes))
            r.reservedBytes = res->peak;
    }

    // OOM messages: allocated and reserved at the moment the allocation failed.
    for (const OomEvent &o : session.ooms()) {
        if (o.rank != rank.id || (o.allocated < 0 && o.reserved < 0))
            continue;
        MemoryReading &r = at(MemorySource::OomMessage);
        if (o.allocated >= 0 && (!r.allocatedBytes || o.allocated > *r.allocatedBytes)) {
            r.allocatedBytes = o.allocated;
            r.allocatedAtNs = o.time != kNoTime ? std::optional<TimeNs>(o.time + offset) : std::nullopt;
            if (o.reserved >= o.allocated)
                r.idleBytes = o.reserved - o.allocated;
            else
                r.idleBytes.reset();
        }
        if (o.reserved >= 0 && (!r.reservedBytes || o.reserved > *r.reservedBytes))
            r.reservedBytes = o.reserved;
    }

    std::vector<MemoryReading> out;
    for (auto &[kind, r] : by)
        if (r.allocatedBytes || r.reservedBytes)
            out.push_back(std::move(r));
    return out;
}

SummaryFacts::StepInputs RankMetricsBuilder::stepInputs(const Session &session, const Step &s)
{
    SummaryFacts::StepInputs out;
    out.step = s.number;
    if (s.track == kNoTrack)
        return out;
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
        ++out.microBatches;
        for (std::size_t j = i + 1; j < inStep.size(); ++j) {
            if (inStep[j]->start < inStep[i]->end())
                continue; // still inside the fetch
            if (auto n = firstInputElements(session.args(s.track, inStep[j]->args))) {
                out.inputElements += *n;
                out.hasElements = true;
                break;
            }
        }
    }
    return out;
}

std::vector<RankMetrics> RankMetricsBuilder::build(const Session &session, const std::vector<RankAlignment> &alignment)
{
    std::vector<RankMetrics> out;
    const auto lateness = collectiveLateness(session, alignment);
    const std::vector<RankOoms> ooms = OomIncidents::find(session);
    for (const Rank &rank : session.ranks()) {
        RankMetrics m;
        m.rank = rank.id;
        const TimeNs off = offsetIn(alignment, rank.id);
        // Memory: each kind of evidence read on its own, the peaks taken from the best one present.
        m.memoryReadings = memoryReadings(session, rank, off);
        for (const MemoryReading &r : m.memoryReadings) {
            if (!m.peakAllocatedBytes && r.allocatedBytes) {
                m.peakAllocatedBytes = r.allocatedBytes;
                m.peakTimeNs = r.allocatedAtNs;
                m.peakSource = r.source;
            }
            if (!m.peakReservedBytes && r.reservedBytes) {
                m.peakReservedBytes = r.reservedBytes;
                m.peakReservedSource = r.source;
            }
            if (!m.fragmentationBytes && r.idleBytes) {
                m.fragmentationBytes = r.idleBytes;
                m.fragmentationSource = r.source;
            }
        }
        if (m.peakSource == MemorySource::None)
            m.peakSource = m.peakReservedSource;
        for (TrackId id : rank.tracks) {
            const Track &t = session.tracks()[id];
            if (t.kind != TrackKind::GpuMemoryUsed || t.counter.empty())
                continue;
            const auto value = static_cast<std::int64_t>(*std::max_element(t.counter.values.begin(), t.counter.values.end()));
            if (!m.gpuUsedPeakBytes || value > *m.gpuUsedPeakBytes)
                m.gpuUsedPeakBytes = value;
        }
        if (m.gpuUsedPeakBytes && m.peakReservedBytes)
            m.nonPytorchBytes = *m.gpuUsedPeakBytes - *m.peakReservedBytes;
        for (const DeviceInfo &d : rank.devices)
            if (d.totalMemory > 0)
                m.capacityBytes = std::max<std::int64_t>(m.capacityBytes.value_or(0), d.totalMemory);

        // Steps and micro-batches.
        if (!rank.steps.empty()) {
            m.steps = std::int64_t(rank.steps.size());
            // A cut-off step (the rank crashed or the trace ended inside it) is a fragment, not a
            // fast step: the step time is that of the steps the rank completed.
            std::vector<TimeNs> d;
            for (const Step &s : rank.steps)
                if (!s.incomplete)
                    d.push_back(s.range.duration());
            if (!d.empty()) {
                const TimeNs med = upperMedian(d);
                std::vector<TimeNs> dev;
                for (TimeNs x : d)
                    dev.push_back(std::llabs(x - med));
                m.stepTimeMedianNs = med;
                m.stepTimeMadNs = upperMedian(dev);
            }
            std::int64_t batches = 0, elements = 0;
            bool anyElements = false;
            for (const Step &s : rank.steps) {
                if (s.track == kNoTrack)
                    continue;
                // A summary kept what ran inside each of its steps; the spans are not there.
                const SummaryFacts *facts = session.sources()[session.tracks()[s.track].source].summary.get();
                const SummaryFacts::StepInputs *kept =
                    facts ? facts->stepInputs(SummaryFacts::localTrack(session.tracks(), s.track), s.number) : nullptr;
                const SummaryFacts::StepInputs in = facts ? (kept ? *kept : SummaryFacts::StepInputs{}) : stepInputs(session, s);
                batches += in.microBatches;
                elements += in.inputElements;
                anyElements = anyElements || in.hasElements;
                if (in.microBatches > 0)
                    m.microBatchesPerStep.emplace_back(s.number, in.microBatches);
                if (in.inputElements > 0)
                    m.inputElementsPerStep.emplace_back(s.number, in.inputElements);
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

        // OOMs, each once whatever reported it, and the allocator's own view of its state.
        m.oomCount = OomIncidents::countOf(ooms, rank.id);
        m.oom = m.oomCount > 0;
        const OomEvent *richest = nullptr;
        auto richness = [](const OomEvent &o) { return (o.requested >= 0) + (o.capacity >= 0) + (o.allocated >= 0) + (o.free >= 0); };
        for (const OomEvent &o : session.ooms())
            if (o.rank == rank.id) {
                if (o.capacity > 0)
                    m.capacityBytes = std::max<std::int64_t>(m.capacityBytes.value_or(0), o.capacity);
                if (!richest || richness(o) > richness(*richest))
                    richest = &o;
            }
        if (richest && richest->requested >= 0)
            m.oomRequestedBytes = richest->requested;
        if (richest && richest->free >= 0)
            m.oomFreeBytes = richest->free;
        const MemorySummary *latest = nullptr;
        for (const MemorySummary &s : session.memorySummaries()) {
            if (s.rank != rank.id)
                continue;
            if (!latest || s.time == kNoTime || latest->time == kNoTime || s.time >= latest->time)
                latest = &s;
            if (const MemorySummaryRow *r = s.row("Non-releasable memory"); r && r->peak >= 0)
                m.nonReleasablePeakBytes = std::max(m.nonReleasablePeakBytes.value_or(0), r->peak);
            if (s.allocRetries >= 0)
                m.allocRetries = std::max(m.allocRetries.value_or(0), s.allocRetries);
        }
        if (latest) {
            if (const MemorySummaryRow *r = latest->row("Allocated memory"); r && r->current >= 0)
                m.currentAllocatedBytes = r->current;
            if (const MemorySummaryRow *r = latest->row("GPU reserved memory"); r && r->current >= 0)
                m.currentReservedBytes = r->current;
            if (const MemorySummaryRow *r = latest->row("Non-releasable memory"); r && r->current >= 0)
                m.nonReleasableBytes = r->current;
        }
        if (!m.nonReleasableBytes) {
            // A snapshot shows the same thing block by block: free blocks inside segments that are
            // still split (a segment whose blocks are all free is merged back and can be released).
            std::optional<std::int64_t> stuck;
            for (const SegmentRecord &seg : session.allocator().segments) {
                if (seg.rank != rank.id)
                    continue;
                stuck = stuck.value_or(0);
                if (seg.blocks.size() > 1)
                    for (const SegmentRecord::Block &blk : seg.blocks)
                        if (blk.state == SegmentRecord::Block::State::Inactive)
                            *stuck += blk.size;
            }
            m.nonReleasableBytes = stuck;
        }
        out.push_back(std::move(m));
    }
    return out;
}

} // namespace rs
