// Allocation spikes: the draw-up measure on hand-made counters (each rise measured from the lowest
// point since the counter was last as high), one spike per step, the minimum size, and what a
// spike is attributed to: the phase and op that allocated its bytes (across host threads), or the
// user's frame of a snapshot allocation.

#include "memoryspikes.h"
#include "sessionfixture.h"

#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

CounterSeries series(const QList<double> &values)
{
    CounterSeries s;
    for (qsizetype i = 0; i < values.size(); ++i) {
        s.times.push_back(kT0 + i * kMs);
        s.values.push_back(values[i]);
    }
    return s;
}

// Rises as "from-to:bytes", ordered by position (equal rises have no defined order).
QStringList describe(const std::vector<MemorySpikes::Rise> &rises)
{
    std::vector<MemorySpikes::Rise> sorted = rises;
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
    QStringList out;
    for (const auto &r : sorted)
        out << QStringLiteral("%1-%2:%3").arg(r.from).arg(r.to).arg(r.bytes);
    return out;
}

std::vector<RankAlignment> zeroOffset(RankId rank, TimeNs offset = 0)
{
    RankAlignment a;
    a.rank = rank;
    a.offsetNs = offset;
    return {a};
}

} // namespace

class TestMemorySpikes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rises_data();
    void rises();
    void risesLargestFirst();
    void spikesPerStepWithAttribution();
    void plateauWigglesAreNotSpikes();
    void snapshotFrame_data();
    void snapshotFrame();
};

void TestMemorySpikes::rises_data()
{
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<QStringList>("expected");
    // Each higher peak is measured from the start: the partial dips in between do not reset it.
    QTest::newRow("sawtooth climb") << QList<double>{0, 10, 5, 15, 10, 20, 15}
                                    << QStringList{QStringLiteral("0-1:10"), QStringLiteral("0-3:15"), QStringLiteral("0-5:20")};
    // A spike after a dip is measured from the dip, not from the earlier plateau.
    QTest::newRow("dip then spike") << QList<double>{50, 50, 10, 90, 40} << QStringList{QStringLiteral("2-3:80")};
    QTest::newRow("plateau wiggles") << QList<double>{100, 101, 100, 101, 100}
                                     << QStringList{QStringLiteral("0-1:1"), QStringLiteral("2-3:1")};
    // The last sample is a peak when the counter ends on its way up.
    QTest::newRow("monotonic up") << QList<double>{0, 1, 2, 3, 4} << QStringList{QStringLiteral("0-4:4")};
    QTest::newRow("monotonic down") << QList<double>{4, 3, 2, 1} << QStringList{};
    QTest::newRow("flat") << QList<double>{7, 7, 7} << QStringList{};
    QTest::newRow("one sample") << QList<double>{7} << QStringList{};
    QTest::newRow("empty") << QList<double>{} << QStringList{};
    // Two forward passes, the second higher: it passes the first peak, so it is measured from the
    // lowest point since the start (10), not from the low between the passes (12).
    QTest::newRow("two passes") << QList<double>{10, 30, 50, 20, 12, 40, 70, 15}
                                << QStringList{QStringLiteral("0-2:40"), QStringLiteral("0-6:60")};
}

void TestMemorySpikes::rises()
{
    QFETCH(QList<double>, values);
    QFETCH(QStringList, expected);
    QCOMPARE(describe(MemorySpikes::rises(series(values))), expected);
}

void TestMemorySpikes::risesLargestFirst()
{
    const auto r = MemorySpikes::rises(series({0, 5, 1, 9, 2, 4, 3}));
    QCOMPARE(r.size(), std::size_t(3));
    QCOMPARE(r[0].bytes, 9.0);
    QCOMPARE(r[1].bytes, 5.0);
    QCOMPARE(r[2].bytes, 2.0);
    QCOMPARE(r[2].from, std::size_t(4));
}

