// Every kind of memory evidence reaches the per-rank metrics: which one the peaks come from
// (trace counters, then a snapshot, then memory_summary tables, then an OOM message, then a log's
// counters), and the OOM count that counts each failure once whichever evidence reports it (a
// log's message, the profiler's [OutOfMemory], a memory_summary's "CUDA OOMs" of the same rank).
// Also: memory_summary tables alone give divergent ranks, and peaks of different kinds of
// evidence are not compared with each other.

#include "oomincidents.h"
#include "rankmetrics.h"
#include "sessionfixture.h"

#include <QTest>

#include <algorithm>

using namespace rs;
using namespace rs::test;

namespace {

enum Evidence : int { T = 1, S = 2, SC = 4, M = 8, O = 16, L = 32, TR = 64 };

// A memory_summary table with the Peak/Cur columns this test needs (bytes; -1: row left out).
MemorySummary table(RankId rank, std::int64_t allocCur, std::int64_t allocPeak, std::int64_t resCur, std::int64_t resPeak,
                    std::int64_t ooms = 0, std::int64_t retries = 0, std::int64_t nrCur = -1, std::int64_t nrPeak = -1)
{
    MemorySummary m;
    m.rank = rank;
    m.device = 0;
    m.ooms = ooms;
    m.allocRetries = retries;
    if (allocPeak >= 0)
        m.rows.push_back({"Allocated memory", "all", true, allocCur, allocPeak, -1, -1});
    if (resPeak >= 0)
        m.rows.push_back({"GPU reserved memory", "all", true, resCur, resPeak, -1, -1});
    if (nrPeak >= 0)
        m.rows.push_back({"Non-releasable memory", "all", true, nrCur, nrPeak, -1, -1});
    return m;
}

SegmentRecord segment(std::int64_t total, std::int64_t allocated, bool split)
{
    SegmentRecord s;
    s.totalSize = total;
    s.allocatedSize = s.activeSize = allocated;
    if (split) {
        s.blocks.push_back({0, allocated, allocated, SegmentRecord::Block::State::Allocated, -1});
        s.blocks.push_back({std::uint64_t(allocated), total - allocated, 0, SegmentRecord::Block::State::Inactive, -1});
    }
    return s;
}

// Rank 0 with the evidence named by `bits`. Values (GiB): trace 40/44, snapshot segments 30/50
// (with a 4 GiB split block), snapshot counters 35/50, memory_summary 60/62, OOM message 70/72,
// log counters 20/21; TR: a trace with only a reserved counter (44).
SessionPtr evidence(int bits)
{
    std::vector<SourceBuilder> src;
    if (bits & (T | TR)) {
        RankTrace t(0);
        if (bits & T)
            t.allocated(kT0 + kSec, 40 * kGiB);
        t.reserved(kT0 + 500 * kMs, 44 * kGiB);
        src.push_back(t.take());
    }
    if (bits & (S | SC)) {
        SourceBuilder b("rank0_snapshot.pickle");
        b.source().format = "memory-snapshot";
        b.source().ranks = {0};
        b.source().hasClock = true;
        b.allocator().segments.push_back(segment(26 * kGiB, 22 * kGiB, true));
        b.allocator().segments.push_back(segment(24 * kGiB, 8 * kGiB, false));
        if (bits & SC) {
            const TrackId a = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
            b.addCounterSample(a, kT0 + 2 * kSec, double(35 * kGiB));
            b.addCounterSample(a, kT0 + 3 * kSec, double(30 * kGiB));
            const TrackId r = b.track(TrackKind::MemoryReserved, 0, 0, 0);
            b.addCounterSample(r, kT0 + 2 * kSec, double(50 * kGiB));
        }
        b.finish();
        src.push_back(std::move(b));
    }
    if (bits & (M | O)) {
        JobLog log("rank0.log");
        if (bits & O)
            log.oom(oomEvent(0, kT0 + 4 * kSec, 2 * kGiB, 80 * kGiB, 70 * kGiB, 72 * kGiB));
        if (bits & M)
            log.summary(table(0, 10 * kGiB, 60 * kGiB, 62 * kGiB, 62 * kGiB, (bits & O) ? 1 : 0));
        src.push_back(log.take());
    }
    if (bits & L) {
        SourceBuilder b("train.log");
        b.source().format = "job-log";
        b.source().ranks = {0};
        b.source().hasClock = true;
        const TrackId a = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
        b.addCounterSample(a, kT0 + 5 * kSec, double(20 * kGiB));
        const TrackId r = b.track(TrackKind::MemoryReserved, 0, 0, 0);
        b.addCounterSample(r, kT0 + 5 * kSec, double(21 * kGiB));
        b.finish();
        src.push_back(std::move(b));
    }
    if (src.empty()) { // a rank with no memory evidence at all
        RankTrace t(0);
        t.step(1, kT0, kSec);
        src.push_back(t.take());
    }
    return freeze(std::move(src));
}

std::vector<RankAlignment> noOffsets()
{
    RankAlignment a;
    a.rank = 0;
    a.method = AlignmentMethod::WallClock;
    return {a};
}

QString name(MemorySource s)
{
    const char *n = memorySourceName(s);
    return n ? QString::fromLatin1(n) : QStringLiteral("null");
}

} // namespace

