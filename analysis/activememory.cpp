#include "activememory.h"

#include <algorithm>
#include <map>
#include <set>

namespace rs {

std::int64_t ActiveMemory::Band::offsetAt(TimeNs t) const
{
    const auto it = std::upper_bound(times.begin(), times.end(), t);
    return it == times.begin() ? offsets.front() : offsets[static_cast<std::size_t>(it - times.begin()) - 1];
}

std::vector<std::pair<RankId, std::int32_t>> ActiveMemory::devices(const Session &session)
{
    std::set<std::pair<RankId, std::int32_t>> out;
    for (const AllocationRecord &a : session.allocator().allocations)
        out.insert({a.rank, a.device});
    return {out.begin(), out.end()};
}

std::set<std::pair<RankId, std::int32_t>> ActiveMemory::clockedDevices(const Session &session)
{
    std::set<std::pair<RankId, std::int32_t>> out;
    for (const Track &t : session.tracks())
        if (t.kind == TrackKind::MemoryAllocated && t.source < session.sources().size()
            && session.sources()[t.source].format == "memory-snapshot" && session.sources()[t.source].hasClock)
            out.insert({t.rank, t.device});
    return out;
}

ActiveMemory ActiveMemory::build(const Session &session, RankId rank, std::int32_t device, std::size_t maxBands)
{
    ActiveMemory m;
    m.rank = rank;
    m.device = device;
    // What is drawn: the trace's allocations, then the snapshot's blocks from before the trace.
    struct Item {
        std::uint32_t allocation;
        std::uint64_t address;
        std::int64_t size;
        TimeNs time;  // kNoTime: before the trace (placed at its start)
        TimeNs freed; // kNoTime: alive at the snapshot
        std::int32_t stack;
    };
    std::vector<Item> items;
    const auto &all = session.allocator().allocations;
    TimeNs first = 0, last = 0;
    std::set<std::uint64_t> aliveAt;
    for (std::uint32_t i = 0; i < all.size(); ++i) {
        const AllocationRecord &a = all[i];
        if (a.rank != rank || a.device != device || a.time == kNoTime)
            continue;
        if (items.empty())
            first = last = a.time;
        first = std::min(first, a.time);
        last = std::max({last, a.time, a.freed == kNoTime ? a.time : a.freed});
        items.push_back({i, a.address, a.size, a.time, a.freed, a.stack});
        if (a.freed == kNoTime)
            aliveAt.insert(a.address);
    }
    if (items.empty())
        return m;
    for (const SegmentRecord &seg : session.allocator().segments) {
        if (seg.rank != rank || seg.device != device)
            continue;
        for (const SegmentRecord::Block &b : seg.blocks)
            if (b.state != SegmentRecord::Block::State::Inactive && !aliveAt.count(b.address)) {
                items.push_back({kBeforeTrace, b.address, b.size, kNoTime, kNoTime, b.stack});
                ++m.beforeTrace;
                m.beforeTraceBytes += b.size;
            }
    }
    for (Item &it : items)
        if (it.time == kNoTime)
            it.time = first;
        else
            m.withoutStack += it.stack < 0;
    m.allocations = items.size();
    m.range = {first, last + 1};
    m.clocked = clockedDevices(session).count({rank, device}) > 0;
    // The reserved curve runs from the segment events; with none it never moves.
    for (const Track &t : session.tracks()) {
        if (t.rank != rank || t.device != device || t.source >= session.sources().size()
            || session.sources()[t.source].format != "memory-snapshot")
            continue;
        if (t.kind == TrackKind::MemoryReserved && !t.counter.empty()) {
            const auto &v = t.counter.values;
            m.reservedSteady = std::all_of(v.begin(), v.end(), [&v](double x) { return x == v.front(); });
            m.reservedBytes = static_cast<std::int64_t>(v.back());
        }
    }

    // The largest get bands; ties go to the earlier item, so the choice is stable.
    std::vector<std::uint32_t> bySize(items.size());
    for (std::uint32_t i = 0; i < items.size(); ++i)
        bySize[i] = i;
    std::sort(bySize.begin(), bySize.end(), [&items](std::uint32_t a, std::uint32_t b) {
        return items[a].size != items[b].size ? items[a].size > items[b].size : a < b;
    });
    const std::size_t kept = maxBands == 0 ? bySize.size() : std::min(maxBands, bySize.size());
    std::vector<char> ownBand(items.size(), 0);
    for (std::size_t k = 0; k < kept; ++k)
        ownBand[bySize[k]] = 1;
    m.threshold = kept == 0 ? 0 : items[bySize[kept - 1]].size;
    m.rest.count = bySize.size() - kept;
    m.rest.largest = kept < bySize.size() ? items[bySize[kept]].size : 0;

    // Events in time order; at one moment frees go first, so a reused address never overlaps.
    struct Event {
        TimeNs t;
        bool alloc;
        std::uint32_t item;
    };
    std::vector<Event> events;
    events.reserve(items.size() * 2);
    for (std::uint32_t i = 0; i < items.size(); ++i) {
        events.push_back({items[i].time, true, i});
        if (items[i].freed != kNoTime)
            events.push_back({std::max(items[i].freed, items[i].time), false, i});
    }
    std::stable_sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
        return a.t != b.t ? a.t < b.t : (!a.alloc && b.alloc);
    });

    std::map<std::pair<std::uint64_t, std::uint32_t>, std::int32_t> live; // (address, item) → band
    std::vector<std::int32_t> bandOf(items.size(), -1);
    std::int64_t bigBytes = 0, smallBytes = 0;
    const auto place = [](Band &b, TimeNs t, std::int64_t offset) {
        if (!b.times.empty() && b.times.back() == t)
            b.offsets.back() = offset;
        else if (b.offsets.empty() || b.offsets.back() != offset) {
            b.times.push_back(t);
            b.offsets.push_back(offset);
        }
    };
    for (const Event &e : events) {
        const Item &a = items[e.item];
        if (!ownBand[e.item]) {
            smallBytes += e.alloc ? a.size : -a.size;
        } else if (e.alloc) {
            Band b;
            b.allocation = a.allocation;
            b.address = a.address;
            b.stack = a.stack;
            b.alive = a.freed == kNoTime;
            b.size = a.size;
            b.begin = a.time;
            b.end = b.alive ? m.range.end : std::max(a.freed, a.time + 1);
            const auto at = live.emplace(std::pair(a.address, e.item), static_cast<std::int32_t>(m.bands.size())).first;
            std::int64_t offset = 0;
            if (at != live.begin()) {
                const Band &below = m.bands[static_cast<std::size_t>(std::prev(at)->second)];
                offset = below.offsets.back() + below.size;
            }
            place(b, e.t, offset);
            bandOf[e.item] = static_cast<std::int32_t>(m.bands.size());
            m.bands.push_back(std::move(b));
            for (auto above = std::next(at); above != live.end(); ++above) {
                Band &x = m.bands[static_cast<std::size_t>(above->second)];
                place(x, e.t, x.offsets.back() + a.size);
            }
            bigBytes += a.size;
        } else if (bandOf[e.item] >= 0) {
            const auto at = live.find(std::pair(a.address, e.item));
            if (at == live.end())
                continue;
            for (auto above = std::next(at); above != live.end(); ++above) {
                Band &x = m.bands[static_cast<std::size_t>(above->second)];
                place(x, e.t, x.offsets.back() - a.size);
            }
            live.erase(at);
            bigBytes -= a.size;
        }
        Rest &r = m.rest;
        if (!r.times.empty() && r.times.back() == e.t) {
            r.bottom.back() = bigBytes;
            r.height.back() = smallBytes;
        } else if (r.times.empty() || r.bottom.back() != bigBytes || r.height.back() != smallBytes) {
            r.times.push_back(e.t);
            r.bottom.push_back(bigBytes);
            r.height.push_back(smallBytes);
        }
        if (bigBytes + smallBytes > m.peak) {
            m.peak = bigBytes + smallBytes;
            m.peakTime = e.t;
        }
    }
    return m;
}

int ActiveMemory::bandAt(TimeNs t, double bytes) const
{
    // Bands are sorted by begin: only those begun by t can cover it.
    const auto last = std::upper_bound(bands.begin(), bands.end(), t, [](TimeNs x, const Band &b) { return x < b.begin; });
    for (auto it = bands.begin(); it != last; ++it) {
        if (t >= it->end)
            continue;
        const double offset = static_cast<double>(it->offsetAt(t));
        if (bytes >= offset && bytes < offset + static_cast<double>(it->size))
            return static_cast<int>(it - bands.begin());
    }
    return -1;
}

std::int64_t ActiveMemory::liveAt(TimeNs t) const
{
    const auto it = std::upper_bound(rest.times.begin(), rest.times.end(), t);
    if (it == rest.times.begin())
        return 0;
    const auto k = static_cast<std::size_t>(it - rest.times.begin()) - 1;
    return rest.bottom[k] + rest.height[k];
}

} // namespace rs
