// StringPool interning, track finalisation (nesting, levels, level range queries) and the
// SourceBuilder operations importers rely on (shiftTimes, finish).

#include "sourcebuilder.h"
#include "stringpool.h"
#include "track.h"

#include <QTest>

#include <string>

using namespace rs;

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

Span span(TimeNs start, TimeNs duration, StringId name = 0)
{
    Span s;
    s.start = start;
    s.duration = duration;
    s.name = name;
    return s;
}

// The nested example used by several tests; names are 1..6 so the level order can be checked.
Track nestedTrack()
{
    Track t;
    t.spans = {span(100, 10, 5), span(30, 30, 3), span(0, 100, 1), span(40, 10, 4), span(10, 10, 2), span(70, 0, 6)};
    finalizeTrack(t);
    return t;
}

} // namespace

class TestModelCore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void stringPoolInterns();
    void stringPoolViewsSurviveGrowth();
    void finalizeNests();
    void finalizeSameStartPutsLongerOutside();
    void finalizeBadlyNestedKeepsLevelsDisjoint();
    void levelRange_data();
    void levelRange();
    void finalizeSortsInstantsAndCounters();
    void shiftTimesMovesEverything();
    void shiftTimesMovesEvidence();
    void finishComputesTimeRange();
    void trackFindOrCreate();
};

void TestModelCore::stringPoolInterns()
{
    StringPool pool;
    QCOMPARE(pool.size(), std::size_t(1));
    QCOMPARE(pool.intern(""), kEmptyString);
    const StringId a = pool.intern("aten::mm");
    const StringId b = pool.intern("kernel");
    QVERIFY(a != b);
    QVERIFY(a != kEmptyString);
    QCOMPARE(pool.intern("aten::mm"), a);
    QCOMPARE(pool.find("kernel"), b);
    QCOMPARE(pool.find("missing"), StringPool::npos);
    QCOMPARE(qs(pool.view(a)), QStringLiteral("aten::mm"));
    QCOMPARE(qs(pool.view(12345)), QString());
    QCOMPARE(pool.size(), std::size_t(3));
}

void TestModelCore::stringPoolViewsSurviveGrowth()
{
    StringPool pool;
    std::vector<std::pair<StringId, std::string>> added;
    // 20000 × ~30 bytes spans several 64 KiB chunks; one string is larger than a chunk.
    for (int i = 0; i < 20000; ++i)
        added.emplace_back(0, "name-" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 40), 'x'));
    added.emplace_back(0, std::string(100000, 'L'));
    std::vector<std::string_view> early;
    for (auto &[id, text] : added) {
        id = pool.intern(text);
        early.push_back(pool.view(id));
    }
    for (std::size_t i = 0; i < added.size(); ++i) {
        QCOMPARE(pool.view(added[i].first), std::string_view(added[i].second));
        QCOMPARE(early[i].data(), pool.view(added[i].first).data()); // never moved
    }
    QCOMPARE(pool.size(), added.size() + 1);
}

void TestModelCore::finalizeNests()
{
    const Track t = nestedTrack();
    QCOMPARE(t.maxDepth, std::uint16_t(2));
    QCOMPARE(t.levelCount(), std::uint16_t(3));
    QCOMPARE(t.levelBegin, (std::vector<std::uint32_t>{0, 2, 5, 6}));
    std::vector<std::pair<StringId, std::uint16_t>> order;
    for (const Span &s : t.spans)
        order.emplace_back(s.name, s.depth);
    // Level 0: [0,100) and [100,110) (touching ends do not nest); level 1: [10,20) [30,60) [70,70);
    // level 2: [40,50).
    const std::vector<std::pair<StringId, std::uint16_t>> expected = {{1, 0}, {5, 0}, {2, 1}, {3, 1}, {6, 1}, {4, 2}};
    QCOMPARE(order, expected);
}

void TestModelCore::finalizeSameStartPutsLongerOutside()
{
    Track t;
    t.spans = {span(0, 10, 2), span(0, 100, 1)};
    finalizeTrack(t);
    QCOMPARE(t.spans[0].name, StringId(1));
    QCOMPARE(t.spans[0].depth, std::uint16_t(0));
    QCOMPARE(t.spans[1].name, StringId(2));
    QCOMPARE(t.spans[1].depth, std::uint16_t(1));
}

