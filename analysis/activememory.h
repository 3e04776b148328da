#pragma once
// The allocator's "Active memory" timeline of one GPU (memory_viz's headline view): every
// allocation of a snapshot's trace as a band over its lifetime, stacked by address, so the picture
// at any moment is the device's live memory and a band's height its size. Laid out once here, as
// plain numbers; the viewer paints and hit-tests the layout.
//
// Only the largest `maxBands` allocations get a band of their own (memory_viz's detail slider):
// the smaller ones are summed into one band on top, which keeps the layout small and its bands
// still when thousands of short-lived small blocks come and go. Stacking by address means a band
// moves only when a larger allocation below it is made or freed.
//
// Times are the trace's (`time_us` as ns, or the entry's place ×1 µs when the trace has no clock;
// `clocked` says which); an allocation still alive at the snapshot lasts to the layout's end.
//
// The trace is a ring buffer: memory allocated before its first entry and still held at the
// snapshot (a model's weights, typically) has no alloc event. As memory_viz does, such blocks of
// the snapshot's segments are drawn from the layout's start, so the picture's height is what the
// device really held.

#include "session.h"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace rs {

class ActiveMemory
{
public:
    /// One allocation drawn on its own: its size at offset offsets[k] from times[k] on.
    /// Band::allocation of a block allocated before the trace began.
    static constexpr std::uint32_t kBeforeTrace = 0xffffffffu;

    struct Band {
        std::uint32_t allocation = 0;     ///< index into AllocatorEvidence::allocations, or kBeforeTrace
        std::uint64_t address = 0;        ///< device address (the stacking order)
        std::int32_t stack = -1;          ///< index into AllocatorEvidence::stacks, -1 without frames
        bool alive = false;               ///< still allocated at the snapshot
        std::int64_t size = 0;            ///< bytes (the band's height)
        TimeNs begin = 0;                 ///< allocated
        TimeNs end = 0;                   ///< freed, or the layout's end when alive at the snapshot
        std::vector<TimeNs> times;        ///< when its offset changed, from `begin`, ascending
        std::vector<std::int64_t> offsets; ///< bytes of the live bands below it from times[k] on

        /// The offset at `t` (begin ≤ t < end).
        std::int64_t offsetAt(TimeNs t) const;
    };
    /// The smaller allocations, summed: `height[k]` bytes on top of `bottom[k]` from times[k] on.
    struct Rest {
        std::vector<TimeNs> times;
        std::vector<std::int64_t> bottom;
        std::vector<std::int64_t> height;
        std::size_t count = 0;        ///< allocations summed here
        std::int64_t largest = 0;     ///< the largest of them
    };

    RankId rank = kNoRank;
    std::int32_t device = 0;
    TimeRange range;                  ///< first allocation to the snapshot (its last trace entry)
    bool clocked = false;             ///< times are the trace's wall clock (else its order, 1 µs apart)
    std::vector<Band> bands;          ///< sorted by begin
    Rest rest;
    std::int64_t peak = 0;            ///< most live bytes at any moment of the trace
    TimeNs peakTime = 0;              ///< when
    std::size_t allocations = 0;      ///< allocations drawn: the trace's and those from before it
    std::size_t beforeTrace = 0;      ///< of them, blocks allocated before the trace began
    std::int64_t beforeTraceBytes = 0;///< their bytes
    std::size_t withoutStack = 0;     ///< of them, recorded without a Python stack
    std::int64_t threshold = 0;       ///< an allocation of at least this many bytes has a band
    /// The trace records no segment allocated or freed (no segment_alloc/free/map/unmap): the
    /// allocator reserved nothing new while it recorded, so reserved memory stayed at
    /// `reservedBytes` throughout (the snapshot's flat reserved curve is exact, not assumed).
    bool reservedSteady = false;
    std::int64_t reservedBytes = 0;

    /// The (rank, device) pairs whose snapshot trace holds allocations, in order.
    static std::vector<std::pair<RankId, std::int32_t>> devices(const Session &session);
    /// The (rank, device) pairs whose snapshot trace has a clock (`time_us`); the others' times
    /// are the entries' order, 1 µs apart, as the snapshot's memory track says.
    static std::set<std::pair<RankId, std::int32_t>> clockedDevices(const Session &session);
    /// Lays out the allocations of (`rank`, `device`), the `maxBands` largest on their own
    /// (0: every one).
    static ActiveMemory build(const Session &session, RankId rank, std::int32_t device, std::size_t maxBands);

    /// The index into `bands` of the band covering `bytes` at `t`, or -1.
    int bandAt(TimeNs t, double bytes) const;
    /// Live bytes at `t` (bands and the rest).
    std::int64_t liveAt(TimeNs t) const;
};

} // namespace rs
