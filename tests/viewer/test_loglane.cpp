// The log lane of each rank group: present only for ranks with timed records, a marker per record
// at its time (INFO dimmed, WARN amber, errors red, OOM its own glyph), hit-testing that prefers the
// most severe marker under the mouse, click-to-select shown by the Details panel, '.' stepping in
// time order, and a time axis that covers log-only sessions.

#include "evidencesession.h"

#include "logstyle.h"
#include "panels/detailspanel.h"
#include "timeline/evidenceindex.h"
#include "timeline/lanepainter.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QMouseEvent>
#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

int logLaneY(const RankGroupWidget *g)
{
    const Lane *lane = g->layout().logLane();
    return lane ? lane->top + (lane->height - 1) / 2 : -1;
}

int xOf(const RankGroupWidget *g, TimeNs t)
{
    return static_cast<int>(std::floor(g->viewScale().toX(t)));
}

void click(QWidget *w, QPoint pos)
{
    QTest::mousePress(w, Qt::LeftButton, {}, pos);
    QTest::mouseRelease(w, Qt::LeftButton, {}, pos);
}

} // namespace

class TestLogLane : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void evidenceIsIndexedByTime();
    void laneOnlyWithTimedRecords();
    void hitTestFindsTheRecord();
    void severeMarkerWinsUnderTheMouse();
    void clickSelectsAndDetailsShowIt();
    void stepThroughRecordsInTime();
    void markersArePaintedInTheirColours();
    void logOnlySessionHasATimeAxis();

private:
    EvidenceSession m_e;
    ViewState *m_state = nullptr;
    TimelineView *m_view = nullptr;
};

void TestLogLane::init()
{
    m_e = makeEvidenceSession();
    m_state = new ViewState;
    m_view = new TimelineView(m_state);
    m_view->resize(m_view->gutterWidth() + 1000, 900);
    m_view->setSession(m_e.session);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
}

void TestLogLane::cleanup()
{
    delete m_view;
    delete m_state;
}

void TestLogLane::evidenceIsIndexedByTime()
{
    EvidenceIndex ev;
    ev.build(m_e.session.get());
    const auto &r1 = ev.logs(1);
    QCOMPARE(r1.size(), std::size_t(4));
    QCOMPARE(r1[0].index, uint(RecR1Info));
    QCOMPARE(r1[3].index, uint(RecR1Oom));
    QCOMPARE(r1[3].mark, LogStyle::Mark::Oom);
    QCOMPARE(ev.notableLogs(1).size(), std::size_t(2));
    QCOMPARE(ev.untimedLogCount(0), std::size_t(1));
    // Job-level records have no group but widen the extent.
    QCOMPARE(ev.extent(), (TimeRange{kEvBase, kEvBase + 9001}));
    const auto [lo, hi] = EvidenceIndex::inRange(r1, {kEvBase + 4000, kEvBase + 7000});
    QCOMPARE(hi - lo, std::size_t(2));
    // OOMs: the log's message (timed) and the trace's [OutOfMemory] instant, both at +7 µs; rank 2's
    // untimed OOM only counts.
    QCOMPARE(ev.ooms(1).size(), std::size_t(2));
    QCOMPARE(ev.ooms(1)[0].time, kEvBase + 7000);
    QCOMPARE(ev.oomCount(1), std::size_t(1));
    QCOMPARE(ev.oomCount(2), std::size_t(1));
    QVERIFY(ev.ooms(2).empty());
    QCOMPARE(ev.errorCount(1), std::size_t(2));
}

void TestLogLane::laneOnlyWithTimedRecords()
{
    QVERIFY(m_view->rankGroup(0)->layout().logLane());
    QVERIFY(m_view->rankGroup(1)->layout().logLane());
    QVERIFY(m_view->rankGroup(2));
    QVERIFY(!m_view->rankGroup(2)->layout().logLane());
    // Collapsed groups fold it away with everything else.
    m_state->setRankCollapsed(0, true);
    QVERIFY(!m_view->rankGroup(0)->layout().logLane());
    m_state->setRankCollapsed(0, false);
    QVERIFY(m_view->rankGroup(0)->layout().logLane());
}