void TestModelCore::finalizeBadlyNestedKeepsLevelsDisjoint()
{
    Track t;
    t.spans = {span(0, 10, 1), span(5, 10, 2), span(12, 10, 3), span(14, 2, 4)};
    finalizeTrack(t);
    for (std::uint16_t d = 0; d < t.levelCount(); ++d)
        for (std::uint32_t i = t.levelBegin[d] + 1; i < t.levelBegin[d + 1]; ++i)
            QVERIFY2(t.spans[i - 1].end() <= t.spans[i].start, "spans of one level overlap");
    QCOMPARE(t.spans[1].name, StringId(2)); // [5,15) overlaps [0,10) → level 1
    QCOMPARE(t.spans[1].depth, std::uint16_t(1));
}

void TestModelCore::levelRange_data()
{
    QTest::addColumn<int>("depth");
    QTest::addColumn<qint64>("t0");
    QTest::addColumn<qint64>("t1");
    QTest::addColumn<QList<int>>("names");
    QTest::newRow("level0 all") << 0 << qint64(0) << qint64(1000) << QList<int>{1, 5};
    QTest::newRow("half-open end excludes outer") << 0 << qint64(100) << qint64(101) << QList<int>{5};
    QTest::newRow("window ends at a start") << 0 << qint64(50) << qint64(100) << QList<int>{1};
    QTest::newRow("level1 middle") << 1 << qint64(25) << qint64(35) << QList<int>{3};
    QTest::newRow("level1 zero-length span") << 1 << qint64(70) << qint64(71) << QList<int>{6};
    QTest::newRow("level1 gap") << 1 << qint64(61) << qint64(69) << QList<int>{};
    QTest::newRow("level2") << 2 << qint64(0) << qint64(45) << QList<int>{4};
    QTest::newRow("no such level") << 3 << qint64(0) << qint64(1000) << QList<int>{};
}

void TestModelCore::levelRange()
{
    QFETCH(int, depth);
    QFETCH(qint64, t0);
    QFETCH(qint64, t1);
    QFETCH(QList<int>, names);
    const Track t = nestedTrack();
    const auto [first, last] = t.levelRange(static_cast<std::uint16_t>(depth), t0, t1);
    QList<int> got;
    for (std::uint32_t i = first; i < last; ++i)
        got.append(static_cast<int>(t.spans[i].name));
    QCOMPARE(got, names);
}

void TestModelCore::finalizeSortsInstantsAndCounters()
{
    Track t;
    t.kind = TrackKind::MemoryAllocated;
    t.instants = {Instant{30, 3}, Instant{10, 1}, Instant{20, 2}};
    t.counter.times = {5, 1, 3};
    t.counter.values = {50.0, 10.0, 30.0};
    finalizeTrack(t);
    QCOMPARE(t.instants[0].name, StringId(1));
    QCOMPARE(t.instants[2].name, StringId(3));
    QCOMPARE(t.counter.times, (std::vector<TimeNs>{1, 3, 5}));
    QCOMPARE(t.counter.values, (std::vector<double>{10.0, 30.0, 50.0}));
    QCOMPARE(t.levelCount(), std::uint16_t(0));
    QVERIFY(t.levelBegin.empty());
}

void TestModelCore::shiftTimesMovesEverything()
{
    SourceBuilder b("x.json");
    const TrackId cpu = b.track(TrackKind::CpuThread, 1, 2);
    const TrackId mem = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
    b.addSpan(cpu, span(10, 5));
    b.addInstant(cpu, Instant{20});
    b.addCounterSample(mem, 30, 1.0);
    b.addStep({7, {10, 15}, cpu});
    Collective c;
    c.start = 40;
    c.end = 50;
    b.addCollective(c);
    b.shiftTimes(1000);
    QCOMPARE(b.tracks()[cpu].spans[0].start, TimeNs(1010));
    QCOMPARE(b.tracks()[cpu].spans[0].duration, TimeNs(5));
    QCOMPARE(b.tracks()[cpu].instants[0].time, TimeNs(1020));
    QCOMPARE(b.tracks()[mem].counter.times[0], TimeNs(1030));
    QCOMPARE(b.steps()[0].range, (TimeRange{1010, 1015}));
    QCOMPARE(b.collectives()[0].start, TimeNs(1040));
    QCOMPARE(b.collectives()[0].end, TimeNs(1050));
    b.shiftTimes(-1000);
    QCOMPARE(b.tracks()[cpu].spans[0].start, TimeNs(10));
}

