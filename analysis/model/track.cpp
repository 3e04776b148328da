#include "track.h"

#include <algorithm>
#include <numeric>

namespace rs {

const char *trackKindName(TrackKind kind)
{
    switch (kind) {
    case TrackKind::CpuThread: return "cpu-thread";
    case TrackKind::GpuStream: return "gpu-stream";
    case TrackKind::MemoryAllocated: return "memory-allocated";
    case TrackKind::MemoryReserved: return "memory-reserved";
    case TrackKind::GpuMemoryUsed: return "gpu-memory-used";
    case TrackKind::GpuUtilization: return "gpu-utilization";
    case TrackKind::Counter: return "counter";
    case TrackKind::Markers: return "markers";
    case TrackKind::Log: return "log";
    }
    return "unknown";
}

bool isCounterKind(TrackKind kind)
{
    switch (kind) {
    case TrackKind::MemoryAllocated:
    case TrackKind::MemoryReserved:
    case TrackKind::GpuMemoryUsed:
    case TrackKind::GpuUtilization:
    case TrackKind::Counter:
        return true;
    default:
        return false;
    }
}

std::pair<std::uint32_t, std::uint32_t> Track::levelRange(std::uint16_t depth, TimeNs t0, TimeNs t1) const
{
    if (depth >= levelCount())
        return {0, 0};
    const auto first = spans.begin() + levelBegin[depth];
    const auto last = spans.begin() + levelBegin[depth + 1];
    // Spans in a level do not overlap, so ends are sorted like starts.
    auto lo = std::partition_point(first, last, [t0](const Span &s) { return s.end() <= t0 && s.start < t0; });
    auto hi = std::partition_point(lo, last, [t1](const Span &s) { return s.start < t1; });
    return {static_cast<std::uint32_t>(lo - spans.begin()), static_cast<std::uint32_t>(hi - spans.begin())};
}

void finalizeTrack(Track &track)
{
    auto &spans = track.spans;
    // Outer spans first when two start together, so parents get the lower depth.
    std::stable_sort(spans.begin(), spans.end(), [](const Span &a, const Span &b) {
        return a.start != b.start ? a.start < b.start : a.duration > b.duration;
    });
    std::vector<TimeNs> openEnds;
    std::uint16_t maxDepth = 0;
    for (Span &s : spans) {
        // Pop only from the top: a span is placed at depth d only once the previous occupant of d
        // has ended, which keeps every level free of overlaps even for badly nested input.
        while (!openEnds.empty() && openEnds.back() <= s.start)
            openEnds.pop_back();
        const auto depth = static_cast<std::uint16_t>(std::min<std::size_t>(openEnds.size(), 0xfffe));
        s.depth = depth;
        maxDepth = std::max(maxDepth, depth);
        if (openEnds.size() < 0xfffe)
            openEnds.push_back(std::max(s.end(), s.start));
    }
    track.maxDepth = spans.empty() ? 0 : maxDepth;
    std::stable_sort(spans.begin(), spans.end(), [](const Span &a, const Span &b) {
        return a.depth != b.depth ? a.depth < b.depth : a.start < b.start;
    });
    track.levelBegin.clear();
    if (!spans.empty()) {
        track.levelBegin.assign(track.maxDepth + 2, 0);
        for (const Span &s : spans)
            ++track.levelBegin[s.depth + 1];
        std::partial_sum(track.levelBegin.begin(), track.levelBegin.end(), track.levelBegin.begin());
    }
    std::stable_sort(track.instants.begin(), track.instants.end(),
                     [](const Instant &a, const Instant &b) { return a.time < b.time; });
    auto &c = track.counter;
    if (!std::is_sorted(c.times.begin(), c.times.end())) {
        std::vector<std::size_t> order(c.times.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c.times[a] < c.times[b]; });
        CounterSeries sorted;
        sorted.times.reserve(order.size());
        sorted.values.reserve(order.size());
        for (auto i : order) {
            sorted.times.push_back(c.times[i]);
            sorted.values.push_back(c.values[i]);
        }
        c = std::move(sorted);
    }
}

} // namespace rs
