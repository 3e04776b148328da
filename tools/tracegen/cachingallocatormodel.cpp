#include "cachingallocatormodel.h"

#include <algorithm>

namespace rs::tracegen {

namespace {
// Constants of CUDACachingAllocator.cpp.
constexpr std::int64_t kMinBlockSize = 512;
constexpr std::int64_t kSmallSize = 1 << 20;
constexpr std::int64_t kSmallBuffer = 2 << 20;
constexpr std::int64_t kLargeBuffer = 20 << 20;
constexpr std::int64_t kMinLargeAlloc = 10 << 20;
constexpr std::int64_t kRoundLarge = 2 << 20;
// cudaMalloc hands out addresses with gaps between mappings; 2 MiB keeps them page-aligned.
constexpr std::int64_t kMappingGap = 2 << 20;

std::int64_t roundUp(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }
} // namespace

CachingAllocatorModel::CachingAllocatorModel(std::int64_t limit, std::int64_t baseAddress)
    : m_limit(limit), m_nextAddress(baseAddress)
{
}

std::int64_t CachingAllocatorModel::roundSize(std::int64_t bytes)
{
    return bytes < kMinBlockSize ? kMinBlockSize : roundUp(bytes, kMinBlockSize);
}

std::int64_t CachingAllocatorModel::segmentSize(std::int64_t rounded)
{
    if (rounded <= kSmallSize)
        return kSmallBuffer;
    if (rounded < kMinLargeAlloc)
        return kLargeBuffer;
    return roundUp(rounded, kRoundLarge);
}

CachingAllocatorModel::BlockId CachingAllocatorModel::newBlock(std::int64_t addr, std::int64_t size, bool small)
{
    BlockId id;
    if (!m_freeIds.empty()) {
        id = m_freeIds.back();
        m_freeIds.pop_back();
    } else {
        id = static_cast<BlockId>(m_blocks.size());
        m_blocks.emplace_back();
    }
    m_blocks[id] = Block{addr, size, 0, kNoBlock, kNoBlock, false, small, true};
    return id;
}

void CachingAllocatorModel::dropBlock(BlockId id)
{
    m_blocks[id].live = false;
    m_freeIds.push_back(id);
}

CachingAllocatorModel::BlockId CachingAllocatorModel::findFree(std::int64_t rounded, bool small)
{
    auto &free = pool(small);
    const auto it = free.lower_bound({rounded, 0, 0});
    if (it == free.end())
        return kNoBlock;
    const BlockId id = std::get<2>(*it);
    free.erase(it);
    return id;
}

CachingAllocatorModel::BlockId CachingAllocatorModel::mapSegment(std::int64_t rounded, bool small)
{
    const std::int64_t size = segmentSize(rounded);
    if (reserved() + size > m_limit) {
        // What the real allocator does before reporting OOM: give every fully free segment back
        // to the driver and try again (release_cached_blocks, then alloc_block with isRetry).
        releaseCachedSegments();
        ++m_stats.numAllocRetries;
        if (reserved() + size > m_limit)
            return kNoBlock;
    }
    const BlockId id = newBlock(m_nextAddress, size, small);
    m_nextAddress += size + kMappingGap;
    AllocatorStats::both(m_stats.segment, small, [](auto &s) { s.increase(1); });
    AllocatorStats::both(m_stats.reservedBytes, small, [&](auto &s) { s.increase(size); });
    return id;
}

void CachingAllocatorModel::releaseCachedSegments()
{
    for (auto *free : {&m_smallFree, &m_largeFree}) {
        for (auto it = free->begin(); it != free->end();) {
            const BlockId id = std::get<2>(*it);
            const Block &b = m_blocks[id];
            if (!isSplit(id)) { // the whole segment is this free block
                AllocatorStats::both(m_stats.segment, b.small, [](auto &s) { s.decrease(1); });
                AllocatorStats::both(m_stats.reservedBytes, b.small, [&](auto &s) { s.decrease(b.size); });
                dropBlock(id);
                it = free->erase(it);
            } else {
                ++it;
            }
        }
    }
}

void CachingAllocatorModel::splitIfWorthIt(BlockId id, std::int64_t rounded)
{
    const bool alreadySplit = isSplit(id);
    const bool small = m_blocks[id].small;
    const std::int64_t remaining = m_blocks[id].size - rounded;
    // Small blocks split down to 512 B; large ones only when more than 1 MiB would be left.
    if (small ? remaining < kMinBlockSize : remaining <= kSmallSize) {
        // The whole free block is taken: if it was a leftover of a split, it no longer counts
        // as non-releasable.
        if (alreadySplit) {
            AllocatorStats::both(m_stats.inactiveSplitBytes, small, [&](auto &s) { s.decrease(m_blocks[id].size); });
            AllocatorStats::both(m_stats.inactiveSplit, small, [](auto &s) { s.decrease(1); });
        }
        return;
    }
    const BlockId rest = newBlock(m_blocks[id].addr + rounded, remaining, small);
    Block &head = m_blocks[id]; // newBlock may have reallocated the vector
    Block &tail = m_blocks[rest];
    tail.prev = id;
    tail.next = head.next;
    if (head.next != kNoBlock)
        m_blocks[head.next].prev = rest;
    head.next = rest;
    head.size = rounded;
    markFree(rest);
    // Same bookkeeping as alloc_found_block: a split free block shrinks by what is taken; a fresh
    // split leaves a new non-releasable remainder.
    if (alreadySplit) {
        AllocatorStats::both(m_stats.inactiveSplitBytes, small, [&](auto &s) { s.decrease(rounded); });
    } else {
        AllocatorStats::both(m_stats.inactiveSplitBytes, small, [&](auto &s) { s.increase(remaining); });
        AllocatorStats::both(m_stats.inactiveSplit, small, [](auto &s) { s.increase(1); });
    }
}

CachingAllocatorModel::Allocation CachingAllocatorModel::allocate(std::int64_t bytes)
{
    const std::int64_t rounded = roundSize(bytes);
    const bool small = rounded <= kSmallSize;
    BlockId id = findFree(rounded, small);
    if (id == kNoBlock)
        id = mapSegment(rounded, small);
    if (id == kNoBlock) {
        ++m_stats.numOoms;
        return {};
    }
    splitIfWorthIt(id, rounded);
    Block &b = m_blocks[id];
    b.allocated = true;
    b.requested = bytes;
    const std::int64_t size = b.size;
    AllocatorStats::both(m_stats.allocation, small, [](auto &s) { s.increase(1); });
    AllocatorStats::both(m_stats.allocatedBytes, small, [&](auto &s) { s.increase(size); });
    AllocatorStats::both(m_stats.active, small, [](auto &s) { s.increase(1); });
    AllocatorStats::both(m_stats.activeBytes, small, [&](auto &s) { s.increase(size); });
    AllocatorStats::both(m_stats.requestedBytes, small, [&](auto &s) { s.increase(bytes); });
    return {id, b.addr, size};
}

std::int64_t CachingAllocatorModel::mergeFree(BlockId into, BlockId other)
{
    if (other == kNoBlock || m_blocks[other].allocated)
        return 0;
    unmarkFree(other);
    Block &dst = m_blocks[into];
    const Block src = m_blocks[other];
    if (src.addr < dst.addr) {
        dst.addr = src.addr;
        dst.prev = src.prev;
        if (dst.prev != kNoBlock)
            m_blocks[dst.prev].next = into;
    } else {
        dst.next = src.next;
        if (dst.next != kNoBlock)
            m_blocks[dst.next].prev = into;
    }
    dst.size += src.size;
    dropBlock(other);
    return src.size;
}

std::int64_t CachingAllocatorModel::release(BlockId id)
{
    Block &b = m_blocks[id];
    const std::int64_t size = b.size;
    const std::int64_t requested = b.requested;
    const bool small = b.small;
    b.allocated = false;
    AllocatorStats::both(m_stats.allocation, small, [](auto &s) { s.decrease(1); });
    AllocatorStats::both(m_stats.allocatedBytes, small, [&](auto &s) { s.decrease(size); });
    // free_block: coalesce with free neighbours so the segment can serve larger requests again;
    // every neighbour swallowed was a non-releasable block, and the result is one if its segment
    // is still partly in use.
    std::int64_t splitBlocks = 0, splitBytes = 0;
    for (const BlockId neighbour : {m_blocks[id].prev, m_blocks[id].next}) {
        if (const std::int64_t merged = mergeFree(id, neighbour)) {
            --splitBlocks;
            splitBytes -= merged;
        }
    }
    if (isSplit(id)) {
        ++splitBlocks;
        splitBytes += m_blocks[id].size;
    }
    markFree(id);
    AllocatorStats::both(m_stats.inactiveSplit, small, [&](auto &s) {
        splitBlocks > 0 ? s.increase(splitBlocks) : s.decrease(-splitBlocks);
    });
    AllocatorStats::both(m_stats.inactiveSplitBytes, small, [&](auto &s) {
        splitBytes > 0 ? s.increase(splitBytes) : s.decrease(-splitBytes);
    });
    AllocatorStats::both(m_stats.active, small, [](auto &s) { s.decrease(1); });
    AllocatorStats::both(m_stats.activeBytes, small, [&](auto &s) { s.decrease(size); });
    AllocatorStats::both(m_stats.requestedBytes, small, [&](auto &s) { s.decrease(requested); });
    return size;
}

} // namespace rs::tracegen