void TestModelCore::shiftTimesMovesEvidence()
{
    // Every timed record a source can hold moves with its clock; untimed ones stay untimed.
    SourceBuilder b("x.log");
    auto &logs = b.logs();
    logs.records.push_back(LogRecord{100});
    logs.records.push_back(LogRecord{kNoTime});
    logs.comms.push_back(NcclCommInfo{});
    logs.comms.back().time = 110;
    logs.calls.push_back(NcclCall{});
    logs.calls.back().time = 120;
    logs.timeouts.push_back(WatchdogTimeout{});
    logs.timeouts.back().time = 130;
    logs.failures.push_back(ChildFailure{});
    logs.failures.back().time = 140;
    logs.progress.push_back(WatchdogProgress{});
    logs.progress.back().time = 150;
    logs.jobEvents.push_back(JobEvent{});
    logs.jobEvents.back().time = 160;
    b.gpus().processes.push_back(GpuProcess{});
    b.gpus().processes.back().time = 170;
    FlightRecord fr;
    fr.created = 180;
    fr.started = 190;
    b.flightRecorder().entries.push_back(fr);
    OomEvent oom;
    oom.time = 200;
    b.addOom(oom);
    b.shiftTimes(1000);
    QCOMPARE(logs.records[0].time, TimeNs(1100));
    QCOMPARE(logs.records[1].time, kNoTime);
    QCOMPARE(logs.comms[0].time, TimeNs(1110));
    QCOMPARE(logs.calls[0].time, TimeNs(1120));
    QCOMPARE(logs.timeouts[0].time, TimeNs(1130));
    QCOMPARE(logs.failures[0].time, TimeNs(1140));
    QCOMPARE(logs.progress[0].time, TimeNs(1150));
    QCOMPARE(logs.jobEvents[0].time, TimeNs(1160));
    QCOMPARE(b.gpus().processes[0].time, TimeNs(1170));
    QCOMPARE(b.flightRecorder().entries[0].created, TimeNs(1180));
    QCOMPARE(b.flightRecorder().entries[0].started, TimeNs(1190));
    QCOMPARE(b.flightRecorder().entries[0].completed, kNoTime);
    QCOMPARE(b.ooms()[0].time, TimeNs(1200));
}

void TestModelCore::finishComputesTimeRange()
{
    SourceBuilder b("x.json");
    const TrackId cpu = b.track(TrackKind::CpuThread, 1, 2);
    const TrackId mem = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
    b.addSpan(cpu, span(100, 50));
    b.addSpan(cpu, span(500, 0)); // zero-length spans still cover one ns
    b.addCounterSample(mem, 90, 1.0);
    b.addInstant(cpu, Instant{120});
    b.finish();
    QCOMPARE(b.source().timeRange, (TimeRange{90, 501}));
    QCOMPARE(b.tracks()[cpu].levelCount(), std::uint16_t(1));
}

void TestModelCore::trackFindOrCreate()
{
    SourceBuilder b("x.json");
    const TrackId a = b.track(TrackKind::CpuThread, 1, 2);
    QCOMPARE(b.track(TrackKind::CpuThread, 1, 2), a);
    QVERIFY(b.track(TrackKind::GpuStream, 1, 2, 1) != a);
    QVERIFY(b.track(TrackKind::CpuThread, 1, 3) != a);
    QCOMPARE(b.tracks().size(), std::size_t(3));
    QCOMPARE(b.tracks()[a].pid, std::int64_t(1));
    QCOMPARE(b.tracks()[a].tid, std::int64_t(2));
}

QTEST_GUILESS_MAIN(TestModelCore)
#include "test_model_core.moc"
