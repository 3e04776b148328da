// The timeline on a small known session: a click at a pixel selects the span painted there (also
// with a clock offset and when zoomed), and the keyboard, wheel and drag navigation of DESIGN.md §5
// move the shared ViewState as documented.

#include "testsession.h"
#include "timeline/lanekind.h"

#include "timeline/rankgroupwidget.h"
#include "timeline/timelineview.h"
#include "timeline/timeruler.h"

#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

using namespace rs;
using namespace rs::test;

namespace {

const Lane *laneOfKind(const RankGroupWidget *g, std::string_view kind)
{
    for (const Lane &l : g->layout().lanes())
        if (l.is(kind))
            return &l;
    return nullptr;
}

// y of the middle of depth `d` in the lane of `track`.
int rowY(const RankGroupWidget *g, TrackId track, int d)
{
    return g->laneRect(track).top() + LaneLayout::kLanePadding + d * LaneLayout::kRowHeight + LaneLayout::kRowHeight / 2;
}

// Synthesised (non-spontaneous) wheel events are not propagated to parents, so they go straight to
// the viewport, where a real wheel event over a lane ends up.
void sendWheel(QAbstractScrollArea *area, QWidget *over, QPoint pos, int delta, Qt::KeyboardModifiers mods)
{
    QWidget *target = area->viewport();
    pos = over->mapTo(target, pos);
    QWheelEvent ev(QPointF(pos), QPointF(target->mapToGlobal(pos)), QPoint(), QPoint(0, delta), Qt::NoButton, mods,
                   Qt::NoScrollPhase, false);
    QApplication::sendEvent(target, &ev);
}

void sendMouse(QWidget *target, QEvent::Type type, QPoint pos, Qt::MouseButtons buttons)
{
    QMouseEvent ev(type, QPointF(pos), QPointF(target->mapToGlobal(pos)),
                   type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton, buttons, Qt::NoModifier);
    QApplication::sendEvent(target, &ev);
}

} // namespace

class TestTimelineView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void layoutOfTheGroups();
    void clickSelectsThePaintedSpan();
    void clickUsesToleranceAndClearsOnEmpty();
    void stepsAndInstantsAreSelectable();
    void clockOffsetMovesHitsWithThePicture();
    void hitTestWhenZoomedIn();
    void headerClickCollapses();
    void keyboardNavigation();
    void selectionStepping();
    void wheelZoomsAroundTheMouse();
    void dragPans();
    void hiddenRanksDisappear();

private:
    ViewState *m_state = nullptr;
    TimelineView *m_view = nullptr;
    TestSession m_t;
};

void TestTimelineView::init()
{
    m_t = makeTestSession();
    m_state = new ViewState;
    m_view = new TimelineView(m_state);
    // 232 px gutter + 1000 px of lanes: 10 ns per pixel over the 10 µs session.
    m_view->resize(m_view->gutterWidth() + 1000, 600);
    m_view->setSession(m_t.session);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
    QCOMPARE(m_view->viewport()->width(), m_view->gutterWidth() + 1000);
    QCOMPARE(m_state->fullRange(), (TimeRange{kBase + 1000, kBase + 11000}));
}

void TestTimelineView::cleanup()
{
    delete m_view;
    delete m_state;
}

void TestTimelineView::layoutOfTheGroups()
{
    QCOMPARE(m_view->rankGroups().size(), std::size_t(2));
    const RankGroupWidget *g0 = m_view->rankGroup(0);
    QVERIFY(g0);
    QVERIFY(laneOfKind(g0, LaneId::Memory));
    QVERIFY(laneOfKind(g0, LaneId::Steps));
    QCOMPARE(g0->laneRect(m_t.cpu0).height(), 3 * LaneLayout::kRowHeight + 2 * LaneLayout::kLanePadding + 1);
    QVERIFY(!g0->laneRect(m_t.gpu0).isEmpty());
    QVERIFY(!g0->laneRect(m_t.markers0).isEmpty());
    QVERIFY(g0->laneRect(m_t.alloc0).isEmpty()); // drawn in the memory chart, not as a lane
    // Lanes follow the session order: memory, steps, then CPU before GPU.
    QVERIFY(laneOfKind(g0, LaneId::Memory)->top < laneOfKind(g0, LaneId::Steps)->top);
    QVERIFY(g0->laneRect(m_t.cpu0).top() < g0->laneRect(m_t.gpu0).top());
    const RankGroupWidget *g1 = m_view->rankGroup(1);
    QVERIFY(g1 && !laneOfKind(g1, LaneId::Memory));
    QVERIFY(g1->y() >= g0->y() + g0->height());
    QVERIFY(!m_view->rankGroup(2));
}

