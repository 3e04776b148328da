// The memory chart's plumbing: its time ticker ticks and labels like the ruler, and the series are
// reduced to min/max columns before QCustomPlot sees them, without losing a spike.

#include "charts/columnfill.h"
#include "charts/memorychartrenderer.h"
#include "charts/memoryplot.h"
#include "charts/timeaxisticker.h"
#include "palette.h"
#include "timeformat.h"
#include "timeline/timeruler.h"

#include <QPainter>
#include <QTest>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

using namespace rs;

namespace {
using Samples = std::vector<std::pair<TimeNs, double>>;
using Columns = std::vector<std::array<int, 3>>; // x, fewest and most filled rows
} // namespace

class TestCharts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tickerMatchesTheRuler();
    void tickerChoosesAStepWhenNotTold();
    void plotIsDecimatedAndKeepsPeaks();
    void plotFollowsClockOffset();
    void areaFillCoversWhatTheLineReaches_data();
    void areaFillCoversWhatTheLineReaches();
    void spikeLabelsDoNotOverprint();
    void figureChartIsTheScreenChart();
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

void TestCharts::areaFillCoversWhatTheLineReaches_data()
{
    // Samples (time, value) on a 0..10 µs view 100 px wide (100 ns a pixel), the value axis' top,
    // and per pixel column x how many rows must be blue (filled or the line): at least `min`, at
    // most `max` (of 59; the last row is the hidden key axis').
    QTest::addColumn<Samples>("samples");
    QTest::addColumn<double>("valueMax");
    QTest::addColumn<Columns>("expect");
    // One tall sample among flat ones: its pixel is filled to the top, its neighbours are not.
    Samples spike;
    for (TimeNs t = 0; t < 10000; t += 10)
        spike.push_back({t, t == 5000 ? 10.0 : 2.0});
    QTest::newRow("one-sample spike") << spike << 10.0 << Columns{{50, 50, 59}, {48, 10, 14}, {53, 10, 14}};
    // A column that rises and falls back holds its last value, not its peak, until the next sample;
    // the last sample gets its own pixel, and after it nothing is drawn (nothing is known).
    QTest::newRow("peak then drop") << Samples{{0, 2.0}, {2000, 10.0}, {2010, 2.0}, {9000, 5.0}}
                                    << 10.0 << Columns{{20, 50, 59}, {35, 10, 14}, {85, 10, 14}, {89, 10, 14}, {90, 28, 32}, {95, 0, 0}};
    // Values far above the scale fill the column to the top; nothing wraps around.
    QTest::newRow("off the scale") << Samples{{0, 1e300}, {5000, 0.1}, {8000, 0.1}} << 1.0
                                   << Columns{{10, 59, 59}, {45, 59, 59}, {70, 4, 8}, {90, 0, 0}};
}

void TestCharts::areaFillCoversWhatTheLineReaches()
{
    QFETCH(Samples, samples);
    QFETCH(double, valueMax);
    QFETCH(Columns, expect);
    CounterSeries s;
    for (const auto &[t, v] : samples) {
        s.times.push_back(t);
        s.values.push_back(v);
    }
    MemoryPlot plot;
    plot.resize(100, 60);
    plot.setSeries({{&s, "allocated", Qt::blue, MemoryPlot::Style::Area}});
    plot.setValueMax(valueMax / 1.1); // the chart keeps 10 % headroom: the top is exactly valueMax
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setView({0, 10000}, 0, 0);
    const QImage image = plot.grab().toImage();
    for (const auto &[x, min, max] : expect) {
        // Blue rows (the fill and its line; the time grid is grey).
        int filled = 0;
        for (int y = 0; y < image.height(); ++y)
            filled += image.pixelColor(x, y).blue() > image.pixelColor(x, y).red() + 30 ? 1 : 0;
        QVERIFY2(filled >= min && filled <= max, qPrintable(QStringLiteral("column %1: %2 rows filled, want %3..%4").arg(x).arg(filled).arg(min).arg(max)));
    }
}

void TestCharts::spikeLabelsDoNotOverprint()
{
    // Three rises a few pixels apart at this zoom: the largest keeps the top row, the next goes
    // below it, the third (smallest) has no room and is left unlabelled; none overlaps another.
    CounterSeries allocated;
    for (TimeNs t = 0; t <= 10000; t += 10) {
        allocated.times.push_back(t);
        allocated.values.push_back(double(t % 1000));
    }
    MemoryChart chart;
    chart.series = {{&allocated, "allocated", QColor(0x1f, 0x77, 0xb4), MemoryChart::Style::Area, 0}};
    chart.valueMax = 1000;
    chart.spikes = {{4000, 100, QStringLiteral("+8.80 GiB"), QString(), 8},
                    {4150, 100, QStringLiteral("+9.10 GiB"), QString(), 9},
                    {4300, 100, QStringLiteral("+2.00 GiB"), QString(), 2},
                    {9000, 100, QStringLiteral("+1.00 GiB"), QString(), 1}};
    MemoryPlot plot;
    plot.resize(400, 120);
    plot.setChart(chart);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setView({0, 10000}, 0, 0);
    plot.repaint();
    QCOMPARE(plot.spikeLabelCount(), 3); // two of the cluster, and the one far away
    std::vector<std::pair<QString, QRectF>> labels;
    for (int i = 0; i < plot.itemCount(); ++i)
        if (auto *text = qobject_cast<QCPItemText *>(plot.item(i)))
            labels.emplace_back(text->text(), QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()));
    QCOMPARE(labels.size(), std::size_t(3));
    for (std::size_t a = 0; a < labels.size(); ++a)
        for (std::size_t b = a + 1; b < labels.size(); ++b)
            QVERIFY2(!labels[a].second.intersects(labels[b].second), qPrintable(labels[a].first + QStringLiteral(" / ") + labels[b].first));
    QStringList texts;
    for (const auto &l : labels)
        texts << l.first;
    QVERIFY(texts.contains(QStringLiteral("+9.10 GiB")) && texts.contains(QStringLiteral("+8.80 GiB")));
    QVERIFY(!texts.contains(QStringLiteral("+2.00 GiB")));
}

