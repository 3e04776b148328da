// PlausibleExtent: the time axis and memory scale the views use come from plausible data only.
// One bad or unrelated source (no clock and nothing to align it, a stamp decades off, a counter
// far above its GPU) is left out and named; every good rank keeps the axis it has without it.

#include "plausibleextent.h"
#include "sessionfixture.h"

#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

constexpr TimeNs kDay = 86'400 * kSec;
constexpr TimeNs kYear = 365 * kDay;

// A good rank: 30 s of steps and a memory counter from kT0.
SourceBuilder goodRank(RankId rank, std::int64_t peak = 20 * kGiB)
{
    RankTrace t(rank);
    t.device(80 * kGiB);
    for (int s = 0; s < 3; ++s)
        t.step(s, kT0 + s * 10 * kSec, 10 * kSec);
    t.allocated(kT0, 1 * kGiB);
    t.allocated(kT0 + 15 * kSec, peak);
    t.allocated(kT0 + 29 * kSec, 2 * kGiB);
    return t.take();
}

PlausibleExtent extentOf(const SessionPtr &s)
{
    return PlausibleExtent::find(*s, nullptr);
}

} // namespace

class TestPlausibleExtent : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void goodRanksKeepTheirAxis()
    {
        std::vector<SourceBuilder> v;
        for (RankId r = 0; r < 4; ++r)
            v.push_back(goodRank(r));
        const PlausibleExtent e = extentOf(freeze(std::move(v)));
        QCOMPARE(e.axis.begin, kT0);
        QCOMPARE(e.axis.end, kT0 + 30 * kSec);
        QVERIFY(e.leftOut.empty());
        QCOMPARE(e.memoryScale, double(20 * kGiB));
    }

    // Each row adds one bad source to four good ranks; the axis must be what the good ranks give.
    void oneBadSourceIsLeftOut_data()
    {
        QTest::addColumn<qint64>("badStart");   // where the bad source's data starts
        QTest::addColumn<bool>("clock");        // whether the bad source has a wall clock
        QTest::addColumn<QString>("distance");  // words the message must carry
        QTest::addColumn<bool>("before");

        QTest::newRow("no clock, relative times near 0") << qint64(0) << false << QStringLiteral("years") << true;
        QTest::newRow("stamp 40 years later") << qint64(kT0 + 40 * kYear) << true << QStringLiteral("40 years") << false;
        QTest::newRow("stamp 30 years earlier") << qint64(kT0 - 30 * kYear) << true << QStringLiteral("30 years") << true;
        QTest::newRow("90 days later") << qint64(kT0 + 90 * kDay) << true << QStringLiteral("90 days") << false;
    }
    void oneBadSourceIsLeftOut()
    {
        QFETCH(qint64, badStart);
        QFETCH(bool, clock);
        QFETCH(QString, distance);
        QFETCH(bool, before);
        std::vector<SourceBuilder> v;
        for (RankId r = 0; r < 4; ++r)
            v.push_back(goodRank(r));
        RankTrace bad(4, clock);
        bad.step(0, badStart, 5 * kSec);
        v.push_back(bad.take());
        const SessionPtr s = freeze(std::move(v));
        const PlausibleExtent e = extentOf(s);
        QCOMPARE(e.axis.begin, kT0);
        QCOMPARE(e.axis.end, kT0 + 30 * kSec);
        QCOMPARE(e.leftOut.size(), std::size_t(1));
        const ExtentOutlier &o = e.leftOut.front();
        QCOMPARE(o.code, std::string("time-outside-incident"));
        QCOMPARE(s->sources()[o.source].path, std::string("rank-4.pt.trace.json"));
        QCOMPARE(o.rank, RankId(4));
        const QString message = qs(o.message);
        QVERIFY2(message.contains(distance), qPrintable(message));
        QVERIFY2(message.contains(before ? QStringLiteral("before") : QStringLiteral("after")), qPrintable(message));
        QCOMPARE(message.contains(QStringLiteral("no wall clock")), !clock);
    }

    // One event decades away inside an otherwise good trace splits into its own run: the rest of
    // that trace still frames the axis.
    void strayEventInsideAGoodTrace()
    {
        std::vector<SourceBuilder> v;
        for (RankId r = 0; r < 3; ++r)
            v.push_back(goodRank(r));
        RankTrace t(3);
        t.step(0, kT0, 10 * kSec);
        t.span(t.cpu(), "aten::stray", kT0 + 35 * kYear, 1000);
        v.push_back(t.take());
        const PlausibleExtent e = extentOf(freeze(std::move(v)));
        QCOMPARE(e.axis.begin, kT0);
        QCOMPARE(e.axis.end, kT0 + 30 * kSec);
        QCOMPARE(e.leftOut.size(), std::size_t(1));
        QVERIFY(e.leftOut.front().range.begin >= kT0 + 35 * kYear);
    }

    // Real jobs leave sources that do not overlap: a sidecar CSV hours before, an earlier attempt's
    // log two days before a 5-hour run. None of that is left out.
    void nearbySourcesStay_data()
    {
        QTest::addColumn<qint64>("logStart");
        QTest::addColumn<qint64>("logLength");
        QTest::newRow("log 3 hours before") << qint64(kT0 - 3 * 3600 * kSec) << qint64(3600 * kSec);
        QTest::newRow("earlier attempt's 5 h log, 20 h before") << qint64(kT0 - 25 * 3600 * kSec)
                                                               << qint64(5 * 3600 * kSec);
        QTest::newRow("log overlapping") << qint64(kT0 - 10 * kSec) << qint64(60 * kSec);
    }
    void nearbySourcesStay()
    {
        QFETCH(qint64, logStart);
        QFETCH(qint64, logLength);
        std::vector<SourceBuilder> v;
        for (RankId r = 0; r < 2; ++r)
            v.push_back(goodRank(r));
        JobLog log;
        log.record(0, "start", 0, LogKind::PyTorch, LogLevel::Info, logStart);
        log.record(0, "end", 0, LogKind::PyTorch, LogLevel::Info, logStart + logLength);
        // The later attempt's lines, near the traces.
        log.record(1, "restart", 0, LogKind::PyTorch, LogLevel::Info, kT0 - kSec);
        v.push_back(log.take());
        const PlausibleExtent e = extentOf(freeze(std::move(v)));
        QVERIFY(e.leftOut.empty());
        QCOMPARE(e.axis.begin, std::min<TimeNs>(logStart, kT0));
        QCOMPARE(e.axis.end, std::max<TimeNs>(logStart + logLength + 1, kT0 + 30 * kSec));
    }

    // The analysis' offsets decide: a clock-less rank aligned onto the others is part of the incident.
    void offsetsBringARankIn()
    {
        std::vector<SourceBuilder> v;
        for (RankId r = 0; r < 2; ++r)
            v.push_back(goodRank(r));
        RankTrace rel(2, false);
        rel.step(0, 0, 10 * kSec);
        v.push_back(rel.take());
        const SessionPtr s = freeze(std::move(v));
        QCOMPARE(extentOf(s).leftOut.size(), std::size_t(1));
        const PlausibleExtent aligned = PlausibleExtent::find(*s, [](RankId r) { return r == 2 ? kT0 : TimeNs(0); });
        QVERIFY(aligned.leftOut.empty());
        QCOMPARE(aligned.axis, (TimeRange{kT0, kT0 + 30 * kSec}));
    }

    // A memory counter far above its GPU's capacity does not set the shared scale.
    void memoryAboveCapacity()
    {
        std::vector<SourceBuilder> v;
        v.push_back(goodRank(0, 20 * kGiB));
        v.push_back(goodRank(1, 30 * kGiB));
        v.push_back(goodRank(2, std::int64_t(1) << 48)); // 256 TiB on an 80 GiB GPU
        const SessionPtr s = freeze(std::move(v));
        const PlausibleExtent e = extentOf(s);
        QCOMPARE(e.memoryScale, double(30 * kGiB));
        QCOMPARE(e.leftOut.size(), std::size_t(1));
        QCOMPARE(e.leftOut.front().code, std::string("memory-above-capacity"));
        QCOMPARE(e.leftOut.front().rank, RankId(2));
        QVERIFY(e.leavesOut(e.leftOut.front().track));
        // The analysis computes the same extent and carries it.
        const AnalysisResult r = Analyzer::run(*s);
        QCOMPARE(r.extent.memoryScale, double(30 * kGiB));
        QCOMPARE(r.extent.leftOut.size(), std::size_t(1));
    }

    void emptySession()
    {
        const PlausibleExtent e = extentOf(freeze({}));
        QVERIFY(e.axis.isEmpty());
        QVERIFY(e.leftOut.empty());
        QCOMPARE(e.memoryScale, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestPlausibleExtent)
#include "test_plausibleextent.moc"