void TestTimelineView::clickSelectsThePaintedSpan()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const struct {
        TrackId track;
        std::uint32_t index;
    } cases[] = {{m_t.cpu0, m_t.linearB}, {m_t.cpu0, m_t.addmmC}, {m_t.cpu0, m_t.reluD}, {m_t.gpu0, m_t.gemm},
                 {m_t.gpu0, m_t.reluKernel}};
    for (const auto &c : cases) {
        const QRectF r = g0->spanRect(c.track, c.index);
        QVERIFY(!r.isEmpty());
        QTest::mouseClick(g0, Qt::LeftButton, {}, r.center().toPoint());
        QCOMPARE(m_state->selection(), EventRef::span(c.track, c.index));
    }
    // The expected pixel position follows from the scale: B = [2000, 5000) → x 332..632 at depth 1.
    const QRectF b = g0->spanRect(m_t.cpu0, m_t.linearB);
    QCOMPARE(b.left(), m_view->gutterWidth() + 100.0);
    QCOMPARE(b.width(), 300.0);
    QCOMPARE(int(b.top()), g0->laneRect(m_t.cpu0).top() + LaneLayout::kLanePadding + LaneLayout::kRowHeight);
    // Rank 1 has its own group.
    RankGroupWidget *g1 = m_view->rankGroup(1);
    QTest::mouseClick(g1, Qt::LeftButton, {}, g1->spanRect(m_t.cpu1, m_t.conv).center().toPoint());
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu1, m_t.conv));
}

void TestTimelineView::clickUsesToleranceAndClearsOnEmpty()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const int g = m_view->gutterWidth();
    const int y = rowY(g0, m_t.cpu0, 1);
    // Two pixels right of B's end still picks B; two pixels left of D's start picks D.
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(g + 402, y));
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.linearB));
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(g + 498, y));
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.reluD));
    // Half way between them nothing is hit, and the selection is cleared.
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(g + 450, y));
    QVERIFY(m_state->selection().isNone());
    // The deepest level where nothing runs, and the gutter, hit nothing either.
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.stepA));
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(g + 600, rowY(g0, m_t.cpu0, 2)));
    QVERIFY(m_state->selection().isNone());
    QCOMPARE(g0->hitTest(QPoint(g - 10, y)), EventRef{});
}

void TestTimelineView::stepsAndInstantsAreSelectable()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const Lane *steps = laneOfKind(g0, LaneId::Steps);
    QVERIFY(steps);
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(m_view->gutterWidth() + 500, steps->top + steps->height / 2));
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.stepA));
    // The checkpoint instant at 10 µs is at x = gutter + 900.
    const QRect markers = g0->laneRect(m_t.markers0);
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(m_view->gutterWidth() + 902, markers.center().y()));
    QCOMPARE(m_state->selection(), EventRef::instant(m_t.markers0, 0));
}

void TestTimelineView::clockOffsetMovesHitsWithThePicture()
{
    m_state->setClockOffsets({{0, 500}});
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const QRectF b = g0->spanRect(m_t.cpu0, m_t.linearB);
    QCOMPARE(b.left(), m_view->gutterWidth() + 150.0); // 500 ns later = 50 px right
    QTest::mouseClick(g0, Qt::LeftButton, {}, b.center().toPoint());
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.linearB));
    // Where B was before the offset there is now nothing on its level.
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(m_view->gutterWidth() + 110, rowY(g0, m_t.cpu0, 1)));
    QVERIFY(m_state->selection().isNone());
    // Rank 1 is not shifted.
    QCOMPARE(m_view->rankGroup(1)->spanRect(m_t.cpu1, m_t.conv).left(), m_view->gutterWidth() + 50.0);
    QCOMPARE(m_view->eventRange(EventRef::span(m_t.cpu0, m_t.linearB)), (std::optional<TimeRange>(TimeRange{kBase + 2500, kBase + 5500})));
}

void TestTimelineView::hitTestWhenZoomedIn()
{
    // 700 ns over 1000 px: C = [2500, 3000) spans x 100..814 relative to the lane start.
    m_state->setVisibleRange({kBase + 2400, kBase + 3100});
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const QRectF c = g0->spanRect(m_t.cpu0, m_t.addmmC);
    QCOMPARE(qRound(c.left()), m_view->gutterWidth() + 143);
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(m_view->gutterWidth() + 800, rowY(g0, m_t.cpu0, 2)));
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.addmmC));
    // At this zoom 3 px is only 2 ns: a click 10 px right of C's end misses it.
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(qRound(c.right()) + 10, rowY(g0, m_t.cpu0, 2)));
    QVERIFY(m_state->selection().isNone());
}

void TestTimelineView::headerClickCollapses()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const int expanded = g0->height();
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(40, LaneLayout::kHeaderHeight / 2));
    QVERIFY(m_state->isRankCollapsed(0));
    QCOMPARE(g0->height(), LaneLayout::kHeaderHeight + LaneLayout::kSummaryHeight + LaneLayout::kGroupGap);
    QVERIFY(g0->laneRect(m_t.cpu0).isEmpty());
    QVERIFY(laneOfKind(g0, LaneId::Summary));
    QTest::mouseClick(g0, Qt::LeftButton, {}, QPoint(40, LaneLayout::kHeaderHeight / 2));
    QVERIFY(!m_state->isRankCollapsed(0));
    QCOMPARE(g0->height(), expanded);
    m_view->collapseAll();
    QCOMPARE(m_state->collapsedRanks(), (QSet<RankId>{0, 1}));
    m_view->expandAll();
    QVERIFY(m_state->collapsedRanks().isEmpty());
}

