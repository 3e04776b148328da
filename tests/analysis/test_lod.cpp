// Level of detail: which spans fold into busy blocks and what a counter column keeps, with exact
// expectations so a change in the folding rule shows up as a diff here.

#include "lod.h"

#include <QTest>

using namespace rs;

namespace {

// Spans given as flat (start, duration) pairs; nesting is decided by finalizeTrack as in a session.
Track makeTrack(const QList<qint64> &startDurationPairs)
{
    Track t;
    for (qsizetype i = 0; i + 1 < startDurationPairs.size(); i += 2) {
        Span s;
        s.start = startDurationPairs[i];
        s.duration = startDurationPairs[i + 1];
        t.spans.push_back(s);
    }
    finalizeTrack(t);
    return t;
}

QList<qint64> flatten(const std::vector<SpanDrawItem> &items)
{
    QList<qint64> out;
    for (const SpanDrawItem &it : items)
        out << it.start << it.end << it.first << it.count;
    return out;
}

CounterSeries makeSeries(const QList<qint64> &times, const QList<double> &values)
{
    CounterSeries s;
    s.times.assign(times.begin(), times.end());
    s.values.assign(values.begin(), values.end());
    return s;
}

} // namespace

class TestLod : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void foldSpans_data();
    void foldSpans();
    void foldSpansIsBoundedForDenseLevels();
    void foldSpansKeepsEverySpanAtFineZoom();
    void decimateCounter_data();
    void decimateCounter();
    void decimateCounterKeepsSpikes();
    void counterValueAt();
};

void TestLod::foldSpans_data()
{
    QTest::addColumn<QList<qint64>>("spans");    // (start, duration) pairs
    QTest::addColumn<int>("depth");
    QTest::addColumn<qint64>("begin");
    QTest::addColumn<qint64>("end");
    QTest::addColumn<double>("nsPerPixel");
    QTest::addColumn<QList<qint64>>("expected"); // (start, end, first, count) per item

    // At 10 ns/px and 3 px, anything shorter than 30 ns is narrow.
    QTest::newRow("all wide") << QList<qint64>{0, 100, 100, 100, 250, 150} << 0 << qint64(0) << qint64(1000) << 10.0
                              << QList<qint64>{0, 100, 0, 1, 100, 200, 1, 1, 250, 400, 2, 1};
    QTest::newRow("exactly three pixels is kept") << QList<qint64>{0, 30, 40, 29} << 0 << qint64(0) << qint64(1000) << 10.0
                                                  << QList<qint64>{0, 30, 0, 1, 40, 69, 1, 1};
    QTest::newRow("close narrow run folds") << QList<qint64>{0, 10, 15, 10, 30, 10, 45, 10} << 0 << qint64(0) << qint64(1000) << 10.0
                                            << QList<qint64>{0, 55, 0, 4};
    QTest::newRow("far narrow spans stay single") << QList<qint64>{0, 10, 100, 10} << 0 << qint64(0) << qint64(1000) << 10.0
                                                  << QList<qint64>{0, 10, 0, 1, 100, 110, 1, 1};
    QTest::newRow("gap of exactly three pixels splits") << QList<qint64>{0, 10, 40, 10} << 0 << qint64(0) << qint64(1000) << 10.0
                                                        << QList<qint64>{0, 10, 0, 1, 40, 50, 1, 1};
    QTest::newRow("wide span ends a block") << QList<qint64>{0, 10, 12, 8, 20, 80, 105, 5} << 0 << qint64(0) << qint64(1000) << 10.0
                                            << QList<qint64>{0, 20, 0, 2, 20, 100, 2, 1, 105, 110, 3, 1};
    QTest::newRow("only the visible window") << QList<qint64>{0, 50, 90, 30, 150, 10, 300, 100} << 0 << qint64(100) << qint64(200) << 10.0
                                             << QList<qint64>{90, 120, 1, 1, 150, 160, 2, 1};
    QTest::newRow("zero-length spans fold") << QList<qint64>{5, 0, 6, 0, 7, 0} << 0 << qint64(0) << qint64(1000) << 10.0
                                            << QList<qint64>{5, 7, 0, 3};
    QTest::newRow("second level") << QList<qint64>{0, 1000, 10, 10, 25, 10, 500, 400} << 1 << qint64(0) << qint64(1000) << 10.0
                                   << QList<qint64>{10, 35, 1, 2, 500, 900, 3, 1};
    QTest::newRow("missing level") << QList<qint64>{0, 1000} << 3 << qint64(0) << qint64(1000) << 10.0 << QList<qint64>{};
    QTest::newRow("fine zoom keeps all") << QList<qint64>{0, 10, 15, 10, 30, 10} << 0 << qint64(0) << qint64(100) << 0.1
                                         << QList<qint64>{0, 10, 0, 1, 15, 25, 1, 1, 30, 40, 2, 1};
}

void TestLod::foldSpans()
{
    QFETCH(QList<qint64>, spans);
    QFETCH(int, depth);
    QFETCH(qint64, begin);
    QFETCH(qint64, end);
    QFETCH(double, nsPerPixel);
    QFETCH(QList<qint64>, expected);
    const Track track = makeTrack(spans);
    std::vector<SpanDrawItem> out{{1, 2, 3, 4}}; // stale content must be cleared
    rs::foldSpans(track, static_cast<std::uint16_t>(depth), {begin, end}, nsPerPixel, out);
    QCOMPARE(flatten(out), expected);
}