class TestEvidenceMetrics : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void peakSource_data();
    void peakSource();
    void summaryAndSnapshotDetails();
    void oomCount_data();
    void oomCount();
    void summaryOnlyDivergence();
    void peaksOfDifferentEvidenceNotCompared();
};

void TestEvidenceMetrics::peakSource_data()
{
    QTest::addColumn<int>("bits");
    QTest::addColumn<QString>("source");
    QTest::addColumn<qint64>("allocatedGiB"); // -1: null
    QTest::addColumn<qint64>("reservedGiB");
    QTest::addColumn<QString>("reservedSource");
    QTest::addColumn<int>("readings");
    QTest::newRow("nothing") << 0 << "null" << qint64(-1) << qint64(-1) << "null" << 0;
    QTest::newRow("trace alone") << int(T) << "trace" << qint64(40) << qint64(44) << "trace" << 1;
    QTest::newRow("snapshot segments alone") << int(S) << "snapshot" << qint64(30) << qint64(50) << "snapshot" << 1;
    QTest::newRow("snapshot counters and segments") << int(S | SC) << "snapshot" << qint64(35) << qint64(50) << "snapshot" << 1;
    QTest::newRow("memory_summary alone") << int(M) << "memory-summary" << qint64(60) << qint64(62) << "memory-summary" << 1;
    QTest::newRow("oom message alone") << int(O) << "oom-message" << qint64(70) << qint64(72) << "oom-message" << 1;
    QTest::newRow("log counters alone") << int(L) << "log" << qint64(20) << qint64(21) << "log" << 1;
    QTest::newRow("all: trace wins") << int(T | S | M | O | L) << "trace" << qint64(40) << qint64(44) << "trace" << 5;
    QTest::newRow("no trace: snapshot") << int(S | M | O | L) << "snapshot" << qint64(30) << qint64(50) << "snapshot" << 4;
    QTest::newRow("summary beats oom and log") << int(M | O | L) << "memory-summary" << qint64(60) << qint64(62) << "memory-summary" << 3;
    QTest::newRow("oom beats log") << int(O | L) << "oom-message" << qint64(70) << qint64(72) << "oom-message" << 2;
    QTest::newRow("summary beats log") << int(M | L) << "memory-summary" << qint64(60) << qint64(62) << "memory-summary" << 2;
    // A trace with a reserved counter only: allocated comes from the next evidence that has it.
    QTest::newRow("trace reserved only, oom allocated") << int(TR | O) << "oom-message" << qint64(70) << qint64(44) << "trace" << 2;
}

void TestEvidenceMetrics::peakSource()
{
    QFETCH(int, bits);
    QFETCH(QString, source);
    QFETCH(qint64, allocatedGiB);
    QFETCH(qint64, reservedGiB);
    QFETCH(QString, reservedSource);
    QFETCH(int, readings);
    const SessionPtr s = evidence(bits);
    const auto m = RankMetricsBuilder::build(*s, noOffsets());
    QCOMPARE(m.size(), std::size_t(1));
    QCOMPARE(name(m[0].peakSource), source);
    QCOMPARE(name(m[0].peakReservedSource), reservedSource);
    QCOMPARE(qint64(m[0].peakAllocatedBytes.value_or(-kGiB) / kGiB), allocatedGiB);
    QCOMPARE(qint64(m[0].peakReservedBytes.value_or(-kGiB) / kGiB), reservedGiB);
    QCOMPARE(int(m[0].memoryReadings.size()), readings);
    for (std::size_t i = 1; i < m[0].memoryReadings.size(); ++i) // best first, one per kind
        QVERIFY(m[0].memoryReadings[i - 1].source < m[0].memoryReadings[i].source);
}