void TestTimelineView::keyboardNavigation()
{
    m_view->setFocus();
    const TimeRange full = m_state->fullRange();
    QTest::keyClick(m_view, Qt::Key_W);
    QCOMPARE(m_state->visibleRange().duration(), 8000);
    QTest::keyClick(m_view, Qt::Key_W);
    QCOMPARE(m_state->visibleRange().duration(), 6400);
    const TimeRange zoomed = m_state->visibleRange();
    QTest::keyClick(m_view, Qt::Key_D);
    QCOMPARE(m_state->visibleRange().begin, zoomed.begin + 960);
    QTest::keyClick(m_view, Qt::Key_A);
    QCOMPARE(m_state->visibleRange(), zoomed);
    QTest::keyClick(m_view, Qt::Key_S);
    QCOMPARE(m_state->visibleRange().duration(), 8000);

    // F focuses the selection with a sixth of its length on either side.
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    QTest::keyClick(m_view, Qt::Key_F);
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 1500, kBase + 5500}));
    // Backspace returns to where F jumped from; Escape clears the selection.
    QTest::keyClick(m_view, Qt::Key_Backspace);
    QCOMPARE(m_state->visibleRange().duration(), 8000);
    QTest::keyClick(m_view, Qt::Key_Escape);
    QVERIFY(m_state->selection().isNone());
    QTest::keyClick(m_view, Qt::Key_Right, Qt::AltModifier);
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 1500, kBase + 5500}));
    m_view->resetZoom();
    QCOMPARE(m_state->visibleRange(), full);
}

void TestTimelineView::selectionStepping()
{
    m_view->setFocus();
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    QTest::keyClick(m_view, Qt::Key_Period);
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.reluD));
    QTest::keyClick(m_view, Qt::Key_Period); // last on its level: stays
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.reluD));
    QTest::keyClick(m_view, Qt::Key_Comma);
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.linearB));
    // Stepping to an event outside the window brings it into view at the same zoom.
    m_state->setVisibleRange({kBase + 2000, kBase + 3000});
    QTest::keyClick(m_view, Qt::Key_Period);
    QCOMPARE(m_state->visibleRange().duration(), 1000);
    QVERIFY(m_state->visibleRange().contains(kBase + 7500));
}

void TestTimelineView::wheelZoomsAroundTheMouse()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const QPoint at(m_view->gutterWidth() + 250, rowY(g0, m_t.cpu0, 0));
    const TimeNs before = m_view->viewScale().toTime(at.x());
    sendWheel(m_view, g0, at, 120, Qt::ControlModifier);
    QCOMPARE(m_state->visibleRange().duration(), 8000);
    QVERIFY(std::abs(m_view->viewScale().toTime(at.x()) - before) <= 10);
    sendWheel(m_view, g0, at, -120, Qt::ControlModifier);
    QCOMPARE(m_state->visibleRange().duration(), 10000);
    // A plain wheel scrolls vertically and leaves time alone; Shift pans.
    m_state->setVisibleRange({kBase + 3000, kBase + 5000});
    sendWheel(m_view, g0, at, -120, Qt::NoModifier);
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 3000, kBase + 5000}));
    sendWheel(m_view, g0, at, -120, Qt::ShiftModifier);
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 3300, kBase + 5300}));
}

void TestTimelineView::dragPans()
{
    m_state->setVisibleRange({kBase + 3000, kBase + 5000}); // 2 ns per pixel
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const int y = rowY(g0, m_t.cpu0, 1);
    QSignalSpy history(m_state, &ViewState::historyChanged);
    sendMouse(g0, QEvent::MouseButtonPress, QPoint(600, y), Qt::LeftButton);
    sendMouse(g0, QEvent::MouseMove, QPoint(650, y), Qt::LeftButton);
    sendMouse(g0, QEvent::MouseMove, QPoint(700, y), Qt::LeftButton);
    sendMouse(g0, QEvent::MouseButtonRelease, QPoint(700, y), Qt::NoButton);
    // Dragging right by 100 px shows earlier time, 200 ns.
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 2800, kBase + 4800}));
    QVERIFY(m_state->selection().isNone()); // a drag is not a click
    QVERIFY(m_state->goBack());
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 3000, kBase + 5000})); // the whole drag is one step
}

void TestTimelineView::hiddenRanksDisappear()
{
    RankGroupWidget *g1 = m_view->rankGroup(1);
    QVERIFY(g1->isVisible());
    m_state->setRankHidden(1, true);
    QVERIFY(!g1->isVisible());
    m_state->setRankHidden(1, false);
    QVERIFY(g1->isVisible());
    // A new session replaces the groups and resets the view.
    m_view->setSession(nullptr);
    QVERIFY(m_view->rankGroups().empty());
}

QTEST_MAIN(TestTimelineView)
#include "test_timelineview.moc"
