// Time formatting and the ruler's two label rows, with exact strings: what an engineer reads off
// the axis must not change by accident.

#include "timeformat.h"
#include "timeline/timeruler.h"
#include "viewstate.h"

#include <QSignalSpy>
#include <QTest>

using namespace rs;

namespace {

const QChar kThin(0x2009);

QString thin(QString s)
{
    return s.replace(QLatin1Char('_'), kThin);
}

QStringList labels(const std::vector<RulerTick> &ticks)
{
    QStringList out;
    for (const RulerTick &t : ticks)
        out << t.label;
    return out;
}

QList<qint64> times(const std::vector<RulerTick> &ticks, TimeNs origin)
{
    QList<qint64> out;
    for (const RulerTick &t : ticks)
        out << t.time - origin;
    return out;
}

} // namespace

class TestTimeRuler : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void niceStep_data();
    void niceStep();
    void tickAndOffsetLabels_data();
    void tickAndOffsetLabels();
    void durations_data();
    void durations();
    void precise_data();
    void precise();
    void wallClockAndBytes();
    void rows_data();
    void rows();
    void ticksFollowTheViewState();
};

void TestTimeRuler::niceStep_data()
{
    QTest::addColumn<double>("approx");
    QTest::addColumn<qint64>("step");
    QTest::newRow("below one") << 0.3 << qint64(1);
    QTest::newRow("one") << 1.0 << qint64(1);
    QTest::newRow("1.1 -> 2") << 1.1 << qint64(2);
    QTest::newRow("3 -> 5") << 3.0 << qint64(5);
    QTest::newRow("7 -> 10") << 7.0 << qint64(10);
    QTest::newRow("80 ms -> 100 ms") << 8.0e7 << qint64(100000000);
    QTest::newRow("exact 2e6") << 2.0e6 << qint64(2000000);
    QTest::newRow("2.5 s -> 5 s") << 2.5e9 << qint64(5000000000LL);
}

void TestTimeRuler::niceStep()
{
    QFETCH(double, approx);
    QFETCH(qint64, step);
    QCOMPARE(TimeFormat::niceStep(approx), step);
}

void TestTimeRuler::tickAndOffsetLabels_data()
{
    QTest::addColumn<qint64>("value");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<qint64>("magnitude");
    QTest::addColumn<QString>("tick");
    QTest::addColumn<QString>("offset");
    QTest::newRow("zero seconds") << qint64(0) << qint64(1000000000) << qint64(1000000000) << "0 s" << "+0 s";
    QTest::newRow("ms in a ms window") << qint64(30000000) << qint64(10000000) << qint64(100000000) << "30 ms" << "+30 ms";
    // Tick labels take the unit of the window, offsets the unit of the step.
    QTest::newRow("s unit, 0.1 s step") << qint64(1200000000) << qint64(100000000) << qint64(1300000000) << "1.2 s" << "+1200 ms";
    QTest::newRow("s unit, µs step") << qint64(1234567000) << qint64(1000) << qint64(1234570000) << thin("1.234_567 s") << "+1234567 µs";
    QTest::newRow("decimals of a 100 ns step in µs") << qint64(1000) << qint64(100) << qint64(1043) << "1.0 µs" << "+1000 ns";
    QTest::newRow("ns") << qint64(500) << qint64(500) << qint64(900) << "500 ns" << "+500 ns";
    QTest::newRow("negative") << qint64(-2000000) << qint64(1000000) << qint64(5000000) << QString(QChar(0x2212)) + "2 ms"
                              << QString(QChar(0x2212)) + "2 ms";
}

void TestTimeRuler::tickAndOffsetLabels()
{
    QFETCH(qint64, value);
    QFETCH(qint64, step);
    QFETCH(qint64, magnitude);
    QFETCH(QString, tick);
    QFETCH(QString, offset);
    QCOMPARE(TimeFormat::tick(value, step, magnitude), tick);
    QCOMPARE(TimeFormat::offset(value, step), offset);
}

void TestTimeRuler::durations_data()
{
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QString>("text");
    QTest::newRow("0") << qint64(0) << "0 ns";
    QTest::newRow("850 ns") << qint64(850) << "850 ns";
    QTest::newRow("1.25 µs") << qint64(1250) << "1.25 µs";
    QTest::newRow("12.3 ms") << qint64(12345678) << "12.3 ms";
    QTest::newRow("123 ms") << qint64(123456789) << "123 ms";
    QTest::newRow("1.50 s") << qint64(1500000000) << "1.50 s";
    QTest::newRow("minutes") << qint64(125500000000LL) << "2 min 5.5 s";
    QTest::newRow("hours") << qint64(3600000000000LL * 2 + 60000000000LL * 3) << "2 h 3 min";
    QTest::newRow("negative") << qint64(-1250) << QString(QChar(0x2212)) + "1.25 µs";
}

void TestTimeRuler::durations()
{
    QFETCH(qint64, ns);
    QFETCH(QString, text);
    QCOMPARE(TimeFormat::duration(ns), text);
}

void TestTimeRuler::precise_data()
{
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QString>("text");
    QTest::newRow("whole seconds") << qint64(2000000000) << "2 s";
    QTest::newRow("ns in seconds") << qint64(1234567891) << thin("1.234_567_891 s");
    QTest::newRow("ms precision") << qint64(1234000000) << thin("1.234 s");
    QTest::newRow("µs in ms") << qint64(12345000) << thin("12.345 ms");
    QTest::newRow("ns in ms") << qint64(12345001) << thin("12.345_001 ms");
    QTest::newRow("µs") << qint64(1000) << "1 µs";
    QTest::newRow("ns") << qint64(999) << "999 ns";
}

