// The memory chart's plumbing: its time ticker ticks and labels like the ruler, and the series are
// reduced to min/max columns before QCustomPlot sees them, without losing a spike.

#include "charts/memoryplot.h"
#include "charts/timeaxisticker.h"
#include "timeformat.h"
#include "timeline/timeruler.h"

#include <QTest>

#include <algorithm>

using namespace rs;

class TestCharts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tickerMatchesTheRuler();
    void tickerChoosesAStepWhenNotTold();
    void plotIsDecimatedAndKeepsPeaks();
    void plotFollowsClockOffset();
};

void TestCharts::tickerMatchesTheRuler()
{
    // Keys are ns since the origin; the ruler is asked for the same window in absolute time.
    const TimeNs origin = 1700000000000000000LL;
    const TimeRange window{origin + 1200000000, origin + 1300000000};
    const RulerTicks ruler = TimeRuler::computeTicks(window, origin, 1000);
    TimeAxisTicker ticker;
    ticker.setFixedStep(ruler.step);
    QVector<double> ticks;
    QVector<QString> labels;
    ticker.generate(QCPRange(1200000000, 1300000000), QLocale::c(), QLatin1Char('g'), 6, ticks, nullptr, &labels);
    // Every ruler tick (major and minor) is a chart tick; the chart labels them with full times.
    QList<qint64> rulerTimes;
    for (const auto *row : {&ruler.major, &ruler.minor})
        for (const RulerTick &t : *row)
            rulerTimes << t.time - origin;
    std::sort(rulerTimes.begin(), rulerTimes.end());
    QList<qint64> chartTimes;
    for (double t : ticks)
        if (t >= 1200000000 && t < 1300000000)
            chartTimes << qRound64(t);
    QCOMPARE(chartTimes, rulerTimes);
    const qsizetype i = ticks.indexOf(1250000000.0);
    QVERIFY(i >= 0);
    QCOMPARE(labels.at(i), TimeFormat::tick(1250000000, ruler.step, 1300000000));
    QCOMPARE(labels.at(i), QString::fromUtf8("1.25 s"));
}

void TestCharts::tickerChoosesAStepWhenNotTold()
{
    TimeAxisTicker ticker;
    ticker.setTickCount(5);
    QVector<double> ticks;
    QVector<QString> labels;
    ticker.generate(QCPRange(0, 10000000), QLocale::c(), QLatin1Char('g'), 6, ticks, nullptr, &labels);
    // 10 ms in about five steps: 2 ms.
    QVERIFY(ticks.contains(2000000.0) && ticks.contains(4000000.0));
    QCOMPARE(labels.at(ticks.indexOf(4000000.0)), QString("4 ms"));
}

void TestCharts::plotIsDecimatedAndKeepsPeaks()
{
    // One million flat samples with a single 1-ns spike, shown 500 px wide.
    CounterSeries allocated;
    for (TimeNs i = 0; i < 1000000; ++i) {
        allocated.times.push_back(i * 10);
        allocated.values.push_back(i == 654321 ? 9e9 : 1e9);
    }
    MemoryPlot plot;
    plot.resize(500, 60);
    plot.setSeries({{&allocated, "allocated", Qt::blue, MemoryPlot::Style::Area}});
    plot.setValueMax(9e9);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setView({0, 10000000}, 0, 0);
    QTest::qWait(20);
    // At most four points per pixel column (first, max, min, last) plus the edge samples.
    QVERIFY(plot.pointCount(0) > 0);
    QVERIFY2(plot.pointCount(0) <= 4 * 500 + 2, qPrintable(QString::number(plot.pointCount(0))));
    double peak = 0;
    for (auto it = plot.graph(0)->data()->constBegin(); it != plot.graph(0)->data()->constEnd(); ++it)
        peak = std::max(peak, it->value);
    QCOMPARE(peak, 9e9);
    QCOMPARE(plot.xAxis->range().lower, 0.0);
    QCOMPARE(plot.xAxis->range().upper, 10000000.0);
    QVERIFY(plot.yAxis->range().upper > 9e9);
}

void TestCharts::plotFollowsClockOffset()
{
    CounterSeries s;
    s.times = {1000, 2000};
    s.values = {1.0, 2.0};
    MemoryPlot plot;
    plot.resize(100, 40);
    plot.setSeries({{&s, "allocated", Qt::blue, MemoryPlot::Style::Line}});
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    // View [10500, 13500) with the origin at 9000; the data is shown 10 000 ns later than recorded,
    // so the samples at 1000 and 2000 sit at view times 11000 and 12000, keys 2000 and 3000.
    plot.setView({10500, 13500}, 9000, 10000);
    QTest::qWait(20);
    QCOMPARE(plot.xAxis->range().lower, 1500.0);
    QCOMPARE(plot.pointCount(0), 2);
    QCOMPARE(plot.graph(0)->data()->at(0)->key, 2000.0);
    QCOMPARE(plot.graph(0)->data()->at(1)->key, 3000.0);
}

QTEST_MAIN(TestCharts)
#include "test_charts.moc"