void TestCharts::figureChartIsTheScreenChart()
{
    // A chart with everything it can show: an area with a spike and a drop, a line, the capacity
    // rule, an OOM with its label, a spike band and the finding's highlight.
    CounterSeries allocated, reserved;
    for (TimeNs t = 0; t <= 10000; t += 50) {
        allocated.times.push_back(t);
        allocated.values.push_back(t == 4000 ? 70.0 : t < 6000 ? 20.0 + static_cast<double>(t % 700) / 100 : 12.0);
        reserved.times.push_back(t);
        reserved.values.push_back(t < 6000 ? 40.0 : 30.0);
    }
    MemoryChart chart;
    chart.series = {{&allocated, "allocated", QColor(0x1f, 0x77, 0xb4), MemoryChart::Style::Area, 0},
                    {&reserved, "reserved", QColor(0x11, 0x44, 0x66), MemoryChart::Style::Line, 1}};
    chart.valueMax = 72;
    chart.capacity = 76;
    chart.ooms = {{7000, QStringLiteral("OOM · 2.00 GiB")}};
    chart.spikes = {{3900, 200, QStringLiteral("+50 B"), QString()}};
    chart.highlight = {6500, 7500};
    ChartView view;
    view.visible = {0, 10000};
    view.gridStep = 1000;
    view.gridSubdivisions = 2;
    view.colors = &Palette::screen();
    const QSize size(400, 90);

    // The screen: the chart widget, shown.
    MemoryPlot screen;
    screen.resize(size);
    screen.applyColors(*view.colors);
    screen.setChart(chart);
    screen.setTimeGrid(view.gridStep, view.gridSubdivisions);
    screen.show();
    QVERIFY(QTest::qWaitForWindowExposed(&screen));
    screen.setView(view.visible, view.origin, view.offset);
    const QImage onScreen = screen.grab().toImage().convertToFormat(QImage::Format_RGB32);
    QCOMPARE(onScreen.size(), size);

    // A figure: the installed engine, into an image at an offset, on this thread and on the pool
    // (a report draws its images there).
    MemoryChartRenderer::install();
    const auto engine = MemoryChartEngine::installed();
    QVERIFY(engine);
    const auto figure = [&] {
        QImage image(size + QSize(20, 10), QImage::Format_RGB32);
        image.fill(Qt::magenta);
        QPainter p(&image);
        const bool ok = engine->paint(p, QRect(QPoint(20, 10), size), chart, view);
        p.end();
        return ok ? image.copy(QRect(QPoint(20, 10), size)) : QImage();
    };
    const QImage here = figure();
    QFuture<QImage> pooled = QtConcurrent::run(figure);
    while (!pooled.isFinished())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10); // the GUI thread draws for the pool
    if (qEnvironmentVariableIsSet("RANKSCOPE_SCREENSHOTS")) {
        onScreen.save(qEnvironmentVariable("RANKSCOPE_SCREENSHOTS") + QStringLiteral("/chart-screen.png"));
        here.save(qEnvironmentVariable("RANKSCOPE_SCREENSHOTS") + QStringLiteral("/chart-figure.png"));
    }
    for (const QImage &drawn : {here, pooled.result()}) {
        QCOMPARE(drawn.size(), size);
        // Every pixel of the figure's chart is on the screen's chart within a pixel: a thin line
        // or a glyph exactly between two pixel rows may round the other way through a picture.
        const auto near = [](const QColor &a, const QColor &b) {
            return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) <= 24;
        };
        int differ = 0;
        for (int y = 0; y < size.height(); ++y)
            for (int x = 0; x < size.width(); ++x) {
                bool found = false;
                for (int dy = -1; dy <= 1 && !found; ++dy)
                    for (int dx = -1; dx <= 1 && !found; ++dx)
                        found = onScreen.valid(x + dx, y + dy) && near(onScreen.pixelColor(x + dx, y + dy), drawn.pixelColor(x, y));
                differ += !found;
            }
        QVERIFY2(differ <= size.width() * size.height() / 500,
                 qPrintable(QStringLiteral("%1 of %2 pixels differ").arg(differ).arg(size.width() * size.height())));
        // And it is a chart, not a blank: the capacity rule's red and the area's blue are there.
        int red = 0, blue = 0;
        for (int y = 0; y < size.height(); ++y)
            for (int x = 0; x < size.width(); ++x) {
                const QColor c = drawn.pixelColor(x, y);
                red += c.red() > 150 && c.green() < 90 && c.blue() < 90;
                blue += c.blue() > c.red() + 25;
            }
        QVERIFY(red > 50);
        QVERIFY(blue > 2000);
    }
}

QTEST_MAIN(TestCharts)
#include "test_charts.moc"
