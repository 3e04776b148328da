// The memory lane draws every memory source of a rank in one chart, each in its own style:
// profiler allocated (area) and reserved (line), nvidia-smi used (dashed), allocator snapshot
// totals (dotted); timed OOMs as red lines with a label (hit-testable), the GPU's capacity as a
// rule; other counters (utilisation, power) as compact lanes with units.

#include "evidencesession.h"
#include "timeline/lanekind.h"

#include "charts/columnfill.h"
#include "charts/memoryplot.h"
#include "counterformat.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/timelineview.h"

#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

const MemoryPlot::Series *seriesNamed(const MemoryPlot *plot, const QString &name)
{
    for (const MemoryPlot::Series &s : plot->series())
        if (s.name == name)
            return &s;
    return nullptr;
}

int indexOf(const MemoryPlot *plot, const MemoryPlot::Series *s)
{
    return static_cast<int>(s - plot->series().data());
}

} // namespace

class TestMemoryLane : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void nvidiaSmiSharesTheChart();
    void oomMarksAndCapacity();
    void oomLineIsHitTestable();
    void snapshotCurvesAreDotted();
    void counterLanesWithUnits();

private:
    EvidenceSession m_e;
    ViewState *m_state = nullptr;
    TimelineView *m_view = nullptr;
};

void TestMemoryLane::init()
{
    m_e = makeEvidenceSession();
    m_state = new ViewState;
    m_view = new TimelineView(m_state);
    m_view->resize(m_view->gutterWidth() + 1000, 1200);
    m_view->setSession(m_e.session);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
}

void TestMemoryLane::cleanup()
{
    delete m_view;
    delete m_state;
}

void TestMemoryLane::nvidiaSmiSharesTheChart()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    MemoryPlot *plot = g0->memoryPlot();
    QVERIFY(plot);
    QCOMPARE(plot->series().size(), std::size_t(3));
    // Areas first so lines stay on top; each curve knows its track for the legend's peak.
    QCOMPARE(plot->series().front().style, MemoryPlot::Style::Area);
    QCOMPARE(plot->series().front().track, m_e.alloc0);
    const MemoryPlot::Series *used = seriesNamed(plot, QStringLiteral("used (nvidia-smi)"));
    QVERIFY(used);
    QCOMPARE(used->track, m_e.used0);
    QCOMPARE(used->style, MemoryPlot::Style::Dashed);
    QCOMPARE(seriesNamed(plot, QStringLiteral("reserved"))->style, MemoryPlot::Style::Line);
    // Plotted, with a dashed pen, after a paint.
    QTest::qWait(30);
    plot->repaint();
    const int i = indexOf(plot, used);
    QVERIFY(plot->pointCount(i) >= 10);
    QCOMPARE(plot->line(i)->pen().style(), Qt::CustomDashLine);
    QVERIFY(!plot->fill(i)); // a line, no area
    // The area is filled under its line, from the same columns.
    const ColumnFill *area = plot->fill(indexOf(plot, &plot->series().front()));
    QVERIFY(area && !area->columns().isEmpty());
    // The lane's legend needs a row per curve and one for the capacity.
    QVERIFY(g0->layout().memoryLane()->height >= LaneLayout::kRowHeight + 4 * LaneLayout::kLegendRow);
    // nvidia-smi's memory.used is in the chart, not a lane of its own.
    QVERIFY(g0->laneRect(m_e.used0).isEmpty());
}

void TestMemoryLane::oomMarksAndCapacity()
{
    MemoryPlot *plot1 = m_view->rankGroup(1)->memoryPlot();
    QVERIFY(plot1);
    // The log's OOM and the trace's [OutOfMemory] instant, each with the request it names.
    QCOMPARE(plot1->oomMarks().size(), std::size_t(2));
    QCOMPARE(plot1->oomMarks()[0].time, kEvBase + 7000);
    QStringList labels;
    for (const auto &m : plot1->oomMarks())
        labels << m.label;
    QCOMPARE(labels, QStringList({QStringLiteral("OOM · 2.00 GiB"), QStringLiteral("OOM · 2.00 GiB")}));
    plot1->repaint();
    // A rule per OOM, one label (the second, at the same moment, would print over the first),
    // plus the capacity rule: 80 GiB lies on the shared axis (its top is 1.1 × the largest value,
    // 78 GiB).
    QCOMPARE(plot1->itemCount(), 2 + 1 + 1);
    QCOMPARE(plot1->capacity(), 80.0 * kGiB);
    QVERIFY(m_view->rankGroup(0)->memoryPlot()->oomMarks().empty());
    // Out of view, no OOM items.
    m_state->setVisibleRange({kEvBase + 100, kEvBase + 3000});
    plot1->repaint();
    QCOMPARE(plot1->itemCount(), 1);
}

