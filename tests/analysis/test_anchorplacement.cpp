// AnchorPlacement: untimed OOM messages and memory_summary tables get the time of the timed OOM
// they are the same event as, and only then.

#include "anchorplacement.h"
#include "clockalignment.h"
#include "sessionbuilder.h"

#include <QTest>

using namespace rs;

namespace {

constexpr TimeNs kT = 1'700'000'000'000'000'000;

// A trace of `rank` with [OutOfMemory] instants at `ooms` (rank clock).
SourceBuilder trace(RankId rank, const std::vector<TimeNs> &ooms)
{
    SourceBuilder b("rank-" + std::to_string(rank) + ".json");
    b.source().format = "pytorch-trace";
    b.source().ranks = {rank};
    b.source().hasClock = true;
    const TrackId t = b.track(TrackKind::CpuThread, 1, 1);
    b.addSpan(t, Span{kT, 1'000'000'000, b.intern("ProfilerStep#1"), b.intern("user_annotation"), kNoArgs, 0, SpanFlagStep});
    for (TimeNs at : ooms)
        b.addInstant(t, Instant{at, b.intern("[OutOfMemory]"), b.intern("cpu_instant_event"), kNoArgs, SpanFlagOutOfMemory});
    b.finish();
    return b;
}

// A log of `rank` with an untimed OOM at line 10 and, if `table`, a summary after it.
SourceBuilder log(RankId rank, bool table)
{
    SourceBuilder b("job.log");
    b.source().format = "job-log";
    b.source().ranks = {rank};
    OomEvent o;
    o.rank = rank;
    o.line = 10;
    o.text = "CUDA out of memory. Tried to allocate 2.00 GiB.";
    const std::int32_t idx = b.addOom(o);
    if (table) {
        MemorySummary m;
        m.rank = rank;
        m.line = 11;
        m.oom = idx;
        b.addMemorySummary(m);
    }
    b.finish();
    return b;
}

} // namespace

class TestAnchorPlacement : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void placedByTheProfilersOom();
    void ambiguousOrMissingAnchorStaysUntimed_data();
    void ambiguousOrMissingAnchorStaysUntimed();
};

void TestAnchorPlacement::placedByTheProfilersOom()
{
    SessionBuilder sb;
    sb.addSource(trace(2, {kT + 500}));
    sb.addSource(log(2, true));
    const auto s = sb.freeze();
    std::vector<RankAlignment> align{{2, 7, AlignmentMethod::User, std::nullopt, 0, 2}};
    const auto p = AnchorPlacement::place(*s, align);
    QCOMPARE(p.size(), std::size_t(2));
    QCOMPARE(p[0].kind, Placement::Kind::Oom);
    QCOMPARE(p[0].timeNs, kT + 500 + 7); // the rank's offset applies
    QVERIFY(p[0].anchor.find("[OutOfMemory]") != std::string::npos);
    QCOMPARE(p[1].kind, Placement::Kind::MemorySummary);
    QCOMPARE(p[1].timeNs, kT + 507);
    QCOMPARE(p[1].rank, 2);
}

void TestAnchorPlacement::ambiguousOrMissingAnchorStaysUntimed_data()
{
    QTest::addColumn<int>("traceRank");
    QTest::addColumn<int>("timedOoms");
    QTest::newRow("two timed OOMs: which one is unknown") << 2 << 2;
    QTest::newRow("no timed OOM") << 2 << 0;
    QTest::newRow("timed OOM on another rank") << 3 << 1;
}

void TestAnchorPlacement::ambiguousOrMissingAnchorStaysUntimed()
{
    QFETCH(int, traceRank);
    QFETCH(int, timedOoms);
    std::vector<TimeNs> at;
    for (int i = 0; i < timedOoms; ++i)
        at.push_back(kT + 100 * (i + 1));
    SessionBuilder sb;
    sb.addSource(trace(traceRank, at));
    sb.addSource(log(2, true));
    const auto s = sb.freeze();
    QVERIFY(AnchorPlacement::place(*s, ClockAlignment::align(*s)).empty());
}

QTEST_GUILESS_MAIN(TestAnchorPlacement)
#include "test_anchorplacement.moc"