void TestLod::foldSpansIsBoundedForDenseLevels()
{
    // 100 000 one-ns spans every 2 ns: at 1 µs/px they are one block, found by a handful of searches.
    QList<qint64> pairs;
    for (qint64 i = 0; i < 100000; ++i)
        pairs << i * 2 << 1;
    const Track track = makeTrack(pairs);
    std::vector<SpanDrawItem> out;
    rs::foldSpans(track, 0, {0, 200000}, 1000.0, out);
    QCOMPARE(flatten(out), (QList<qint64>{0, 199999, 0, 100000}));

    // A 10 µs hole splits them in two blocks at 1 ns/px only where the hole is.
    QList<qint64> holed;
    for (qint64 i = 0; i < 10; ++i)
        holed << i * 2 << 1;
    for (qint64 i = 0; i < 10; ++i)
        holed << 10000 + i * 2 << 1;
    const Track t2 = makeTrack(holed);
    rs::foldSpans(t2, 0, {0, 20000}, 1.0, out);
    QCOMPARE(flatten(out), (QList<qint64>{0, 19, 0, 10, 10000, 10019, 10, 10}));
}

void TestLod::foldSpansKeepsEverySpanAtFineZoom()
{
    QList<qint64> pairs;
    for (qint64 i = 0; i < 50; ++i)
        pairs << i * 100 << 60;
    const Track track = makeTrack(pairs);
    std::vector<SpanDrawItem> out;
    rs::foldSpans(track, 0, {0, 5000}, 1.0, out);
    QCOMPARE(out.size(), std::size_t(50));
    for (std::uint32_t i = 0; i < 50; ++i) {
        QCOMPARE(out[i].first, i);
        QVERIFY(!out[i].isFolded());
    }
}

void TestLod::decimateCounter_data()
{
    QTest::addColumn<QList<qint64>>("times");
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<qint64>("begin");
    QTest::addColumn<qint64>("end");
    QTest::addColumn<double>("nsPerPixel");
    // Per column: firstTime, lastTime, first, last, min, max, firstIndex, count.
    QTest::addColumn<QList<double>>("expected");

    const QList<qint64> times{0, 5, 10, 25, 26, 27, 40, 100};
    const QList<double> values{1, 2, 3, 9, 0, 4, 5, 6};
    QTest::newRow("carry-in, columns, carry-out")
        << times << values << qint64(10) << qint64(40) << 10.0
        << QList<double>{5, 5, 2, 2, 2, 2, 1, 1,
                         10, 10, 3, 3, 3, 3, 2, 1,
                         25, 27, 9, 4, 0, 9, 3, 3,
                         40, 40, 5, 5, 5, 5, 6, 1};
    QTest::newRow("whole series, one column") << times << values << qint64(0) << qint64(1000) << 1000.0
                                              << QList<double>{0, 100, 1, 6, 0, 9, 0, 8};
    QTest::newRow("before the first sample") << times << values << qint64(-50) << qint64(-10) << 1.0
                                             << QList<double>{0, 0, 1, 1, 1, 1, 0, 1};
    QTest::newRow("after the last sample") << times << values << qint64(200) << qint64(300) << 1.0
                                           << QList<double>{100, 100, 6, 6, 6, 6, 7, 1};
    QTest::newRow("between two samples") << times << values << qint64(41) << qint64(99) << 1.0
                                         << QList<double>{40, 40, 5, 5, 5, 5, 6, 1, 100, 100, 6, 6, 6, 6, 7, 1};
    QTest::newRow("empty series") << QList<qint64>{} << QList<double>{} << qint64(0) << qint64(10) << 1.0 << QList<double>{};
}

void TestLod::decimateCounter()
{
    QFETCH(QList<qint64>, times);
    QFETCH(QList<double>, values);
    QFETCH(qint64, begin);
    QFETCH(qint64, end);
    QFETCH(double, nsPerPixel);
    QFETCH(QList<double>, expected);
    const CounterSeries series = makeSeries(times, values);
    std::vector<CounterColumn> out;
    rs::decimateCounter(series, {begin, end}, nsPerPixel, out);
    QList<double> flat;
    for (const CounterColumn &c : out)
        flat << double(c.firstTime) << double(c.lastTime) << c.first << c.last << c.min << c.max
             << double(c.firstIndex) << double(c.count);
    QCOMPARE(flat, expected);
}

void TestLod::decimateCounterKeepsSpikes()
{
    // One 1-ns spike among a million flat samples must survive a 1000x reduction.
    CounterSeries s;
    for (qint64 i = 0; i < 1000000; ++i) {
        s.times.push_back(i);
        s.values.push_back(i == 537337 ? 4e9 : 1e9);
    }
    std::vector<CounterColumn> out;
    rs::decimateCounter(s, {0, 1000000}, 1000.0, out);
    QCOMPARE(out.size(), std::size_t(1000));
    const CounterColumn &spiky = out[537];
    QCOMPARE(spiky.max, 4e9);
    QCOMPARE(spiky.min, 1e9);
    QCOMPARE(spiky.count, 1000u);
    int spikes = 0;
    for (const CounterColumn &c : out)
        spikes += c.max > 1e9 ? 1 : 0;
    QCOMPARE(spikes, 1);
}

void TestLod::counterValueAt()
{
    const CounterSeries s = makeSeries({10, 20, 30}, {1, 2, 3});
    double v = -1;
    QVERIFY(!rs::counterValueAt(s, 9, &v));
    QVERIFY(rs::counterValueAt(s, 10, &v));
    QCOMPARE(v, 1.0);
    QVERIFY(rs::counterValueAt(s, 29, &v));
    QCOMPARE(v, 2.0);
    QVERIFY(rs::counterValueAt(s, 1000, &v));
    QCOMPARE(v, 3.0);
}

QTEST_GUILESS_MAIN(TestLod)
#include "test_lod.moc"