void TestEvidenceMetrics::summaryAndSnapshotDetails()
{
    // The trace's peak has a time; the OOM message's is the OOM's; a memory_summary's has none.
    QCOMPARE(*RankMetricsBuilder::build(*evidence(T), noOffsets())[0].peakTimeNs, kT0 + kSec);
    QCOMPARE(*RankMetricsBuilder::build(*evidence(O), noOffsets())[0].peakTimeNs, kT0 + 4 * kSec);
    QVERIFY(!RankMetricsBuilder::build(*evidence(M), noOffsets())[0].peakTimeNs);

    // memory_summary: current values of the latest table, the peak gap as the idle memory.
    const auto ms = RankMetricsBuilder::build(*evidence(M | O), noOffsets())[0];
    QCOMPARE(*ms.currentAllocatedBytes, 10 * kGiB);
    QCOMPARE(*ms.currentReservedBytes, 62 * kGiB);
    QCOMPARE(*ms.fragmentationBytes, 2 * kGiB); // 62 − 60 at the peaks, not 62 − 10 when printed
    QCOMPARE(ms.fragmentationSource, MemorySource::MemorySummary);
    QCOMPARE(*ms.oomRequestedBytes, 2 * kGiB);
    QCOMPARE(ms.oomCount, 1); // the message and the table that counts it are one OOM
    QVERIFY(ms.oom);

    // A snapshot alone: reserved − allocated at snapshot time, and the free block inside the split
    // segment as non-releasable (the wholly free part of the other segment can be released).
    const auto snap = RankMetricsBuilder::build(*evidence(S), noOffsets())[0];
    QCOMPARE(*snap.fragmentationBytes, 20 * kGiB);
    QCOMPARE(*snap.nonReleasableBytes, 4 * kGiB);
    QVERIFY(!snap.peakTimeNs);
    QCOMPARE(snap.oomCount, 0);
    QVERIFY(!snap.oom);
}

void TestEvidenceMetrics::oomCount_data()
{
    QTest::addColumn<int>("scenario");
    QTest::addColumn<int>("count");
    QTest::newRow("log + trace + summary of one OOM") << 0 << 1;
    QTest::newRow("untimed log + trace + untimed summary") << 1 << 1;
    QTest::newRow("two OOMs minutes apart") << 2 << 2;
    QTest::newRow("two OOMs, each in log and trace") << 3 << 2;
    QTest::newRow("one message in two files") << 4 << 1;
    QTest::newRow("summary counts 58 after its message") << 5 << 58;
    QTest::newRow("summary counts 1 before a later message") << 6 << 2;
    QTest::newRow("NCCL's lines and the message") << 7 << 1;
    QTest::newRow("trace OOM far from the log's") << 8 << 2;
    QTest::newRow("summary says 0") << 9 << 0;
    QTest::newRow("summary alone counts 3") << 10 << 3;
    // Without times, one file that states the same failure twice (a traceback, then the launcher's
    // summary quoting it) is one OOM.
    QTest::newRow("same message twice in one log, no times") << 11 << 1;
}

