// Clock alignment on evidence with a known answer: real multi-rank traces whose clocks the test
// moves by known amounts before the session is frozen, and hand-built ranks for the cases the
// real sets lack (different trace windows, periodic collectives, steps only, no clock, user
// offsets, unrelated traces, process groups that do not include the reference).
//
// The invariant checked on the real sets: shifting rank r's clock by delta_r must change its
// recovered offset by exactly −delta_r relative to the reference rank, so that every event lands
// at the same aligned time as before. With the reference itself shifted by delta_0, every other
// offset moves by +delta_0 (the common axis is the reference's clock).

#include "clockalignment.h"
#include "importerregistry.h"
#include "sessionfixture.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTest>

#include <cstdlib>
#include <map>

using namespace rs;
using namespace rs::test;

namespace {

QStringList sampleFiles(const QString &relDir, const QString &pattern)
{
    const QDir dir(QStringLiteral(RANKSCOPE_SAMPLES_DIR "/") + relDir);
    QStringList out;
    for (const QString &f : dir.entryList({pattern}, QDir::Files, QDir::Name))
        out << dir.filePath(f);
    return out;
}

std::vector<SourceBuilder> importAll(const QStringList &files)
{
    std::vector<SourceBuilder> out;
    for (const QString &f : files) {
        ImportContext ctx;
        out.push_back(ImporterRegistry::instance().importFile(f.toStdString(), ctx));
    }
    return out;
}

// Imports `files`, shifts the sources of the ranks in `shifts` and aligns.
std::vector<RankAlignment> alignShifted(const QStringList &files, const std::map<RankId, TimeNs> &shifts)
{
    std::vector<SourceBuilder> sources = importAll(files);
    for (SourceBuilder &b : sources)
        for (const auto &[rank, delta] : shifts)
            if (b.source().ranks == std::vector<RankId>{rank})
                b.shiftTimes(delta);
    return ClockAlignment::align(*freeze(std::move(sources)));
}

const RankAlignment &of(const std::vector<RankAlignment> &a, RankId rank)
{
    for (const RankAlignment &x : a)
        if (x.rank == rank)
            return x;
    static const RankAlignment none{};
    return none;
}

// The same collective and step pattern on every rank, irregular in size and spacing as DDP
// buckets are; rank r's clock runs skew[r] ahead, so its expected offset is −skew[r].
RankTrace syntheticRank(RankId rank, TimeNs skew, int first, int count, bool withSeq, bool periodic, bool steps)
{
    RankTrace t(rank);
    const TimeNs jitter = (rank * 7919 % 41 - 20) * 1000; // ±20 µs: kernels never end exactly together
    for (int k = first; k < first + count; ++k) {
        const TimeNs start = periodic ? kT0 + k * 300 * kMs : kT0 + k * 37 * kMs + (k * k % 11) * 3 * kMs;
        const std::int64_t nelems = periodic ? 25 << 20 : (1 + k % 5) * 1'000'003;
        t.collective(start + skew + (k % 2 ? jitter : -jitter), 2 * kMs + k % 3 * kMs, nelems, withSeq ? k : -1);
    }
    if (steps)
        for (int s = 0; s < 12; ++s)
            t.step(100 + s, kT0 + s * 600 * kMs + skew - 550 * kMs, 595 * kMs + jitter);
    return t;
}

// A one-node style job of four ranks: 24 allreduces 4.7 ms apart in a 4-bucket size cycle, a
// 40 ms pause after the sixth, every kernel end within ±3 µs of its peers'. Rank 2 took an extra
// micro-batch: four more allreduces of its own in the pause. With `seqAhead` its c10d counter
// counts them, so its later collectives carry sequence numbers four above its peers'.
// `skew2` moves rank 2's clock; `hosts` names each rank's host through NCCL Init lines.
// With `skipped`, rank 2 instead skipped collectives 6..9 its peers ran (and its counter, with
// `seqAhead`, runs four behind after them).
std::vector<SourceBuilder> extraMicroBatchJob(bool withSeq, bool seqAhead, TimeNs skew2, const std::vector<std::string> &hosts,
                                              bool skipped = false)
{
    const std::int64_t sizes[4] = {25'165'824, 37'757'952, 151'047'168, 12'582'912};
    auto timeOf = [](int k) { return kT0 + k * 4700'000 + (k >= 6 ? 40 * kMs : 0); };
    std::vector<SourceBuilder> out;
    for (RankId r = 0; r < 4; ++r) {
        RankTrace t(r);
        const TimeNs skew = r == 2 ? skew2 : 0;
        const TimeNs jitter = (r % 2 ? 3000 : -3000);
        for (int k = 0; k < 24; ++k) {
            if (r == 2 && skipped && k >= 6 && k < 10)
                continue;
            const int ahead = skipped ? -4 : 4;
            const std::int64_t seq = !withSeq ? -1 : (r == 2 && seqAhead && k >= 6 ? k + ahead : k);
            t.collective(timeOf(k) + skew + jitter, 2 * kMs, sizes[k % 4], seq);
            if (r == 2 && k == 5 && !skipped)
                for (int j = 0; j < 4; ++j)
                    t.collective(timeOf(5) + 5 * kMs + j * 4700'000 + skew, 2 * kMs, sizes[j], withSeq && seqAhead ? 6 + j : -1);
        }
        out.push_back(t.take());
    }
    if (!hosts.empty()) {
        JobLog log("torchrun.log");
        for (RankId r = 0; r < 4; ++r) {
            NcclCommInfo c;
            c.rank = r;
            c.nranks = 4;
            c.cudaDev = r;
            c.commId = "0x245d";
            c.host = hosts[std::size_t(r)];
            c.pid = 48211 + r;
            c.complete = true;
            c.line = log.record(r, "NCCL INFO comm 0x55 rank " + std::to_string(r) + " nranks 4 - Init COMPLETE",
                                LogFlagNcclInit, LogKind::Nccl);
            log.logs().comms.push_back(c);
        }
        out.push_back(log.take());
    }
    return out;
}

} // namespace

class TestClockAlignment : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void realShifted_data();
    void realShifted();
    void differentWindows_data();
    void differentWindows();
    void stepsOnly_data();
    void stepsOnly();
    void clockLessRank();
    void userOverrides();
    void unrelatedTracesKeepWallClock();
    void transitiveThroughOtherGroup();
    void longTraceWithoutSeq();
    void longPeriodicTraceWithoutSeq();
    void extraCollectives_data();
    void extraCollectives();
    void hostsFromNcclInit();
    void demoIncidentOneNode();
    void confidence_data();
    void confidence();
};

void TestClockAlignment::realShifted_data()
{
    QTest::addColumn<QString>("set");
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<int>("ranks");
    QTest::addColumn<QList<int>>("shifted");
    QTest::addColumn<QList<qint64>>("deltas");
    const QString dlrm = QStringLiteral("profiler/param_dlrm_8rank"), dlrmFiles = QStringLiteral("*.json");
    QTest::newRow("dlrm rank 3 +3 s") << dlrm << dlrmFiles << 8 << QList<int>{3} << QList<qint64>{3 * kSec};
    QTest::newRow("dlrm rank 5 -1.5 s") << dlrm << dlrmFiles << 8 << QList<int>{5} << QList<qint64>{-1500 * kMs};
    QTest::newRow("dlrm rank 1 +250 ms") << dlrm << dlrmFiles << 8 << QList<int>{1} << QList<qint64>{250 * kMs};
    QTest::newRow("dlrm rank 7 +40 us") << dlrm << dlrmFiles << 8 << QList<int>{7} << QList<qint64>{40'000};
    QTest::newRow("dlrm ranks 2,4,6 at once") << dlrm << dlrmFiles << 8 << QList<int>{2, 4, 6}
                                              << QList<qint64>{2 * kSec, -700 * kMs, 90'000};
    QTest::newRow("dlrm reference rank 0 +2 s") << dlrm << dlrmFiles << 8 << QList<int>{0} << QList<qint64>{2 * kSec};
    QTest::newRow("dlrm every rank") << dlrm << dlrmFiles << 8 << QList<int>{0, 1, 2, 3, 4, 5, 6, 7}
                                     << QList<qint64>{-400 * kMs, 3 * kSec, 1, -2 * kSec, 55 * kMs, 777'777, -9 * kMs, 4 * kSec};
    const QString hta = QStringLiteral("profiler/hta_sampled_2rank"), htaFiles = QStringLiteral("*.json.gz");
    QTest::newRow("hta rank 1 +3 s") << hta << htaFiles << 2 << QList<int>{1} << QList<qint64>{3 * kSec};
    QTest::newRow("hta rank 1 -1.5 s") << hta << htaFiles << 2 << QList<int>{1} << QList<qint64>{-1500 * kMs};
    QTest::newRow("hta rank 1 +40 us") << hta << htaFiles << 2 << QList<int>{1} << QList<qint64>{40'000};
    QTest::newRow("hta reference rank 0 +250 ms") << hta << htaFiles << 2 << QList<int>{0} << QList<qint64>{250 * kMs};
}

void TestClockAlignment::realShifted()
{
    QFETCH(QString, set);
    QFETCH(QString, pattern);
    QFETCH(int, ranks);
    QFETCH(QList<int>, shifted);
    QFETCH(QList<qint64>, deltas);
    const QStringList files = sampleFiles(set, pattern);
    if (files.isEmpty())
        QSKIP("shared samples are not present");
    QCOMPARE(files.size(), ranks);

    const std::vector<RankAlignment> base = alignShifted(files, {});
    QCOMPARE(int(base.size()), ranks);
    for (const RankAlignment &a : base) {
        QCOMPARE(a.method, AlignmentMethod::Collectives);
        QVERIFY2(a.anchors >= 2, qPrintable(QStringLiteral("rank %1: %2 anchors").arg(a.rank).arg(a.anchors)));
        // Both sets were recorded on hosts whose clocks agree: the baseline is near zero.
        QVERIFY2(std::llabs(a.offsetNs) < kMs, qPrintable(QStringLiteral("rank %1 baseline %2 ns").arg(a.rank).arg(a.offsetNs)));
    }

    std::map<RankId, TimeNs> shifts;
    for (qsizetype i = 0; i < shifted.size(); ++i)
        shifts[shifted[i]] = deltas[i];
    const std::vector<RankAlignment> moved = alignShifted(files, shifts);
    QCOMPARE(int(moved.size()), ranks);
    const TimeNs refDelta = shifts.count(0) ? shifts[0] : 0;
    TimeNs maxError = 0;
    for (const RankAlignment &a : moved) {
        QCOMPARE(a.method, AlignmentMethod::Collectives);
        const TimeNs delta = shifts.count(a.rank) ? shifts[a.rank] : 0;
        const TimeNs expected = of(base, a.rank).offsetNs - (delta - refDelta);
        const TimeNs error = a.offsetNs - expected;
        maxError = std::max<TimeNs>(maxError, std::llabs(error));
        QVERIFY2(std::llabs(error) <= kMs, qPrintable(QStringLiteral("rank %1: offset %2, expected %3 (error %4 ns)")
                                                           .arg(a.rank).arg(a.offsetNs).arg(expected).arg(error)));
    }
    qInfo("max |error| %lld ns over %d ranks", static_cast<long long>(maxError), ranks);
}

void TestClockAlignment::differentWindows_data()
{
    QTest::addColumn<bool>("withSeq");
    QTest::addColumn<bool>("periodic");
    QTest::addColumn<bool>("steps");
    QTest::addColumn<qint64>("skew");      // rank 1's clock ahead of rank 0's
    QTest::addColumn<int>("anchors");      // collectives both windows share
    QTest::newRow("irregular, no seq, +2.5 s") << false << false << false << qint64(2500 * kMs) << 17;
    QTest::newRow("irregular, no seq, -40 ms") << false << false << false << qint64(-40 * kMs) << 17;
    QTest::newRow("irregular, seq, +2.5 s") << true << false << false << qint64(2500 * kMs) << 17;
    // One allreduce signature every 300 ms: shifts 0 and 3 both agree; the prior decides.
    QTest::newRow("periodic, wall clock prior, +20 ms") << false << true << false << qint64(20 * kMs) << 17;
    QTest::newRow("periodic, step prior, +3 s") << false << true << true << qint64(3 * kSec) << 17;
    QTest::newRow("periodic, seq, +3 s") << true << true << false << qint64(3 * kSec) << 17;
}

void TestClockAlignment::differentWindows()
{
    QFETCH(bool, withSeq);
    QFETCH(bool, periodic);
    QFETCH(bool, steps);
    QFETCH(qint64, skew);
    QFETCH(int, anchors);
    // Rank 0 recorded collectives 0..19, rank 1 3..22: its trace starts three collectives later.
    std::vector<SourceBuilder> src;
    src.push_back(syntheticRank(0, 0, 0, 20, withSeq, periodic, steps).take());
    src.push_back(syntheticRank(1, skew, 3, 20, withSeq, periodic, steps).take());
    const auto a = ClockAlignment::align(*freeze(std::move(src)));
    QCOMPARE(a.size(), std::size_t(2));
    QCOMPARE(a[1].method, AlignmentMethod::Collectives);
    QCOMPARE(a[1].reference, 0);
    QCOMPARE(a[1].anchors, anchors);
    const TimeNs error = a[1].offsetNs + skew;
    qInfo("error %lld ns, residual %lld ns", static_cast<long long>(error), static_cast<long long>(a[1].residualNs.value_or(-1)));
    // The ±20 µs jitter alternates by collective, so the median lands within it.
    QVERIFY2(std::llabs(error) <= 40'000, qPrintable(QStringLiteral("offset %1, expected %2").arg(a[1].offsetNs).arg(-skew)));
    QVERIFY(a[1].residualNs && *a[1].residualNs <= 40'000);
}

void TestClockAlignment::stepsOnly_data()
{
    QTest::addColumn<qint64>("skew");
    QTest::addColumn<int>("method");
    QTest::addColumn<qint64>("offset");
    QTest::newRow("+4 s: steps") << qint64(4 * kSec) << int(AlignmentMethod::Steps) << qint64(-4 * kSec);
    QTest::newRow("-1.5 s: steps") << qint64(-1500 * kMs) << int(AlignmentMethod::Steps) << qint64(1500 * kMs);
    // Below 50 ms step ends say less than the wall clock: keep it.
    QTest::newRow("+20 ms: wall clock") << qint64(20 * kMs) << int(AlignmentMethod::WallClock) << qint64(0);
}

void TestClockAlignment::stepsOnly()
{
    QFETCH(qint64, skew);
    QFETCH(int, method);
    QFETCH(qint64, offset);
    // No collectives (a gloo or CPU-only job): ProfilerSteps 100..109 that end at a common barrier.
    std::vector<SourceBuilder> src;
    for (RankId r = 0; r < 3; ++r) {
        RankTrace t(r);
        const TimeNs clock = r == 2 ? skew : 0;
        for (int s = 0; s < 10; ++s) {
            const TimeNs end = kT0 + (s + 1) * kSec + (r * 37 + s * 11) % 50 * 1000; // ends within 50 µs
            const TimeNs begin = kT0 + s * kSec + r * 3 * kMs;
            t.step(100 + s, begin + clock, end - begin);
        }
        src.push_back(t.take());
    }
    const auto a = ClockAlignment::align(*freeze(std::move(src)));
    QCOMPARE(a.size(), std::size_t(3));
    QCOMPARE(a[0].method, AlignmentMethod::WallClock);
    QCOMPARE(a[1].method, AlignmentMethod::WallClock);
    QCOMPARE(a[1].offsetNs, TimeNs(0));
    QCOMPARE(int(a[2].method), method);
    qInfo("error %lld ns", static_cast<long long>(a[2].offsetNs - offset));
    QVERIFY2(std::llabs(a[2].offsetNs - offset) <= 100'000,
             qPrintable(QStringLiteral("offset %1, expected %2").arg(a[2].offsetNs).arg(offset)));
    if (a[2].method == AlignmentMethod::Steps)
        QCOMPARE(a[2].anchors, 10);
}

void TestClockAlignment::clockLessRank()
{
    // Rank 0 and 1: traces with collectives; rank 2: a trace without any clock and nothing to
    // anchor it (no collectives, no steps); rank 3: clock-less with steps, placed by them.
    std::vector<SourceBuilder> src;
    src.push_back(syntheticRank(0, 0, 0, 10, false, false, true).take());
    src.push_back(syntheticRank(1, 5 * kMs, 0, 10, false, false, true).take());
    RankTrace bare(2, false);
    bare.span(bare.cpu(), "aten::mm", 1000, 500);
    src.push_back(bare.take());
    RankTrace relative(3, false);
    for (int s = 0; s < 12; ++s)
        relative.step(100 + s, s * 600 * kMs + 50 * kMs, 595 * kMs);
    src.push_back(relative.take());
    const auto a = ClockAlignment::align(*freeze(std::move(src)));
    QCOMPARE(a.size(), std::size_t(4));
    QCOMPARE(a[0].method, AlignmentMethod::Collectives);
    QCOMPARE(a[1].method, AlignmentMethod::Collectives);
    QCOMPARE(a[2].method, AlignmentMethod::None);
    QCOMPARE(a[2].offsetNs, TimeNs(0));
    QVERIFY(!a[2].residualNs);
    QCOMPARE(a[3].method, AlignmentMethod::Steps);
    // Rank 0's step ends at kT0 + s·600 ms + 45 ms ± jitter; rank 3's at s·600 ms + 645 ms.
    QVERIFY(std::llabs(a[3].offsetNs - (kT0 - 600 * kMs)) <= 40'000);
}

void TestClockAlignment::userOverrides()
{
    std::vector<SourceBuilder> src;
    src.push_back(syntheticRank(0, 0, 0, 10, true, false, false).take());
    src.push_back(syntheticRank(1, 2 * kSec, 0, 10, true, false, false).take());
    src.push_back(syntheticRank(2, -3 * kMs, 0, 10, true, false, false).take());
    const SessionPtr s = freeze(std::move(src));
    const auto a = ClockAlignment::align(*s, {{0, -7}, {1, 123'456'789}});
    QCOMPARE(a.size(), std::size_t(3));
    QCOMPARE(a[0].method, AlignmentMethod::User);
    QCOMPARE(a[0].offsetNs, TimeNs(-7));
    QCOMPARE(a[1].method, AlignmentMethod::User);
    QCOMPARE(a[1].offsetNs, TimeNs(123'456'789));
    QVERIFY(!a[1].residualNs);
    // An override moves only its own rank: rank 2 is still estimated against rank 0's clock.
    QCOMPARE(a[2].method, AlignmentMethod::Collectives);
    QVERIFY(std::llabs(a[2].offsetNs - 3 * kMs) <= 40'000);
}

void TestClockAlignment::unrelatedTracesKeepWallClock()
{
    // Two traces whose step numbers coincide but were recorded two days apart: not clock skew.
    std::vector<SourceBuilder> src;
    for (RankId r = 0; r < 2; ++r) {
        RankTrace t(r);
        for (int s = 0; s < 5; ++s)
            t.step(s, kT0 + r * 48 * 3600 * kSec + s * kSec, 900 * kMs);
        src.push_back(t.take());
    }
    const auto a = ClockAlignment::align(*freeze(std::move(src)));
    QCOMPARE(a[1].method, AlignmentMethod::WallClock);
    QCOMPARE(a[1].offsetNs, TimeNs(0));
}

void TestClockAlignment::transitiveThroughOtherGroup()
{
    // Pipeline-style groups: ranks 0 and 1 share group "dp0"; ranks 1 and 2 share "pp"; rank 2 never
    // meets rank 0, so its offset composes through rank 1.
    RankTrace r0(0), r1(1), r2(2);
    const TimeNs skew1 = 1200 * kMs, skew2 = -700 * kMs;
    for (int k = 0; k < 8; ++k) {
        const TimeNs t = kT0 + k * 41 * kMs + (k * k % 7) * kMs;
        r0.collective(t, 3 * kMs, 1000 + k, k, "allreduce", "dp0");
        r1.collective(t + skew1, 3 * kMs, 1000 + k, k, "allreduce", "dp0");
        r1.collective(t + 20 * kMs + skew1, kMs, 77, k, "send", "pp");
        r2.collective(t + 20 * kMs + skew2, kMs, 77, k, "send", "pp");
    }
    std::vector<SourceBuilder> src;
    src.push_back(r0.take());
    src.push_back(r1.take());
    src.push_back(r2.take());
    const auto a = ClockAlignment::align(*freeze(std::move(src)));
    QCOMPARE(a[1].method, AlignmentMethod::Collectives);
    QCOMPARE(a[1].offsetNs, -skew1);
    QCOMPARE(a[2].method, AlignmentMethod::Collectives);
    QCOMPARE(a[2].reference, 1);
    QCOMPARE(a[2].anchors, 8);
    QCOMPARE(a[2].offsetNs, -skew2);
}

void TestClockAlignment::longTraceWithoutSeq()
{
    // 20 000 collectives per rank without sequence numbers (older PyTorch), rank 1 starting 5 later
    // and 1.25 s ahead: the bounded shift search still finds it (about a second in a Debug build).
    std::vector<SourceBuilder> src;
    src.push_back(syntheticRank(0, 0, 0, 20000, false, false, false).take());
    src.push_back(syntheticRank(1, 1250 * kMs, 5, 20000, false, false, false).take());
    const SessionPtr s = freeze(std::move(src));
    QElapsedTimer timer;
    timer.start();
    const auto a = ClockAlignment::align(*s);
    qInfo("aligned 2 x 20000 collectives in %lld ms", static_cast<long long>(timer.elapsed()));
    QCOMPARE(a[1].method, AlignmentMethod::Collectives);
    QCOMPARE(a[1].anchors, 19995);
    QVERIFY(std::llabs(a[1].offsetNs + 1250 * kMs) <= 40'000);
}

void TestClockAlignment::longPeriodicTraceWithoutSeq()
{
    // 20 000 identical allreduces 300 ms apart without sequence numbers, rank 1 starting 5 later and
    // 20 ms ahead: every shift fits almost as well, so the scoring stays bounded and the wall clock
    // decides (and the offset is Low confidence: the collectives alone cannot tell).
    std::vector<SourceBuilder> src;
    src.push_back(syntheticRank(0, 0, 0, 20000, false, true, false).take());
    src.push_back(syntheticRank(1, 20 * kMs, 5, 20000, false, true, false).take());
    const SessionPtr s = freeze(std::move(src));
    QElapsedTimer timer;
    timer.start();
    const auto a = ClockAlignment::align(*s);
    qInfo("aligned 2 x 20000 periodic collectives in %lld ms", static_cast<long long>(timer.elapsed()));
    QCOMPARE(a[1].method, AlignmentMethod::Collectives);
    QVERIFY(std::llabs(a[1].offsetNs + 20 * kMs) <= 40'000);
    QCOMPARE(a[1].anchors, 19995);
    QCOMPARE(a[1].confidence, RankAlignment::Confidence::Low);
}

void TestClockAlignment::extraCollectives_data()
{
    QTest::addColumn<bool>("withSeq");
    QTest::addColumn<bool>("seqAhead");
    QTest::addColumn<qint64>("skew");  // rank 2's clock ahead of its peers'
    QTest::addColumn<QStringList>("hosts");
    QTest::addColumn<qint64>("offset"); // expected offset of rank 2
    QTest::addColumn<bool>("confident");
    QTest::addColumn<bool>("skipped");   // rank 2 skipped four collectives instead of adding four
    const QStringList oneNode{"gpu-node-07", "gpu-node-07", "gpu-node-07", "gpu-node-07"};
    const QStringList twoNodes{"gpu-node-07", "gpu-node-07", "gpu-node-08", "gpu-node-08"};
    // The case seen: sequence numbers four ahead pair each collective with the one four later,
    // 18.8 ms away; one host, one clock, and the kernel ends agree at zero.
    QTest::newRow("one host, seq ahead") << true << true << qint64(0) << oneNode << qint64(0) << true << false;
    QTest::newRow("one host, no seq") << false << false << qint64(0) << oneNode << qint64(0) << true << false;
    // No host named: the wall clocks line up every collective, the sequence numbers only 16.
    QTest::newRow("no hosts, seq ahead") << true << true << qint64(0) << QStringList() << qint64(0) << true << false;
    QTest::newRow("no hosts, no seq") << false << false << qint64(0) << QStringList() << qint64(0) << true << false;
    // Skipping is the mirror image: its later sequence numbers run four behind.
    QTest::newRow("one host, skipped, seq behind") << true << true << qint64(0) << oneNode << qint64(0) << true << true;
    QTest::newRow("no hosts, skipped, seq behind") << true << true << qint64(0) << QStringList() << qint64(0) << true << true;
    QTest::newRow("no hosts, skipped, no seq") << false << false << qint64(0) << QStringList() << qint64(0) << true << true;
    // Near misses: another host 3 ms off is still measured, not forced to zero…
    QTest::newRow("other host +3 ms, no seq") << false << false << qint64(3 * kMs) << twoNodes << qint64(-3 * kMs) << true << false;
    QTest::newRow("other host +3 ms, seq") << true << false << qint64(3 * kMs) << twoNodes << qint64(-3 * kMs) << true << false;
    // Another host 40 ms off whose sequence numbers ran ahead: the wall clock cannot settle it, the
    // numbers disagree among themselves, and matching by time finds every collective.
    QTest::newRow("other host +40 ms, seq ahead") << true << true << qint64(40 * kMs) << twoNodes << qint64(-40 * kMs) << true
                                                  << false;
    QTest::newRow("no hosts +40 ms, skipped, seq behind") << true << true << qint64(40 * kMs) << QStringList() << qint64(-40 * kMs)
                                                          << true << true;
    // …and a host name whose clock the collectives contradict does not force zero either: the
    // search still finds the offset, and says it is doubtful.
    QTest::newRow("one host named, clock 2 s off") << false << false << qint64(2 * kSec) << oneNode << qint64(-2 * kSec) << false << false;
}

void TestClockAlignment::extraCollectives()
{
    QFETCH(bool, withSeq);
    QFETCH(bool, seqAhead);
    QFETCH(qint64, skew);
    QFETCH(QStringList, hosts);
    QFETCH(qint64, offset);
    QFETCH(bool, confident);
    QFETCH(bool, skipped);
    std::vector<std::string> names;
    for (const QString &h : hosts)
        names.push_back(h.toStdString());
    const SessionPtr s = freeze(extraMicroBatchJob(withSeq, seqAhead, skew, names, skipped));
    const auto a = ClockAlignment::align(*s);
    QCOMPARE(a.size(), std::size_t(4));
    for (const RankAlignment &x : a) {
        const TimeNs expected = x.rank == 2 ? offset : 0;
        QCOMPARE(x.method, AlignmentMethod::Collectives);
        QVERIFY2(std::llabs(x.offsetNs - expected) <= 10'000,
                 qPrintable(QStringLiteral("rank %1: offset %2, expected %3").arg(x.rank).arg(x.offsetNs).arg(expected)));
        if (!names.empty())
            QCOMPARE(QString::fromStdString(x.host), hosts[x.rank]);
    }
    // Every collective both ran is an anchor of rank 2, whatever it added or skipped.
    QCOMPARE(of(a, 2).anchors, skipped ? 20 : 24);
    QCOMPARE(of(a, 2).confidence == RankAlignment::Confidence::High, confident);
    if (!confident)
        QVERIFY2(of(a, 2).confidenceReason.find("host") != std::string::npos, of(a, 2).confidenceReason.c_str());
}

void TestClockAlignment::hostsFromNcclInit()
{
    // Only the communicator of the whole job prints global ranks; a sub-group's "rank 0" is
    // another process, and a rank named with two hosts is left unnamed.
    std::vector<SourceBuilder> src = extraMicroBatchJob(false, false, 0, {"a", "a", "b", "b"});
    JobLog log("sub.log");
    NcclCommInfo sub;
    sub.rank = 0;
    sub.nranks = 2;
    sub.host = "c";
    log.logs().comms.push_back(sub);
    NcclCommInfo clash;
    clash.rank = 3;
    clash.nranks = 4;
    clash.host = "z";
    log.logs().comms.push_back(clash);
    log.record(0, "x");
    src.push_back(log.take());
    const auto h = ClockAlignment::hosts(*freeze(std::move(src)));
    QCOMPARE(h.size(), std::size_t(3));
    QCOMPARE(h.at(0), std::string("a"));
    QCOMPARE(h.at(1), std::string("a"));
    QCOMPARE(h.at(2), std::string("b"));
    QVERIFY(!h.count(3));
}

void TestClockAlignment::demoIncidentOneNode()
{
    // The demo job ran on one node (its log's NCCL Init lines name gpu-node-07) and rank 2 ran an
    // extra micro-batch; the processes' profiler clocks differ by the amounts its README states
    // (rank 1 +312 µs, rank 2 −188 µs, rank 3 +455 µs against rank 0) and drift by a few ppm, so
    // the offset over the profiled steps lands within tens of microseconds of those.
    const QDir demo(QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo"));
    if (!demo.exists(QStringLiteral("torchrun.log")))
        QSKIP("resources/demo is not present");
    std::vector<SourceBuilder> src;
    for (const QString &f : demo.entryList({QStringLiteral("*.gz"), QStringLiteral("*.log")}, QDir::Files, QDir::Name)) {
        ImportContext ctx;
        ctx.timeZone = "UTC";
        src.push_back(ImporterRegistry::instance().importFile(demo.filePath(f).toStdString(), ctx));
    }
    const auto a = ClockAlignment::align(*freeze(std::move(src)));
    QCOMPARE(a.size(), std::size_t(4));
    const TimeNs expected[4] = {0, -312'000, 188'000, -455'000};
    for (const RankAlignment &x : a) {
        qInfo("rank %d: offset %lld ns, %d anchors, residual %lld ns, %s %s", x.rank, static_cast<long long>(x.offsetNs),
              x.anchors, static_cast<long long>(x.residualNs.value_or(-1)), confidenceName(x.confidence), x.confidenceReason.c_str());
        QCOMPARE(x.host, std::string("gpu-node-07"));
        QCOMPARE(x.method, AlignmentMethod::Collectives);
        QVERIFY2(std::llabs(x.offsetNs - expected[x.rank]) <= 60'000, qPrintable(QString::number(x.offsetNs)));
        QCOMPARE(x.confidence, RankAlignment::Confidence::High);
    }
}

void TestClockAlignment::confidence_data()
{
    QTest::addColumn<int>("count");     // collectives per rank
    QTest::addColumn<qint64>("jitter"); // ± alternating kernel-end jitter of rank 1
    QTest::addColumn<bool>("periodic");
    QTest::addColumn<bool>("steps");    // no collectives: steps only
    QTest::addColumn<bool>("confident");
    QTest::addColumn<QString>("reason"); // a word the reason must contain
    QTest::newRow("20 collectives, tight") << 20 << qint64(20'000) << false << false << true << QString();
    QTest::newRow("4 collectives: enough") << 4 << qint64(20'000) << false << false << true << QString();
    QTest::newRow("3 collectives: few") << 3 << qint64(20'000) << false << false << false << QStringLiteral("only 3");
    QTest::newRow("kernel ends ±70 us: fine") << 20 << qint64(50'000) << false << false << true << QString();
    QTest::newRow("kernel ends ±420 us: loose") << 20 << qint64(400'000) << false << false << false << QStringLiteral("disagree");
    QTest::newRow("periodic, windows differ: ambiguous") << 20 << qint64(20'000) << true << false << false << QStringLiteral("also fit");
    QTest::newRow("steps only") << 0 << qint64(0) << false << true << false << QStringLiteral("step ends");
}

void TestClockAlignment::confidence()
{
    QFETCH(int, count);
    QFETCH(qint64, jitter);
    QFETCH(bool, periodic);
    QFETCH(bool, steps);
    QFETCH(bool, confident);
    QFETCH(QString, reason);
    std::vector<SourceBuilder> src;
    if (steps) {
        for (RankId r = 0; r < 2; ++r) {
            RankTrace t(r);
            for (int s = 0; s < 10; ++s)
                t.step(100 + s, kT0 + s * kSec + r * 3 * kSec, 990 * kMs);
            src.push_back(t.take());
        }
    } else {
        // Rank 1 is 1.25 s ahead; with periodic collectives its window starts three later.
        src.push_back(syntheticRank(0, 0, 0, count, false, periodic, false).take());
        RankTrace t(1);
        for (int k = periodic ? 3 : 0; k < (periodic ? 3 : 0) + count; ++k) {
            const TimeNs start = periodic ? kT0 + k * 300 * kMs : kT0 + k * 37 * kMs + (k * k % 11) * 3 * kMs;
            const std::int64_t nelems = periodic ? 25 << 20 : (1 + k % 5) * 1'000'003;
            t.collective(start + 1250 * kMs + (k % 2 ? jitter : -jitter), 2 * kMs + k % 3 * kMs, nelems);
        }
        src.push_back(t.take());
    }
    const auto a = ClockAlignment::align(*freeze(std::move(src)));
    QCOMPARE(a.size(), std::size_t(2));
    QCOMPARE(a[0].confidence, RankAlignment::Confidence::High);
    QCOMPARE(a[1].confidence == RankAlignment::Confidence::High, confident);
    QCOMPARE(a[1].confidenceReason.empty(), confident);
    QVERIFY2(QString::fromStdString(a[1].confidenceReason).contains(reason), a[1].confidenceReason.c_str());
}

QTEST_GUILESS_MAIN(TestClockAlignment)
#include "test_clockalignment.moc"
