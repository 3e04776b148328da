// The caching-allocator model behind the generated "[memory]" events: the totals must behave like
// PyTorch's allocator (rounding, reuse, splitting, coalescing, cache flush before OOM), because the
// demo's memory story and every memory finding tested on generated traces rest on them.

#include "cachingallocatormodel.h"

#include <QTest>

#include <vector>

using rs::tracegen::AllocatorStats;
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
        QCOMPARE(a.stats().numOoms, std::int64_t(1));
    }

    void nonReleasableMemoryFollowsSplitsAndMerges()
    {
        // The inactive_split bookkeeping of alloc_found_block and free_block, step by step.
        CachingAllocatorModel a(10 * kGiB, kBase);
        const auto big = a.allocate(100 * kMiB);
        a.release(big.block);
        const auto inactive = [&] { return a.stats().inactiveSplitBytes[AllocatorStats::All].current; };
        const auto inactiveBlocks = [&] { return a.stats().inactiveSplit[AllocatorStats::All].current; };
        QCOMPARE(inactive(), std::int64_t(0)); // a whole free segment can be released
        const auto x = a.allocate(30 * kMiB);
        QCOMPARE(inactive(), 70 * kMiB);
        QCOMPARE(inactiveBlocks(), std::int64_t(1));
        const auto y = a.allocate(30 * kMiB);
        QCOMPARE(inactive(), 40 * kMiB); // the same leftover, shrunk
        QCOMPARE(inactiveBlocks(), std::int64_t(1));
        a.release(x.block);
        QCOMPARE(inactive(), 70 * kMiB); // a second free piece beside the allocated one
        QCOMPARE(inactiveBlocks(), std::int64_t(2));
        a.release(y.block);
        QCOMPARE(inactive(), std::int64_t(0)); // coalesced back into the whole segment
        QCOMPARE(inactiveBlocks(), std::int64_t(0));
        QCOMPARE(a.stats().inactiveSplitBytes[AllocatorStats::All].peak, 70 * kMiB);
    }

    void statsAddUpLikePytorchs()
    {
        // After any sequence: every counter is its totals' difference, the pools add up to the
        // aggregate, and the aggregate agrees with what allocated()/reserved() report.
        CachingAllocatorModel a(2 * kGiB, kBase);
        std::vector<std::pair<CachingAllocatorModel::Allocation, std::int64_t>> live; // block, bytes asked for
        std::uint64_t state = 12345;
        for (int i = 0; i < 4000; ++i) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const auto r = state >> 33;
            if (live.empty() || r % 3 != 0) {
                const std::int64_t bytes = r % 5 == 0 ? std::int64_t(r % (64 * kMiB)) + 1 : std::int64_t(r % (900 * 1024)) + 1;
                const auto x = a.allocate(bytes);
                if (x.block != CachingAllocatorModel::kNoBlock)
                    live.emplace_back(x, bytes);
            } else {
                const std::size_t k = r % live.size();
                a.release(live[k].first.block);
                live.erase(live.begin() + std::ptrdiff_t(k));
            }
        }
        const AllocatorStats &s = a.stats();
        for (const AllocatorStats::PoolStats *p : {&s.allocation, &s.segment, &s.active, &s.inactiveSplit,
                                                   &s.allocatedBytes, &s.reservedBytes, &s.activeBytes,
                                                   &s.inactiveSplitBytes, &s.requestedBytes}) {
            for (const AllocatorStats::Stat &st : *p) {
                QCOMPARE(st.current, st.allocated - st.freed);
                QVERIFY(st.peak >= st.current);
            }
            QCOMPARE((*p)[AllocatorStats::All].current, (*p)[AllocatorStats::Large].current + (*p)[AllocatorStats::Small].current);
            QCOMPARE((*p)[AllocatorStats::All].allocated,
                     (*p)[AllocatorStats::Large].allocated + (*p)[AllocatorStats::Small].allocated);
        }
        QCOMPARE(s.allocatedBytes[AllocatorStats::All].current, a.allocated());
        QCOMPARE(s.reservedBytes[AllocatorStats::All].current, a.reserved());
        QCOMPARE(s.allocation[AllocatorStats::All].current, std::int64_t(live.size()));
        std::int64_t requested = 0;
        for (const auto &[block, bytes] : live)
            requested += bytes;
        QCOMPARE(s.requestedBytes[AllocatorStats::All].current, requested);
        // Free memory inside partly used segments can never exceed what is reserved but unallocated.
        QVERIFY(s.inactiveSplitBytes[AllocatorStats::All].current <= a.reserved() - a.allocated());
        QVERIFY(s.numOoms > 0);
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