void TestLogLane::hitTestFindsTheRecord()
{
    const RankGroupWidget *g0 = m_view->rankGroup(0);
    const int y = logLaneY(g0);
    QCOMPARE(g0->hitTest({xOf(g0, kEvBase + 3000), y}), EventRef::logRecord(RecR0Warn));
    QCOMPARE(g0->hitTest({xOf(g0, kEvBase + 3000) + 4, y}), EventRef::logRecord(RecR0Warn));
    QCOMPARE(g0->hitTest({xOf(g0, kEvBase + 1000), y}), EventRef::logRecord(RecR0Info1));
    // Between markers, nothing; and the untimed record is nowhere on the lane.
    QVERIFY(g0->hitTest({xOf(g0, kEvBase + 2000), y}).isNone());
    // A clock offset moves the hits with the picture.
    m_state->setClockOffsets({{0, 1000}});
    QCOMPARE(g0->hitTest({xOf(g0, kEvBase + 4000), y}), EventRef::logRecord(RecR0Warn));
}

void TestLogLane::severeMarkerWinsUnderTheMouse()
{
    const RankGroupWidget *g1 = m_view->rankGroup(1);
    const int y = logLaneY(g1);
    const int info = xOf(g1, kEvBase + 5000);
    const int error = xOf(g1, kEvBase + 5100);
    QVERIFY(error - info <= 2 * (LanePainter::kLogMarkerRadius + 1));
    // Within reach of both, the error wins: it is drawn on top of the INFO tick.
    QCOMPARE(g1->hitTest({(info + error) / 2, y}), EventRef::logRecord(RecR1Error));
    QCOMPARE(g1->hitTest({info - 3, y}), EventRef::logRecord(RecR1Info2));
    // Zoomed in far enough to separate them, each marker is its own.
    m_state->setVisibleRange({kEvBase + 4900, kEvBase + 5300});
    QCOMPARE(g1->hitTest({xOf(g1, kEvBase + 5000), y}), EventRef::logRecord(RecR1Info2));
    QCOMPARE(g1->hitTest({xOf(g1, kEvBase + 5100), y}), EventRef::logRecord(RecR1Error));
}

void TestLogLane::clickSelectsAndDetailsShowIt()
{
    DetailsPanel details(m_state);
    details.setSession(m_e.session);
    RankGroupWidget *g1 = m_view->rankGroup(1);
    click(g1, {xOf(g1, kEvBase + 7000), logLaneY(g1)});
    QCOMPARE(m_state->selection(), EventRef::logRecord(RecR1Oom));
    QCOMPARE(details.fieldValue(QStringLiteral("Source")), QStringLiteral("job.log:9"));
    QCOMPARE(details.fieldValue(QStringLiteral("Rank")), QStringLiteral("1"));
    QCOMPARE(details.fieldValue(QStringLiteral("Level")), QStringLiteral("ERROR"));
    QCOMPARE(details.fieldValue(QStringLiteral("Kind")), QStringLiteral("Python"));
    QCOMPARE(details.fieldValue(QStringLiteral("Time")), QStringLiteral("7 µs"));
    QVERIFY(details.fieldValue(QStringLiteral("Message")).startsWith(QLatin1String("torch.OutOfMemoryError")));
    QVERIFY(details.fieldValue(QStringLiteral("Flags")).contains(QLatin1String("out of memory")));
    // Untimed and job-level records show as such.
    m_state->setSelection(EventRef::logRecord(RecR0Untimed));
    QVERIFY(details.fieldValue(QStringLiteral("Time")).startsWith(QStringLiteral("—")));
    // ... with the stamped lines of the same file around it.
    QVERIFY(details.fieldValue(QStringLiteral("Printed between")).startsWith(QStringLiteral("1 µs and 2 µs")));
    m_state->setSelection(EventRef::logRecord(RecJobFailed));
    QCOMPARE(details.fieldValue(QStringLiteral("Rank")), QStringLiteral("job"));
    // The OOM itself, selected on the memory chart.
    m_state->setSelection(EventRef::oom(0));
    QVERIFY(details.fieldValue(QStringLiteral("Requested")).startsWith(QLatin1String("2.00 GiB")));
    QVERIFY(details.fieldValue(QStringLiteral("Reserved − allocated")).startsWith(QLatin1String("8.00 GiB")));
    // An empty spot clears the selection.
    click(g1, {xOf(g1, kEvBase + 2500), logLaneY(g1)});
    QVERIFY(m_state->selection().isNone());
}