void TestMemorySpikes::spikesPerStepWithAttribution()
{
    RankTrace t(3);
    const TrackId autograd = t.thread(200);
    // Step 1, forward on the main thread: linear › addmm › empty (the factory is not the cause),
    // then bmm. Step 2, backward: the Python thread waits in backward() (started earlier) while the
    // autograd thread allocates in MmBackward0 › mm.
    t.step(1, kT0, 100 * kMs);
    t.span(t.cpu(), "DistributedDataParallel.forward", kT0 + 10 * kMs, 50 * kMs, {}, SpanFlagAnnotation, "user_annotation");
    t.span(t.cpu(), "aten::linear", kT0 + 20 * kMs, 10 * kMs);
    t.span(t.cpu(), "aten::addmm", kT0 + 21 * kMs, 8 * kMs);
    t.span(t.cpu(), "aten::empty", kT0 + 22 * kMs, 1 * kMs);
    t.span(t.cpu(), "aten::bmm", kT0 + 40 * kMs, 10 * kMs);
    t.step(2, kT0 + 100 * kMs, 100 * kMs);
    t.span(t.cpu(), "autograd::engine::backward", kT0 + 110 * kMs, 80 * kMs);
    t.span(autograd, "MmBackward0", kT0 + 165 * kMs, 15 * kMs);
    t.span(autograd, "aten::mm", kT0 + 166 * kMs, 13 * kMs);
    t.allocated(kT0 + 5 * kMs, 1 * kGiB);
    t.allocated(kT0 + 22 * kMs + 500'000, 3 * kGiB); // +2 GiB in addmm (through empty)
    t.allocated(kT0 + 45 * kMs, 7 * kGiB);           // +4 GiB in bmm: the costliest op
    t.allocated(kT0 + 55 * kMs, 7 * kGiB + 512 * kMiB); // +0.5 GiB in forward itself
    t.allocated(kT0 + 70 * kMs, 2 * kGiB);
    t.allocated(kT0 + 100 * kMs, 1 * kGiB + 512 * kMiB);
    t.allocated(kT0 + 170 * kMs, 5 * kGiB);          // +3.5 GiB in the backward
    t.allocated(kT0 + 180 * kMs, 2 * kGiB);
    t.allocated(kT0 + 190 * kMs, 2 * kGiB + 8 * kMiB); // +8 MiB: below the minimum
    std::vector<SourceBuilder> src;
    src.push_back(t.take());
    const SessionPtr s = freeze(std::move(src));
    const auto spikes = MemorySpikes::find(*s, zeroOffset(3, -1000));
    QCOMPARE(spikes.size(), std::size_t(2));
    QCOMPARE(spikes[0].rank, 3);
    QCOMPARE(spikes[0].step, std::int64_t(1));
    QCOMPARE(spikes[0].bytes, 6 * kGiB + 512 * kMiB);
    QCOMPARE(spikes[0].timeNs, kT0 + 5 * kMs - 1000); // the low point, on the aligned axis
    QCOMPARE(spikes[0].durationNs, 50 * kMs);
    QCOMPARE(qs(spikes[0].attributedTo), QStringLiteral("DistributedDataParallel.forward \u203a aten::bmm"));
    QCOMPARE(qs(spikes[0].source), QStringLiteral("rank-3.pt.trace.json"));
    QCOMPARE(spikes[1].step, std::int64_t(2));
    QCOMPARE(spikes[1].bytes, 3 * kGiB + 512 * kMiB);
    QCOMPARE(qs(spikes[1].attributedTo), QStringLiteral("MmBackward0 \u203a aten::mm"));

    // At most one spike per rank: the largest.
    const auto top = MemorySpikes::find(*s, zeroOffset(3), 1);
    QCOMPARE(top.size(), std::size_t(1));
    QCOMPARE(top[0].step, std::int64_t(1));
}

void TestMemorySpikes::plateauWigglesAreNotSpikes()
{
    RankTrace t(0);
    for (int i = 0; i < 100; ++i)
        t.allocated(kT0 + i * kMs, 10 * kGiB + (i % 2) * 15 * kMiB); // 15 MiB wiggles, under 16 MiB
    std::vector<SourceBuilder> src;
    src.push_back(t.take());
    const SessionPtr s = freeze(std::move(src));
    QVERIFY(MemorySpikes::find(*s, zeroOffset(0)).empty());
    // The same wiggles count when the caller lowers the threshold.
    QCOMPARE(MemorySpikes::find(*s, zeroOffset(0), 8, 1 * kMiB).size(), std::size_t(1));
}

void TestMemorySpikes::snapshotFrame_data()
{
    // Frames innermost first, as snapshots store them: "name|file|line;...".
    QTest::addColumn<QString>("frames");
    QTest::addColumn<QString>("expected");
    QTest::newRow("user frame under torch") << QStringLiteral("empty|/usr/lib/python3/site-packages/torch/nn/modules/linear.py|114;"
                                                             "forward|/home/u/model.py|39;train|/home/u/train.py|80")
                                           << QStringLiteral("forward (/home/u/model.py:39)");
    QTest::newRow("interpreter C frames skipped") << QStringLiteral("cfunction_call|/usr/local/src/conda/python-3.10.14/Objects/methodobject.c|543;"
                                                                   "_PyEval_EvalFrameDefault|/usr/local/src/Python/ceval.c|4181;"
                                                                   "<module>|/tmp/ipykernel_114/310.py|21")
                                                 << QStringLiteral("<module> (/tmp/ipykernel_114/310.py:21)");
    QTest::newRow("only native frames") << QStringLiteral("c10::cuda::CUDACachingAllocator::malloc|??|0;"
                                                         "cfunction_call|/src/Objects/methodobject.c|543")
                                       << QStringLiteral("cfunction_call (/src/Objects/methodobject.c:543)");
    QTest::newRow("only library frames") << QStringLiteral("at::empty|??|0;c10::alloc|??|0")
                                        << QStringLiteral("at::empty");
}

void TestMemorySpikes::snapshotFrame()
{
    QFETCH(QString, frames);
    QFETCH(QString, expected);
    RankTrace t(0);
    t.allocated(kT0, 1 * kGiB);
    t.allocated(kT0 + 10 * kMs, 3 * kGiB);
    t.allocated(kT0 + 20 * kMs, 1 * kGiB);
    std::vector<StackFrame> stack;
    for (const QString &f : frames.split(QLatin1Char(';'))) {
        const QStringList p = f.split(QLatin1Char('|'));
        stack.push_back({p[1].toStdString(), p[0].toStdString(), p[2].toInt()});
    }
    AllocatorEvidence &ev = t.builder().allocator();
    ev.stacks.push_back(stack);
    // A small allocation with no useful frame, and the largest one inside the rise.
    ev.allocations.push_back({kNoRank, 0, kT0 + 2 * kMs, kNoTime, 0x1000, 1 * kMiB, 0, -1});
    ev.allocations.push_back({kNoRank, 0, kT0 + 5 * kMs, kNoTime, 0x2000, 2 * kGiB, 1, 0});
    std::vector<SourceBuilder> src;
    src.push_back(t.take());
    const auto spikes = MemorySpikes::find(*freeze(std::move(src)), zeroOffset(0));
    QCOMPARE(spikes.size(), std::size_t(1));
    QCOMPARE(qs(spikes[0].attributedTo), expected);
}

QTEST_GUILESS_MAIN(TestMemorySpikes)
#include "test_memoryspikes.moc"
