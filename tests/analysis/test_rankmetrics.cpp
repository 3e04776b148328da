// Per-rank metrics on sessions with known answers: memory peaks and the reserved − allocated gap
// at the allocated peak, step median and MAD, micro-batches and input elements from DataLoader
// fetches, collective lateness on the aligned axis, OOM counts, capacity and memory outside
// PyTorch.

#include "rankmetrics.h"
#include "sessionfixture.h"

#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

std::vector<RankAlignment> offsets(std::initializer_list<std::pair<RankId, TimeNs>> list)
{
    std::vector<RankAlignment> out;
    for (const auto &[rank, offset] : list) {
        RankAlignment a;
        a.rank = rank;
        a.offsetNs = offset;
        a.method = AlignmentMethod::Collectives;
        out.push_back(a);
    }
    return out;
}

const RankMetrics &of(const std::vector<RankMetrics> &m, RankId rank)
{
    for (const RankMetrics &x : m)
        if (x.rank == rank)
            return x;
    static const RankMetrics none{};
    return none;
}

} // namespace

class TestRankMetrics : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void firstInputElements_data();
    void firstInputElements();
    void memoryPeaksAndFragmentation();
    void stepsAndMicroBatches();
    void collectiveLateness();
    void latenessKeepsGroupsApart();
    void oomCapacityAndOutsideMemory();
};

void TestRankMetrics::firstInputElements_data()
{
    QTest::addColumn<QString>("args");
    QTest::addColumn<qint64>("elements"); // -1: none
    QTest::newRow("token batch") << QStringLiteral(R"({"Input Dims":[[6, 1024], [], []]})") << qint64(6144);
    QTest::newRow("image batch") << QStringLiteral(R"({"External id":3,"Input Dims":[[32,3,224,224]],"Input type":["float"]})") << qint64(32 * 3 * 224 * 224);
    QTest::newRow("scalar first") << QStringLiteral(R"({"Input Dims":[[], [3]]})") << qint64(-1);
    QTest::newRow("no inputs") << QStringLiteral(R"({"Input Dims":[]})") << qint64(-1);
    QTest::newRow("no key") << QStringLiteral(R"({"External id":3})") << qint64(-1);
    QTest::newRow("empty") << QString() << qint64(-1);
}

void TestRankMetrics::firstInputElements()
{
    QFETCH(QString, args);
    QFETCH(qint64, elements);
    const auto n = RankMetricsBuilder::firstInputElements(args.toStdString());
    QCOMPARE(n.has_value(), elements >= 0);
    if (n)
        QCOMPARE(qint64(*n), elements);
}

void TestRankMetrics::memoryPeaksAndFragmentation()
{
    RankTrace t(0);
    t.allocated(kT0, 1 * kGiB);
    t.allocated(kT0 + 10 * kMs, 5 * kGiB); // the peak
    t.allocated(kT0 + 20 * kMs, 3 * kGiB);
    t.reserved(kT0, 2 * kGiB);
    t.reserved(kT0 + 5 * kMs, 6 * kGiB);  // what was reserved when allocated peaked
    t.reserved(kT0 + 15 * kMs, 7 * kGiB); // the reserved peak, later
    // A CPU-side allocated counter (device -1) is host memory: it must not count.
    const TrackId host = t.builder().track(TrackKind::MemoryAllocated, 0, 0, -1);
    t.builder().addCounterSample(host, kT0 + 1 * kMs, double(64 * kGiB));
    std::vector<SourceBuilder> src;
    src.push_back(t.take());
    const SessionPtr s = freeze(std::move(src));
    const auto m = RankMetricsBuilder::build(*s, offsets({{0, 250}}));
    QCOMPARE(m.size(), std::size_t(1));
    QCOMPARE(*m[0].peakAllocatedBytes, 5 * kGiB);
    QCOMPARE(*m[0].peakReservedBytes, 7 * kGiB);
    QCOMPARE(*m[0].peakTimeNs, kT0 + 10 * kMs + 250); // on the aligned axis
    QCOMPARE(*m[0].fragmentationBytes, 1 * kGiB);
    QCOMPARE(m[0].peakSource, MemorySource::Trace);
    QCOMPARE(m[0].fragmentationSource, MemorySource::Trace);
    QVERIFY(!m[0].gpuUsedPeakBytes);
    QVERIFY(!m[0].nonPytorchBytes);
    QVERIFY(!m[0].steps);
    QVERIFY(!m[0].oom);
}

