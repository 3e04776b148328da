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
    m_blocks[id] = Block{addr, size, kNoBlock, kNoBlock, false, small, true};
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
    if (m_reserved + size > m_limit) {
        // What the real allocator does before reporting OOM: give every fully free segment back
        // to the driver and try again.
        releaseCachedSegments();
        ++m_retries;
        if (m_reserved + size > m_limit)
            return kNoBlock;
    }
    const BlockId id = newBlock(m_nextAddress, size, small);
    m_nextAddress += size + kMappingGap;
    m_reserved += size;
    m_peakReserved = std::max(m_peakReserved, m_reserved);
    ++m_segments;
    return id;
}

void CachingAllocatorModel::releaseCachedSegments()
{
    for (auto *free : {&m_smallFree, &m_largeFree}) {
        for (auto it = free->begin(); it != free->end();) {
            const BlockId id = std::get<2>(*it);
            const Block &b = m_blocks[id];
            if (b.prev == kNoBlock && b.next == kNoBlock) { // the whole segment is this free block
                m_reserved -= b.size;
                --m_segments;
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
    Block &b = m_blocks[id];
    const std::int64_t remaining = b.size - rounded;
    // Small blocks split down to 512 B; large ones only when more than 1 MiB would be left.
    if (b.small ? remaining < kMinBlockSize : remaining <= kSmallSize)
        return;
    const BlockId rest = newBlock(m_blocks[id].addr + rounded, remaining, m_blocks[id].small);
    Block &head = m_blocks[id]; // newBlock may have reallocated the vector
    Block &tail = m_blocks[rest];
    tail.prev = id;
    tail.next = head.next;
    if (head.next != kNoBlock)
        m_blocks[head.next].prev = rest;
    head.next = rest;
    head.size = rounded;
    markFree(rest);
}

CachingAllocatorModel::Allocation CachingAllocatorModel::allocate(std::int64_t bytes)
{
    const std::int64_t rounded = roundSize(bytes);
    const bool small = rounded <= kSmallSize;
    BlockId id = findFree(rounded, small);
    if (id == kNoBlock)
        id = mapSegment(rounded, small);
    if (id == kNoBlock)
        return {};
    splitIfWorthIt(id, rounded);
    Block &b = m_blocks[id];
    b.allocated = true;
    m_allocated += b.size;
    m_peakAllocated = std::max(m_peakAllocated, m_allocated);
    return {id, b.addr, b.size};
}

std::int64_t CachingAllocatorModel::release(BlockId id)
{
    Block &b = m_blocks[id];
    const std::int64_t size = b.size;
    b.allocated = false;
    m_allocated -= size;
    // Coalesce with free neighbours so the segment can serve larger requests again.
    BlockId merged = id;
    if (const BlockId n = m_blocks[merged].next; n != kNoBlock && !m_blocks[n].allocated) {
        unmarkFree(n);
        Block &cur = m_blocks[merged];
        cur.size += m_blocks[n].size;
        cur.next = m_blocks[n].next;
        if (cur.next != kNoBlock)
            m_blocks[cur.next].prev = merged;
        dropBlock(n);
    }
    if (const BlockId p = m_blocks[merged].prev; p != kNoBlock && !m_blocks[p].allocated) {
        unmarkFree(p);
        Block &prev = m_blocks[p];
        prev.size += m_blocks[merged].size;
        prev.next = m_blocks[merged].next;
        if (prev.next != kNoBlock)
            m_blocks[prev.next].prev = p;
        dropBlock(merged);
        merged = p;
    }
    markFree(merged);
    return size;
}

} // namespace rs::tracegen