void TestTimeRuler::precise()
{
    QFETCH(qint64, ns);
    QFETCH(QString, text);
    QCOMPARE(TimeFormat::precise(ns), text);
}

void TestTimeRuler::wallClockAndBytes()
{
    QCOMPARE(TimeFormat::wallClock(1700000000000000000LL + 1234567), thin("2023-11-14 22:13:20.001_234_567 UTC"));
    QCOMPARE(TimeFormat::wallClock(0), thin("1970-01-01 00:00:00.000_000_000 UTC"));
    QCOMPARE(TimeFormat::bytes(512), "512 B");
    QCOMPARE(TimeFormat::bytes(1536), "1.50 KiB");
    QCOMPARE(TimeFormat::bytes(34079899648.0), "31.7 GiB");
    QCOMPARE(TimeFormat::bytes(-2.0 * 1024 * 1024), QString(QChar(0x2212)) + "2.00 MiB");
}

void TestTimeRuler::rows_data()
{
    QTest::addColumn<qint64>("begin"); // relative to the origin
    QTest::addColumn<qint64>("end");
    QTest::addColumn<double>("width");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<qint64>("majorStep");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QStringList>("major");
    QTest::addColumn<QList<qint64>>("majorTimes");
    QTest::addColumn<QStringList>("minor");

    QTest::newRow("one second over 1000 px")
        << qint64(0) << qint64(1000000000) << 1000.0 << qint64(100000000) << qint64(1000000000) << "0 s"
        << QStringList{"0 s"} << QList<qint64>{0}
        << QStringList{"+100 ms", "+200 ms", "+300 ms", "+400 ms", "+500 ms", "+600 ms", "+700 ms", "+800 ms", "+900 ms"};
    QTest::newRow("100 ms window at 1.2 s")
        << qint64(1200000000) << qint64(1300000000) << 1000.0 << qint64(10000000) << qint64(100000000) << "1.2 s"
        << QStringList{"1.2 s"} << QList<qint64>{1200000000}
        << QStringList{"+10 ms", "+20 ms", "+30 ms", "+40 ms", "+50 ms", "+60 ms", "+70 ms", "+80 ms", "+90 ms"};
    QTest::newRow("5 µs window deep in the session")
        << qint64(1234567000) << qint64(1234572000) << 1000.0 << qint64(500) << qint64(1000) << thin("1.234_567 s")
        << QStringList{thin("1.234_567 s"), thin("1.234_568 s"), thin("1.234_569 s"), thin("1.234_570 s"), thin("1.234_571 s")}
        << QList<qint64>{1234567000, 1234568000, 1234569000, 1234570000, 1234571000}
        << QStringList{"+500 ns", "+500 ns", "+500 ns", "+500 ns", "+500 ns"};
    QTest::newRow("window between majors pins the context")
        << qint64(1250000000) << qint64(1280000000) << 1200.0 << qint64(2000000) << qint64(10000000) << thin("1.25 s")
        << QStringList{"1.25 s", "1.26 s", "1.27 s"} << QList<qint64>{1250000000, 1260000000, 1270000000}
        << QStringList{"+2 ms", "+4 ms", "+6 ms", "+8 ms", "+2 ms", "+4 ms", "+6 ms", "+8 ms", "+2 ms", "+4 ms", "+6 ms", "+8 ms"};
    QTest::newRow("unaligned start")
        << qint64(1003) << qint64(1043) << 400.0 << qint64(10) << qint64(100) << "1.0 µs"
        << QStringList{} << QList<qint64>{}
        << QStringList{"+10 ns", "+20 ns", "+30 ns", "+40 ns"};
}

void TestTimeRuler::rows()
{
    QFETCH(qint64, begin);
    QFETCH(qint64, end);
    QFETCH(double, width);
    QFETCH(qint64, step);
    QFETCH(qint64, majorStep);
    QFETCH(QString, context);
    QFETCH(QStringList, major);
    QFETCH(QList<qint64>, majorTimes);
    QFETCH(QStringList, minor);
    const TimeNs origin = 1700000000000000000LL;
    const RulerTicks t = TimeRuler::computeTicks({origin + begin, origin + end}, origin, width);
    QCOMPARE(t.step, step);
    QCOMPARE(t.majorStep, majorStep);
    QCOMPARE(t.context.label, context);
    QCOMPARE(labels(t.major), major);
    QCOMPARE(times(t.major, origin), majorTimes);
    QCOMPARE(labels(t.minor), minor);
    // Every tick is inside the window and a multiple of the step.
    for (const auto *row : {&t.major, &t.minor})
        for (const RulerTick &tick : *row) {
            QVERIFY(tick.time >= origin + begin && tick.time < origin + end);
            QCOMPARE((tick.time - origin) % step, 0);
        }
}

void TestTimeRuler::ticksFollowTheViewState()
{
    ViewState state;
    state.setFullRange({0, 1000000000});
    TimeRuler ruler(&state);
    ruler.setGutterWidth(200);
    ruler.resize(1200, TimeRuler::kHeight);
    ruler.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ruler));
    QCOMPARE(ruler.ticks().step, 100000000); // 1 s over 1000 px
    QSignalSpy changed(&ruler, &TimeRuler::ticksChanged);
    state.setVisibleRange({0, 1000000});
    QCOMPARE(changed.count(), 1);
    QCOMPARE(ruler.ticks().step, 100000);
    QCOMPARE(ruler.scale().toX(500000), 700.0);
}

QTEST_MAIN(TestTimeRuler)
#include "test_timeruler.moc"