void TestMemoryLane::oomLineIsHitTestable()
{
    const RankGroupWidget *g1 = m_view->rankGroup(1);
    const Lane *memory = g1->layout().memoryLane();
    const int x = static_cast<int>(std::floor(g1->viewScale().toX(kEvBase + 7000)));
    const EventRef hit = g1->hitTest({x + 2, memory->top + memory->height / 2});
    QCOMPARE(hit, EventRef::oom(0));
    QVERIFY(g1->hitTest({x + 40, memory->top + memory->height / 2}).isNone());
}

void TestMemoryLane::snapshotCurvesAreDotted()
{
    SessionBuilder sb;
    SourceBuilder b("/snap/memory_snapshot.pickle");
    b.source().format = "memory-snapshot";
    b.source().ranks = {0};
    const TrackId a = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
    const TrackId r = b.track(TrackKind::MemoryReserved, 0, 0, 0);
    for (int k = 0; k < 5; ++k) {
        b.addCounterSample(a, kEvBase + k * 100, k * 1.0e9);
        b.addCounterSample(r, kEvBase + k * 100, k * 2.0e9);
    }
    b.finish();
    sb.addSource(std::move(b));
    m_view->setSession(sb.freeze());
    MemoryPlot *plot = m_view->rankGroup(0)->memoryPlot();
    QVERIFY(plot);
    QCOMPARE(seriesNamed(plot, QStringLiteral("snapshot allocated"))->style, MemoryPlot::Style::Dotted);
    QCOMPARE(seriesNamed(plot, QStringLiteral("snapshot reserved"))->style, MemoryPlot::Style::Dotted);
}

void TestMemoryLane::counterLanesWithUnits()
{
    const RankGroupWidget *g0 = m_view->rankGroup(0);
    QVERIFY(g0->layout().laneForTrack(m_e.util0)->is(LaneId::Counter));
    QVERIFY(g0->layout().laneForTrack(m_e.power0)->is(LaneId::Counter));
    QVERIFY(g0->layout().laneForTrack(m_e.util0)->height <= LaneLayout::kCounterHeight);
    const Session &s = *m_e.session;
    QCOMPARE(CounterFormat::unit(s, s.tracks()[m_e.util0]), CounterFormat::Unit::Percent);
    QCOMPARE(CounterFormat::unit(s, s.tracks()[m_e.power0]), CounterFormat::Unit::Watts);
    QCOMPARE(CounterFormat::unit(s, s.tracks()[m_e.used0]), CounterFormat::Unit::Bytes);
    QCOMPARE(CounterFormat::value(325, CounterFormat::Unit::Watts), QStringLiteral("325 W"));
    QCOMPARE(CounterFormat::value(90, CounterFormat::Unit::Percent), QStringLiteral("90 %"));
    QCOMPARE(CounterFormat::fixedMax(CounterFormat::Unit::Percent), 100.0);
    // Utilisation is drawn against 0–100 %, not against its own maximum (90 %): at 80 % the area's
    // top sits a fifth of the plot height (28 px) below the plot's top (lane top + 4), not a ninth.
    RankGroupWidget *g = m_view->rankGroup(0);
    const QRect lane = g->laneRect(m_e.util0);
    const QImage img = g->grab().toImage();
    const int x = static_cast<int>(std::floor(g->viewScale().toX(kEvBase + 8500)));
    int top = -1;
    for (int y = lane.top() + 1; y < lane.bottom(); ++y)
        if (img.pixelColor(x, y).lightness() < 235) {
            top = y;
            break;
        }
    QVERIFY2(top >= lane.top() + 9 && top <= lane.top() + 10, qPrintable(QString::number(top - lane.top())));
}

QTEST_MAIN(TestMemoryLane)
#include "test_memorylane.moc"
