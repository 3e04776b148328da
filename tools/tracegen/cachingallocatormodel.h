#pragma once
// A small model of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp), enough to
// make "Total Allocated" and "Total Reserved" behave like the real thing: sizes rounded to 512 B,
// a small pool (<= 1 MiB, 2 MiB segments) and a large pool (20 MiB segments, or the request rounded
// to 2 MiB above 10 MiB), best-fit reuse with block splitting, coalescing on free, and a cache
// flush (a "cudaMalloc retry") when a new segment would not fit on the device.

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
    /// cannot fit the request (a CUDA OOM).
    Allocation allocate(std::int64_t bytes);
    /// Frees `block`; returns its size (the negative "Bytes" of the [memory] event).
    std::int64_t release(BlockId block);
    std::int64_t addressOf(BlockId block) const { return m_blocks[block].addr; }

    std::int64_t allocated() const { return m_allocated; }
    std::int64_t reserved() const { return m_reserved; }
    std::int64_t peakAllocated() const { return m_peakAllocated; }
    std::int64_t peakReserved() const { return m_peakReserved; }
    std::int64_t allocRetries() const { return m_retries; }
    std::int64_t segmentCount() const { return m_segments; }

    static std::int64_t roundSize(std::int64_t bytes);

private:
    struct Block {
        std::int64_t addr = 0;
        std::int64_t size = 0;
        BlockId prev = kNoBlock;  // neighbour in the same segment, lower address
        BlockId next = kNoBlock;  // neighbour in the same segment, higher address
        bool allocated = false;
        bool small = false;       // pool
        bool live = false;        // slot in use (ids are recycled)
    };
    using FreeKey = std::tuple<std::int64_t, std::int64_t, BlockId>; // size, addr, id

    static std::int64_t segmentSize(std::int64_t rounded);
    std::set<FreeKey> &pool(bool small) { return small ? m_smallFree : m_largeFree; }
    BlockId newBlock(std::int64_t addr, std::int64_t size, bool small);
    void dropBlock(BlockId id);
    BlockId findFree(std::int64_t rounded, bool small);
    BlockId mapSegment(std::int64_t rounded, bool small);
    void releaseCachedSegments();
    void splitIfWorthIt(BlockId id, std::int64_t rounded);
    void markFree(BlockId id) { auto &b = m_blocks[id]; pool(b.small).emplace(b.size, b.addr, id); }
    void unmarkFree(BlockId id) { auto &b = m_blocks[id]; pool(b.small).erase({b.size, b.addr, id}); }

    std::vector<Block> m_blocks;
    std::vector<BlockId> m_freeIds;
    std::set<FreeKey> m_smallFree;
    std::set<FreeKey> m_largeFree;
    std::int64_t m_limit;
    std::int64_t m_nextAddress;
    std::int64_t m_allocated = 0;
    std::int64_t m_reserved = 0;
    std::int64_t m_peakAllocated = 0;
    std::int64_t m_peakReserved = 0;
    std::int64_t m_retries = 0;
    std::int64_t m_segments = 0;
};

} // namespace rs::tracegen
