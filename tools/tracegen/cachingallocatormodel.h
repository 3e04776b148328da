#pragma once
// A small model of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp), enough to
// make "Total Allocated" and "Total Reserved" behave like the real thing: sizes rounded to 512 B,
// a small pool (<= 1 MiB, 2 MiB segments) and a large pool (20 MiB segments, or the request rounded
// to 2 MiB above 10 MiB), best-fit reuse with block splitting, coalescing on free, and a cache
// flush (a "cudaMalloc retry") when a new segment would not fit on the device. It keeps PyTorch's
// DeviceStats as it goes, so torch.cuda.memory_summary() can be printed from it.

#include "allocatorstats.h"

#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

namespace rs::tracegen {

class CachingAllocatorModel
{
public:
    using BlockId = std::uint32_t;
    static constexpr BlockId kNoBlock = ~BlockId{0};

    struct Allocation {
        BlockId block = kNoBlock;
        std::int64_t addr = 0;
        std::int64_t size = 0;   ///< rounded size: the "Bytes" of the [memory] event
    };

    /// `limit` is what the allocator may reserve (device memory minus non-PyTorch use);
    /// `baseAddress` is where the first segment is mapped.
    CachingAllocatorModel(std::int64_t limit, std::int64_t baseAddress);

    /// Returns the new block, or an Allocation with block == kNoBlock when even an emptied cache
    /// cannot fit the request (a CUDA OOM, counted in stats().numOoms).
    Allocation allocate(std::int64_t bytes);
    /// Frees `block`; returns its size (the negative "Bytes" of the [memory] event).
    std::int64_t release(BlockId block);
    std::int64_t addressOf(BlockId block) const { return m_blocks[block].addr; }

    std::int64_t allocated() const { return m_stats.allocatedBytes[AllocatorStats::All].current; }
    std::int64_t reserved() const { return m_stats.reservedBytes[AllocatorStats::All].current; }
    std::int64_t peakAllocated() const { return m_stats.allocatedBytes[AllocatorStats::All].peak; }
    std::int64_t peakReserved() const { return m_stats.reservedBytes[AllocatorStats::All].peak; }
    std::int64_t allocRetries() const { return m_stats.numAllocRetries; }
    std::int64_t segmentCount() const { return m_stats.segment[AllocatorStats::All].current; }
    const AllocatorStats &stats() const { return m_stats; }

    static std::int64_t roundSize(std::int64_t bytes);
    /// What cudaMalloc is asked for when a request of `rounded` bytes needs a new segment (the
    /// "Tried to allocate" of an OOM message).
    static std::int64_t segmentSize(std::int64_t rounded);

private:
    struct Block {
        std::int64_t addr = 0;
        std::int64_t size = 0;
        std::int64_t requested = 0; // the caller's size, before rounding
        BlockId prev = kNoBlock;  // neighbour in the same segment, lower address
        BlockId next = kNoBlock;  // neighbour in the same segment, higher address
        bool allocated = false;
        bool small = false;       // pool
        bool live = false;        // slot in use (ids are recycled)
    };
    using FreeKey = std::tuple<std::int64_t, std::int64_t, BlockId>; // size, addr, id

    bool isSplit(BlockId id) const { return m_blocks[id].prev != kNoBlock || m_blocks[id].next != kNoBlock; }
    std::set<FreeKey> &pool(bool small) { return small ? m_smallFree : m_largeFree; }
    BlockId newBlock(std::int64_t addr, std::int64_t size, bool small);
    void dropBlock(BlockId id);
    BlockId findFree(std::int64_t rounded, bool small);
    BlockId mapSegment(std::int64_t rounded, bool small);
    void releaseCachedSegments();
    void splitIfWorthIt(BlockId id, std::int64_t rounded);
    /// Merges free neighbour `other` into `into`; returns the bytes it brought (0 if none).
    std::int64_t mergeFree(BlockId into, BlockId other);
    void markFree(BlockId id) { auto &b = m_blocks[id]; pool(b.small).emplace(b.size, b.addr, id); }
    void unmarkFree(BlockId id) { auto &b = m_blocks[id]; pool(b.small).erase({b.size, b.addr, id}); }

    std::vector<Block> m_blocks;
    std::vector<BlockId> m_freeIds;
    std::set<FreeKey> m_smallFree;
    std::set<FreeKey> m_largeFree;
    std::int64_t m_limit;
    std::int64_t m_nextAddress;
    AllocatorStats m_stats;
};

} // namespace rs::tracegen