void TestLogLane::stepThroughRecordsInTime()
{
    m_state->setSelection(EventRef::logRecord(RecR1Info));
    m_view->setFocus();
    QTest::keyClick(m_view, Qt::Key_Period);
    QCOMPARE(m_state->selection(), EventRef::logRecord(RecR1Info2));
    QTest::keyClick(m_view, Qt::Key_Period);
    QTest::keyClick(m_view, Qt::Key_Period);
    QCOMPARE(m_state->selection(), EventRef::logRecord(RecR1Oom));
    QTest::keyClick(m_view, Qt::Key_Period); // the last one stays
    QCOMPARE(m_state->selection(), EventRef::logRecord(RecR1Oom));
    QTest::keyClick(m_view, Qt::Key_Comma);
    QCOMPARE(m_state->selection(), EventRef::logRecord(RecR1Error));
    // F zooms around it.
    QTest::keyClick(m_view, Qt::Key_F);
    QVERIFY(m_state->visibleRange().contains(kEvBase + 5100));
    QVERIFY(m_state->visibleRange().duration() < 20000);
}

void TestLogLane::markersArePaintedInTheirColours()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    RankGroupWidget *g1 = m_view->rankGroup(1);
    const QImage i0 = g0->grab().toImage();
    const QImage i1 = g1->grab().toImage();
    auto near = [](QColor a, QColor b) {
        return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) < 40;
    };
    // The warning triangle is filled below its centre line; the OOM octagon around it.
    const QColor warn = i0.pixelColor(xOf(g0, kEvBase + 3000), logLaneY(g0) + 2);
    QVERIFY2(near(warn, LogStyle::color(LogStyle::Mark::Warning)), qPrintable(warn.name()));
    const QColor oom = i1.pixelColor(xOf(g1, kEvBase + 7000) - 3, logLaneY(g1) - 3);
    QVERIFY2(near(oom, LogStyle::color(LogStyle::Mark::Oom)), qPrintable(oom.name()));
    const QColor info = i0.pixelColor(xOf(g0, kEvBase + 1000), logLaneY(g0));
    QVERIFY2(near(info, LogStyle::color(LogStyle::Mark::Info)), qPrintable(info.name()));
    // Nothing between them.
    QCOMPARE(i0.pixelColor(xOf(g0, kEvBase + 2500), logLaneY(g0)).lightness(), 255);
}

void TestLogLane::logOnlySessionHasATimeAxis()
{
    SessionBuilder sb;
    SourceBuilder b("/only.log");
    b.source().format = "nccl-log";
    b.source().ranks = {0};
    for (int k = 0; k < 3; ++k) {
        LogRecord r;
        r.time = kEvBase + k * 1000000;
        r.rank = 0;
        r.line = k + 1;
        r.text = b.logs().addText("line");
        b.logs().records.push_back(r);
    }
    b.finish();
    sb.addSource(std::move(b));
    m_view->setSession(sb.freeze());
    QVERIFY(m_view->hasTimedData());
    QCOMPARE(m_state->fullRange(), (TimeRange{kEvBase, kEvBase + 2000001}));
    QVERIFY(m_view->rankGroup(0)->layout().logLane());

    // Untimed records only: no time axis to speak of, and no lane.
    SessionBuilder untimed;
    SourceBuilder u("/untimed.log");
    u.source().format = "nccl-log";
    u.source().ranks = {0};
    LogRecord r;
    r.rank = 0;
    r.line = 1;
    u.logs().records.push_back(r);
    u.finish();
    untimed.addSource(std::move(u));
    m_view->setSession(untimed.freeze());
    QVERIFY(!m_view->hasTimedData());
    QVERIFY(!m_view->rankGroup(0)->layout().logLane());
}

QTEST_MAIN(TestLogLane)
#include "test_loglane.moc"