void TestRankMetrics::stepsAndMicroBatches()
{
    RankTrace t(0);
    // Durations 100, 110, 90, 400, 105 ms: median 105, deviations 5, 5, 15, 295, 0 → MAD 5.
    const TimeNs durations[] = {100 * kMs, 110 * kMs, 90 * kMs, 400 * kMs, 105 * kMs};
    TimeNs at = kT0;
    for (int s = 0; s < 5; ++s) {
        t.step(10 + s, at, durations[s]);
        // Three micro-batches of 6 × 1024 tokens, except step 12: a fourth, of 6 × 1408.
        for (int mb = 0; mb < 3; ++mb)
            t.microBatch(at + mb * 20 * kMs + kMs);
        if (s == 2)
            t.microBatch(at + 65 * kMs, "[[6, 1408]]");
        at += durations[s];
    }
    // A fetch outside every step (the warm-up before profiling) is not a micro-batch of a step.
    t.microBatch(at + 50 * kMs);
    std::vector<SourceBuilder> src;
    src.push_back(t.take());
    const auto m = RankMetricsBuilder::build(*freeze(std::move(src)), offsets({{0, 0}}));
    QCOMPARE(*m[0].steps, std::int64_t(5));
    QCOMPARE(*m[0].stepTimeMedianNs, 105 * kMs);
    QCOMPARE(*m[0].stepTimeMadNs, 5 * kMs);
    QCOMPARE(*m[0].microBatches, std::int64_t(16));
    using PerStep = std::vector<std::pair<std::int64_t, std::int64_t>>;
    QCOMPARE(m[0].microBatchesPerStep, (PerStep{{10, 3}, {11, 3}, {12, 4}, {13, 3}, {14, 3}}));
    QCOMPARE(m[0].inputElementsPerStep,
             (PerStep{{10, 3 * 6144}, {11, 3 * 6144}, {12, 3 * 6144 + 6 * 1408}, {13, 3 * 6144}, {14, 3 * 6144}}));
    QCOMPARE(*m[0].inputElements, std::int64_t(15 * 6144 + 6 * 1408));
}

void TestRankMetrics::collectiveLateness()
{
    // Three ranks, four allreduces. Rank 1's clock is 5 s ahead (the alignment says −5 s) and it
    // starts 2 ms after rank 0; rank 2 starts 30 ms late at the third collective only.
    RankTrace r0(0), r1(1), r2(2);
    for (int k = 0; k < 4; ++k) {
        const TimeNs start = kT0 + k * 100 * kMs;
        const TimeNs end = start + 40 * kMs;
        const TimeNs late2 = k == 2 ? 30 * kMs : 0;
        r0.collective(start, end - start, 1000, k);
        r1.collective(start + 2 * kMs + 5 * kSec, end - start - 2 * kMs, 1000, k);
        r2.collective(start + late2, end - start - late2, 1000, k);
    }
    std::vector<SourceBuilder> src;
    src.push_back(r0.take());
    src.push_back(r1.take());
    src.push_back(r2.take());
    const auto m = RankMetricsBuilder::build(*freeze(std::move(src)), offsets({{0, 0}, {1, -5 * kSec}, {2, 0}}));
    QCOMPARE(*of(m, 0).collectives, std::int64_t(4));
    QCOMPARE(*of(m, 0).collectiveLatenessNs, TimeNs(0));
    QCOMPARE(*of(m, 1).collectiveLatenessNs, 2 * kMs);
    QCOMPARE(*of(m, 1).collectiveLatenessMaxNs, 2 * kMs);
    // Rank 1 is last by 2 ms at collectives 0, 1 and 3; at 2 rank 2 is last by 28 ms.
    QCOMPARE(of(m, 1).lastArrivals, std::int64_t(3));
    QCOMPARE(of(m, 2).lastArrivals, std::int64_t(1));
    QCOMPARE(*of(m, 2).collectiveLatenessNs, TimeNs(0)); // median of 0, 0, 30, 0 ms
    QCOMPARE(*of(m, 2).collectiveLatenessMaxNs, 30 * kMs);
    QCOMPARE(*of(m, 2).collectiveLatenessMaxAtNs, kT0 + 200 * kMs); // when rank 0 began waiting
    QCOMPARE(*of(m, 2).lastCollectiveSeq, std::int64_t(3));
}

