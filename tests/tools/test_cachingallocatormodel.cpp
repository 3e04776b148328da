// The caching-allocator model behind the generated "[memory]" events: the totals must behave like
// PyTorch's allocator (rounding, reuse, splitting, coalescing, cache flush before OOM), because the
// demo's memory story and every memory finding tested on generated traces rest on them.

#include "cachingallocatormodel.h"

#include <QTest>

using rs::tracegen::CachingAllocatorModel;

namespace {
constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kGiB = 1LL << 30;
constexpr std::int64_t kBase = 0x7f0000000000LL;
} // namespace

class TestCachingAllocatorModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundsToBlocksOf512()
    {
        QCOMPARE(CachingAllocatorModel::roundSize(1), std::int64_t(512));
        QCOMPARE(CachingAllocatorModel::roundSize(512), std::int64_t(512));
        QCOMPARE(CachingAllocatorModel::roundSize(513), std::int64_t(1024));
    }

    void smallRequestsShareTwoMiBSegments()
    {
        CachingAllocatorModel a(10 * kGiB, kBase);
        const auto x = a.allocate(4096);
        const auto y = a.allocate(4096);
        QCOMPARE(a.reserved(), 2 * kMiB);
        QCOMPARE(a.allocated(), std::int64_t(8192));
        QCOMPARE(y.addr, x.addr + 4096); // carved from the same segment
        QCOMPARE(a.segmentCount(), std::int64_t(1));
    }

    void mediumRequestsGetTwentyMiBAndLargeOnesTheirOwnSize()
    {
        CachingAllocatorModel a(10 * kGiB, kBase);
        a.allocate(3 * kMiB);
        QCOMPARE(a.reserved(), 20 * kMiB);
        a.allocate(100 * kMiB + 1);
        QCOMPARE(a.reserved(), 20 * kMiB + 102 * kMiB); // rounded up to 2 MiB
    }

    void freedBlockIsReusedAtTheSameAddress()
    {
        CachingAllocatorModel a(10 * kGiB, kBase);
        const auto first = a.allocate(64 * kMiB);
        QCOMPARE(a.release(first.block), 64 * kMiB);
        QCOMPARE(a.allocated(), std::int64_t(0));
        QCOMPARE(a.reserved(), 64 * kMiB); // cached, not returned
        const auto again = a.allocate(64 * kMiB);
        QCOMPARE(again.addr, first.addr);
        QCOMPARE(a.reserved(), 64 * kMiB);
    }

    void largeFreeBlockIsSplitAndCoalescedBack()
    {
        CachingAllocatorModel a(10 * kGiB, kBase);
        const auto big = a.allocate(256 * kMiB);
        a.release(big.block);
        const auto left = a.allocate(100 * kMiB);
        const auto right = a.allocate(100 * kMiB);
        QCOMPARE(left.addr, big.addr);
        QCOMPARE(right.addr, big.addr + 100 * kMiB);
        QCOMPARE(a.reserved(), 256 * kMiB);
        a.release(left.block);
        a.release(right.block);
        // Coalesced into one 256 MiB block again: a 256 MiB request fits without a new segment.
        const auto whole = a.allocate(256 * kMiB);
        QCOMPARE(whole.addr, big.addr);
        QCOMPARE(a.reserved(), 256 * kMiB);
    }

    void flushesTheCacheBeforeGivingUp()
    {
        CachingAllocatorModel a(1 * kGiB, kBase);
        const auto x = a.allocate(600 * kMiB);
        a.release(x.block);
        // 800 MiB does not fit beside the cached 600 MiB segment, but fits once it is released.
        const auto y = a.allocate(800 * kMiB);
        QVERIFY(y.block != CachingAllocatorModel::kNoBlock);
        QCOMPARE(a.allocRetries(), std::int64_t(1));
        QCOMPARE(a.reserved(), 800 * kMiB);
        QCOMPARE(a.peakReserved(), 800 * kMiB);
    }

    void reportsOutOfMemory()
    {
        CachingAllocatorModel a(1 * kGiB, kBase);
        a.allocate(700 * kMiB);
        const auto y = a.allocate(400 * kMiB);
        QCOMPARE(y.block, CachingAllocatorModel::kNoBlock);
        QCOMPARE(a.allocated(), 700 * kMiB);
    }

    void peaksTrackTheHighWaterMark()
    {
        CachingAllocatorModel a(10 * kGiB, kBase);
        const auto x = a.allocate(300 * kMiB);
        const auto y = a.allocate(200 * kMiB);
        a.release(x.block);
        a.release(y.block);
        QCOMPARE(a.peakAllocated(), 500 * kMiB);
        QCOMPARE(a.allocated(), std::int64_t(0));
        QCOMPARE(a.reserved(), 500 * kMiB);
    }
};

QTEST_GUILESS_MAIN(TestCachingAllocatorModel)
#include "test_cachingallocatormodel.moc"
