#pragma once
// The counters behind torch.cuda.memory_stats() and memory_summary(), kept the way PyTorch's
// DeviceStats keeps them (c10/core/CachingDeviceAllocator.h): every statistic has a current value,
// its peak, and the running totals of what was added and removed, for all pools together and for
// the large and small pool apart. Keeping the same bookkeeping is what lets a generated
// memory_summary table agree with the generated OOM message and the [memory] events.

#include <array>
#include <cstdint>

namespace rs::tracegen {

struct AllocatorStats {
    struct Stat {
        std::int64_t current = 0;
        std::int64_t peak = 0;
        std::int64_t allocated = 0;  ///< everything ever added ("Tot Alloc")
        std::int64_t freed = 0;      ///< everything ever removed ("Tot Freed")

        void increase(std::int64_t n)
        {
            current += n;
            allocated += n;
            if (current > peak)
                peak = current;
        }
        void decrease(std::int64_t n)
        {
            current -= n;
            freed += n;
        }
    };

    /// memory_stats() pool keys, in PyTorch's StatType order.
    enum Pool : std::uint8_t { All = 0, Large = 1, Small = 2 };
    using PoolStats = std::array<Stat, 3>;

    PoolStats allocation;          ///< allocated blocks ("Allocations")
    PoolStats segment;             ///< cudaMalloc'd segments ("GPU reserved segments")
    PoolStats active;              ///< blocks in use or waiting on a stream ("Active allocs")
    PoolStats inactiveSplit;       ///< free blocks inside partly used segments ("Non-releasable allocs")
    PoolStats allocatedBytes;
    PoolStats reservedBytes;
    PoolStats activeBytes;
    PoolStats inactiveSplitBytes;  ///< "Non-releasable memory"
    PoolStats requestedBytes;      ///< what callers asked for, before rounding
    Stat oversizeAllocations;      ///< blocks >= max_split_size (none while it is unlimited)
    Stat oversizeSegments;
    std::int64_t numAllocRetries = 0;
    std::int64_t numOoms = 0;

    /// Applies `f(stat)` to the aggregate and to `pool`'s entry, like for_each_selected_stat_type.
    template <typename F>
    static void both(PoolStats &stats, bool small, F &&f)
    {
        f(stats[All]);
        f(stats[small ? Small : Large]);
    }
};

} // namespace rs::tracegen