void TestRankMetrics::latenessKeepsGroupsApart()
{
    // Rank 0 and 1 each run a data-parallel allreduce (group "dp") and a tensor-parallel one
    // (group "tp") of the same size that end within the tolerance. Matched by group, nobody is
    // late; matched across groups, rank 1 would look 20 ms late.
    RankTrace r0(0), r1(1);
    r0.collective(kT0, 50 * kMs, 4096, -1, "allreduce", "dp");
    r0.collective(kT0 + 20 * kMs, 30 * kMs + 300'000, 4096, -1, "allreduce", "tp");
    r1.collective(kT0 + 20 * kMs, 30 * kMs + 100'000, 4096, -1, "allreduce", "tp");
    r1.collective(kT0, 50 * kMs + 200'000, 4096, -1, "allreduce", "dp");
    std::vector<SourceBuilder> src;
    src.push_back(r0.take());
    src.push_back(r1.take());
    const auto m = RankMetricsBuilder::build(*freeze(std::move(src)), offsets({{0, 0}, {1, 0}}));
    QCOMPARE(*of(m, 0).collectiveLatenessMaxNs, TimeNs(0));
    QCOMPARE(*of(m, 1).collectiveLatenessMaxNs, TimeNs(0));
    QCOMPARE(of(m, 1).lastArrivals, std::int64_t(0));
}

void TestRankMetrics::oomCapacityAndOutsideMemory()
{
    RankTrace t(0);
    t.device(80 * kGiB);
    t.reserved(kT0, 60 * kGiB);
    t.reserved(kT0 + 10 * kMs, 70 * kGiB);
    t.gpuUsed(kT0 + 5 * kMs, 74 * kGiB);
    t.oomInstant(kT0 + 12 * kMs);
    JobLog log("rank0.log");
    OomEvent o = oomEvent(0, kT0 + 12 * kMs, 2 * kGiB, 79 * kGiB + 300 * kMiB, 68 * kGiB, 71 * kGiB);
    log.oom(o);
    MemorySummary ms;
    ms.rank = 0;
    ms.rows.push_back({"Non-releasable memory", "all", true, 3 * kGiB, 4 * kGiB, -1, -1});
    log.builder().addMemorySummary(ms);
    std::vector<SourceBuilder> src;
    src.push_back(t.take());
    src.push_back(log.take());
    const auto m = RankMetricsBuilder::build(*freeze(std::move(src)), offsets({{0, 0}}));
    QCOMPARE(m.size(), std::size_t(1));
    QVERIFY(m[0].oom);
    QCOMPARE(m[0].oomCount, 1); // the allocator message and the profiler's [OutOfMemory] at the same moment: one OOM
    QCOMPARE(*m[0].capacityBytes, 80 * kGiB); // deviceProperties beat the OOM's rounded figure
    QCOMPARE(*m[0].gpuUsedPeakBytes, 74 * kGiB);
    QCOMPARE(*m[0].nonPytorchBytes, 4 * kGiB);
    QCOMPARE(*m[0].nonReleasableBytes, 3 * kGiB);
    // No allocated counter in the trace: the OOM message says what was allocated at the failure.
    QCOMPARE(*m[0].peakAllocatedBytes, 68 * kGiB);
    QCOMPARE(m[0].peakSource, MemorySource::OomMessage);
    QCOMPARE(*m[0].peakReservedBytes, 70 * kGiB);
    QCOMPARE(m[0].peakReservedSource, MemorySource::Trace);
    QCOMPARE(*m[0].fragmentationBytes, 3 * kGiB); // 71 − 68 at the OOM
    QCOMPARE(m[0].fragmentationSource, MemorySource::OomMessage);
}

QTEST_GUILESS_MAIN(TestRankMetrics)
#include "test_rankmetrics.moc"