void TestEvidenceMetrics::oomCount()
{
    QFETCH(int, scenario);
    QFETCH(int, count);
    std::vector<SourceBuilder> src;
    RankTrace t(0);
    t.step(1, kT0, 600 * kSec);
    JobLog log("rank0.log");
    const OomEvent a = oomEvent(0, kT0 + 10 * kSec, 2 * kGiB, 80 * kGiB, 70 * kGiB, 72 * kGiB);
    OomEvent b = oomEvent(0, kT0 + 300 * kSec, kGiB, 80 * kGiB, 75 * kGiB, 76 * kGiB);
    OomEvent untimed = a;
    untimed.time = kNoTime;
    switch (scenario) {
    case 0: {
        t.oomInstant(kT0 + 10 * kSec - 3 * kMs);
        MemorySummary m = table(0, kGiB, 70 * kGiB, 72 * kGiB, 72 * kGiB, 1, 1);
        m.oom = log.oom(a);
        m.time = kT0 + 11 * kSec;
        log.summary(m);
        break;
    }
    case 1: {
        t.oomInstant(kT0 + 10 * kSec);
        log.oom(untimed);
        JobLog other("summary.txt");
        other.summary(table(0, kGiB, 70 * kGiB, 72 * kGiB, 72 * kGiB, 1));
        src.push_back(other.take());
        break;
    }
    case 2:
        log.oom(a);
        log.oom(b);
        break;
    case 3:
        log.oom(a);
        log.oom(b);
        t.oomInstant(a.time + kMs);
        t.oomInstant(b.time + kMs);
        break;
    case 4: {
        log.oom(untimed);
        JobLog combined("job.log");
        combined.record(1, "unrelated line");
        combined.oom(untimed);
        src.push_back(combined.take());
        break;
    }
    case 5: {
        MemorySummary m = table(0, 14 * kGiB, 15 * kGiB, 15 * kGiB, 15 * kGiB, 58, 66);
        m.oom = log.oom(untimed);
        log.summary(m);
        break;
    }
    case 6:
        log.summary(table(0, kGiB, 70 * kGiB, 72 * kGiB, 72 * kGiB, 1));
        log.oom(untimed);
        break;
    case 7:
        for (int i = 0; i < 3; ++i)
            log.record(0, "misc/alloc.h:12 NCCL WARN Cuda failure 'out of memory'", LogFlagOom, LogKind::Nccl, LogLevel::Warning);
        log.oom(untimed);
        break;
    case 8:
        log.oom(a);
        t.oomInstant(a.time + 5 * 60 * kSec);
        break;
    case 9:
        log.summary(table(0, kGiB, 70 * kGiB, 72 * kGiB, 72 * kGiB, 0));
        break;
    case 10:
        log.summary(table(0, kGiB, 70 * kGiB, 72 * kGiB, 72 * kGiB, 2));
        log.summary(table(0, kGiB, 70 * kGiB, 72 * kGiB, 72 * kGiB, 3));
        break;
    case 11:
        log.oom(untimed);
        log.record(0, "retrying with a smaller batch");
        log.oom(untimed);
        break;
    default: QFAIL("no such scenario");
    }
    src.push_back(t.take());
    src.push_back(log.take());
    const SessionPtr s = freeze(std::move(src));
    QCOMPARE(OomIncidents::countOf(OomIncidents::find(*s), 0), count);
    const AnalysisResult r = Analyzer::run(*s);
    const RankMetrics *m = r.metricsOf(0);
    QVERIFY(m);
    QCOMPARE(m->oomCount, count);
    QCOMPARE(m->oom, count > 0);
    const auto oomFindings = findingsOf(r, "oom");
    QCOMPARE(int(oomFindings.size()), count > 0 ? 1 : 0); // one finding per rank, however many times
    if (count > 1)
        QVERIFY2(qs(oomFindings.front()->title).contains(QString::number(count) + " times"), oomFindings.front()->title.c_str());
    if (const RankMetrics *other = r.metricsOf(1))
        QCOMPARE(other->oomCount, 0); // rank 1's line of the combined log is not rank 0's OOM
}

void TestEvidenceMetrics::summaryOnlyDivergence()
{
    // Four ranks that left only memory_summary tables, one file each: rank 3 peaks far higher.
    std::vector<SourceBuilder> src;
    const std::int64_t peaks[] = {60, 61, 60, 75};
    for (RankId rank = 0; rank < 4; ++rank) {
        JobLog log("rank" + std::to_string(rank) + "_memory_summary.txt");
        log.builder().source().format = "memory-summary";
        log.summary(table(rank, 5 * kGiB, peaks[rank] * kGiB, 78 * kGiB, peaks[rank] * kGiB + kGiB));
        src.push_back(log.take());
    }
    const AnalysisResult r = Analyzer::run(*freeze(std::move(src)));
    QCOMPARE(r.metrics.size(), std::size_t(4));
    for (const RankMetrics &m : r.metrics)
        QCOMPARE(m.peakSource, MemorySource::MemorySummary);
    bool found = false;
    for (const Divergence &d : r.divergent)
        if (d.metric == "peak_allocated_bytes") {
            QCOMPARE(d.rank, RankId(3));
            QCOMPARE(std::int64_t(d.value), 75 * kGiB);
            found = true;
        }
    QVERIFY(found);
}

void TestEvidenceMetrics::peaksOfDifferentEvidenceNotCompared()
{
    // Three traces peak at 40 GiB; rank 3 left only a memory_summary (its peak spans the whole
    // process): not a divergence. With rank 3 in a trace as well, it is.
    for (bool sameKind : {false, true}) {
        std::vector<SourceBuilder> src;
        for (RankId rank = 0; rank < 4; ++rank) {
            const std::int64_t peak = rank == 3 ? 75 * kGiB : 40 * kGiB;
            if (rank == 3 && !sameKind) {
                JobLog log("rank3.log");
                log.summary(table(3, kGiB, peak, peak, peak));
                src.push_back(log.take());
                continue;
            }
            RankTrace t(rank);
            t.allocated(kT0 + kSec, peak);
            src.push_back(t.take());
        }
        const AnalysisResult r = Analyzer::run(*freeze(std::move(src)));
        const bool diverges = std::any_of(r.divergent.begin(), r.divergent.end(), [](const Divergence &d) {
            return d.metric == "peak_allocated_bytes" && d.rank == 3;
        });
        QCOMPARE(diverges, sameKind);
    }
}

QTEST_GUILESS_MAIN(TestEvidenceMetrics)
#include "test_evidencemetrics.moc"
