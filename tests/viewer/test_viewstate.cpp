// ViewState: clamping, zoom around an anchor, typed signals, and the zoom history rules (one step
// per jump, one step per continuous gesture).

#include "viewstate.h"

#include <QSignalSpy>
#include <QTest>

using namespace rs;

class TestViewState : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fullRangeResetsEverything();
    void visibleRangeIsClamped_data();
    void visibleRangeIsClamped();
    void zoomKeepsTheAnchorInPlace();
    void panStopsAtTheEdges();
    void jumpsAreHistorySteps();
    void aGestureIsOneHistoryStep();
    void newJumpClearsForward();
    void historyIsBounded();
    void selectionAndHoverSignalOnlyOnChange();
    void rankVisibilityAndCollapse();
    void selectedRank();
    void logAndOomRefs();
    void clockOffsets();
};

void TestViewState::fullRangeResetsEverything()
{
    ViewState s;
    s.setFullRange({0, 1000});
    s.setVisibleRange({100, 200});
    s.setSelection(EventRef::span(3, 4));
    QVERIFY(s.canGoBack());

    QSignalSpy full(&s, &ViewState::fullRangeChanged);
    QSignalSpy visible(&s, &ViewState::visibleRangeChanged);
    QSignalSpy history(&s, &ViewState::historyChanged);
    QSignalSpy selection(&s, &ViewState::selectionChanged);
    s.setFullRange({5000, 9000});
    QCOMPARE(full.count(), 1);
    QCOMPARE(full.at(0).at(0).value<TimeRange>(), (TimeRange{5000, 9000}));
    QCOMPARE(visible.count(), 1);
    QCOMPARE(s.visibleRange(), (TimeRange{5000, 9000}));
    QCOMPARE(history.count(), 1);
    QCOMPARE(history.at(0).at(0).toBool(), false);
    QVERIFY(!s.canGoBack());
    QCOMPARE(selection.count(), 1);
    QVERIFY(s.selection().isNone());
}

void TestViewState::visibleRangeIsClamped_data()
{
    QTest::addColumn<qint64>("begin");
    QTest::addColumn<qint64>("end");
    QTest::addColumn<qint64>("expectedBegin");
    QTest::addColumn<qint64>("expectedEnd");
    // Full range is [1000, 2000).
    QTest::newRow("inside") << qint64(1200) << qint64(1300) << qint64(1200) << qint64(1300);
    QTest::newRow("left of start keeps duration") << qint64(900) << qint64(1100) << qint64(1000) << qint64(1200);
    QTest::newRow("right of end keeps duration") << qint64(1950) << qint64(2150) << qint64(1800) << qint64(2000);
    QTest::newRow("wider than full") << qint64(0) << qint64(5000) << qint64(1000) << qint64(2000);
    QTest::newRow("narrower than minimum") << qint64(1500) << qint64(1501) << qint64(1500) << qint64(1500 + ViewState::kMinVisibleNs);
    QTest::newRow("inverted") << qint64(1600) << qint64(1500) << qint64(1600) << qint64(1600 + ViewState::kMinVisibleNs);
}

void TestViewState::visibleRangeIsClamped()
{
    QFETCH(qint64, begin);
    QFETCH(qint64, end);
    QFETCH(qint64, expectedBegin);
    QFETCH(qint64, expectedEnd);
    ViewState s;
    s.setFullRange({1000, 2000});
    s.setVisibleRange({begin, end});
    QCOMPARE(s.visibleRange(), (TimeRange{expectedBegin, expectedEnd}));
}

void TestViewState::zoomKeepsTheAnchorInPlace()
{
    ViewState s;
    s.setFullRange({0, 1000000});
    s.setVisibleRange({100000, 200000});
    // Anchor at 25% of the window: after zooming in 2x it must still be at 25%.
    s.zoomBy(0.5, 125000);
    QCOMPARE(s.visibleRange(), (TimeRange{112500, 162500}));
    s.zoomBy(2.0, 125000);
    QCOMPARE(s.visibleRange(), (TimeRange{100000, 200000}));
    // Zooming out past the full range stops at the full range.
    s.zoomBy(100.0, 150000);
    QCOMPARE(s.visibleRange(), (TimeRange{0, 1000000}));
    // An anchor outside the window is pulled to its edge instead of flinging the view away.
    s.setVisibleRange({100000, 200000});
    s.zoomBy(0.5, 900000);
    QCOMPARE(s.visibleRange(), (TimeRange{150000, 200000}));
    // Non-positive factors are ignored.
    const TimeRange before = s.visibleRange();
    s.zoomBy(0.0, 160000);
    s.zoomBy(-1.0, 160000);
    QCOMPARE(s.visibleRange(), before);
}

void TestViewState::panStopsAtTheEdges()
{
    ViewState s;
    s.setFullRange({0, 1000});
    s.setVisibleRange({400, 600});
    QSignalSpy visible(&s, &ViewState::visibleRangeChanged);
    s.panBy(100);
    QCOMPARE(s.visibleRange(), (TimeRange{500, 700}));
    s.panBy(10000);
    QCOMPARE(s.visibleRange(), (TimeRange{800, 1000}));
    s.panBy(1); // already at the edge: no change, no signal
    QCOMPARE(visible.count(), 2);
    s.panBy(-5000);
    QCOMPARE(s.visibleRange(), (TimeRange{0, 200}));
}

void TestViewState::jumpsAreHistorySteps()
{
    ViewState s;
    s.setFullRange({0, 1000});
    QSignalSpy history(&s, &ViewState::historyChanged);
    s.setVisibleRange({100, 200}, ViewState::Change::Jump);
    s.setVisibleRange({150, 160}, ViewState::Change::Jump);
    QCOMPARE(history.count(), 1); // only the first push changed canGoBack
    QVERIFY(s.goBack());
    QCOMPARE(s.visibleRange(), (TimeRange{100, 200}));
    QVERIFY(s.canGoForward());
    QVERIFY(s.goBack());
    QCOMPARE(s.visibleRange(), (TimeRange{0, 1000}));
    QVERIFY(!s.canGoBack());
    QVERIFY(!s.goBack());
    QVERIFY(s.goForward());
    QVERIFY(s.goForward());
    QCOMPARE(s.visibleRange(), (TimeRange{150, 160}));
    QVERIFY(!s.goForward());
    const QList<QVariant> last = history.last();
    QCOMPARE(last.at(0).toBool(), true);
    QCOMPARE(last.at(1).toBool(), false);
}

void TestViewState::aGestureIsOneHistoryStep()
{
    ViewState s;
    s.setFullRange({0, 100000});
    s.setVisibleRange({10000, 20000}, ViewState::Change::Jump);
    for (int i = 0; i < 10; ++i)
        s.panBy(100); // one wheel/drag gesture
    QCOMPARE(s.visibleRange(), (TimeRange{11000, 21000}));
    s.endGesture();
    for (int i = 0; i < 3; ++i)
        s.zoomBy(0.5, 16000); // a second gesture
    s.endGesture();
    QVERIFY(s.goBack());
    QCOMPARE(s.visibleRange(), (TimeRange{11000, 21000})); // before the second gesture
    QVERIFY(s.goBack());
    QCOMPARE(s.visibleRange(), (TimeRange{10000, 20000})); // before the first gesture
    QVERIFY(s.goBack());
    QCOMPARE(s.visibleRange(), (TimeRange{0, 100000}));
    QVERIFY(!s.canGoBack());
}

void TestViewState::newJumpClearsForward()
{
    ViewState s;
    s.setFullRange({0, 1000});
    s.setVisibleRange({100, 200});
    s.goBack();
    QVERIFY(s.canGoForward());
    QSignalSpy history(&s, &ViewState::historyChanged);
    s.setVisibleRange({300, 400});
    QVERIFY(!s.canGoForward());
    QCOMPARE(history.count(), 1);
    QCOMPARE(history.at(0).at(1).toBool(), false);
    // A gesture after going back also starts a new branch.
    s.goBack();
    QVERIFY(s.canGoForward());
    s.zoomBy(0.5, 500);
    QVERIFY(!s.canGoForward());
}

void TestViewState::historyIsBounded()
{
    ViewState s;
    s.setFullRange({0, 1000000});
    for (int i = 0; i < ViewState::kHistoryLimit + 50; ++i)
        s.setVisibleRange({i * 10, i * 10 + 100});
    int steps = 0;
    while (s.goBack())
        ++steps;
    QCOMPARE(steps, ViewState::kHistoryLimit);
}

void TestViewState::selectionAndHoverSignalOnlyOnChange()
{
    ViewState s;
    QSignalSpy selection(&s, &ViewState::selectionChanged);
    QSignalSpy hovered(&s, &ViewState::hoveredChanged);
    s.setSelection(EventRef::span(1, 2));
    s.setSelection(EventRef::span(1, 2));
    s.setSelection(EventRef::instant(1, 2));
    QCOMPARE(selection.count(), 2);
    QCOMPARE(selection.at(1).at(0).value<EventRef>(), EventRef::instant(1, 2));
    s.clearSelection();
    QVERIFY(s.selection().isNone());
    QCOMPARE(selection.count(), 3);
    s.setHovered(EventRef::span(0, 0));
    s.setHovered(EventRef::span(0, 0));
    s.setHovered({});
    QCOMPARE(hovered.count(), 2);
}

void TestViewState::selectedRank()
{
    ViewState s;
    QCOMPARE(s.selectedRank(), kNoRank);
    QSignalSpy spy(&s, &ViewState::selectedRankChanged);
    s.setSelectedRank(2);
    s.setSelectedRank(2);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).value<RankId>(), 2);
    // The job level and other negative ids are not ranks: they clear the selection.
    s.setSelectedRank(kJobLevel);
    QCOMPARE(s.selectedRank(), kNoRank);
    QCOMPARE(spy.count(), 2);
    s.setSelectedRank(1);
    // A new session forgets it.
    s.setFullRange({0, 100});
    QCOMPARE(s.selectedRank(), kNoRank);
    QCOMPARE(spy.count(), 4);
}

void TestViewState::logAndOomRefs()
{
    // Log records and OOMs are selected like events, without a track.
    const EventRef log = EventRef::logRecord(7);
    QCOMPARE(log.kind, EventRef::Kind::LogRecord);
    QCOMPARE(log.track, kNoTrack);
    QVERIFY(!log.onTrack() && !log.isNone());
    QVERIFY(log != EventRef::oom(7));
    QVERIFY(EventRef::span(0, 7).onTrack());
    ViewState s;
    QSignalSpy selection(&s, &ViewState::selectionChanged);
    s.setSelection(EventRef::oom(1));
    s.setSelection(EventRef::oom(1));
    s.setSelection(log);
    QCOMPARE(selection.count(), 2);
    QCOMPARE(s.selection(), log);
}

void TestViewState::rankVisibilityAndCollapse()
{
    ViewState s;
    QSignalSpy hidden(&s, &ViewState::rankHiddenChanged);
    QSignalSpy collapsed(&s, &ViewState::rankCollapsedChanged);
    s.setRankHidden(3, true);
    s.setRankHidden(3, true);
    QVERIFY(s.isRankHidden(3));
    QCOMPARE(hidden.count(), 1);
    QCOMPARE(hidden.at(0).at(0).toInt(), 3);
    QCOMPARE(hidden.at(0).at(1).toBool(), true);
    s.setRankHidden(3, false);
    QVERIFY(s.hiddenRanks().isEmpty());

    s.setRankCollapsed(1, true);
    s.setRanksCollapsed({0, 1, 2}, true); // 1 is already collapsed: two more signals
    QCOMPARE(collapsed.count(), 3);
    QCOMPARE(s.collapsedRanks(), (QSet<RankId>{0, 1, 2}));
    s.setRanksCollapsed({0, 1, 2}, false);
    QVERIFY(s.collapsedRanks().isEmpty());
    QCOMPARE(collapsed.count(), 6);
}

void TestViewState::clockOffsets()
{
    ViewState s;
    QSignalSpy spy(&s, &ViewState::clockOffsetsChanged);
    QCOMPARE(s.clockOffset(2), 0);
    s.setClockOffsets({{2, 1500}, {3, -20}});
    s.setClockOffsets({{2, 1500}, {3, -20}});
    QCOMPARE(spy.count(), 1);
    QCOMPARE(s.clockOffset(2), 1500);
    QCOMPARE(s.clockOffset(3), -20);
    QCOMPARE(s.clockOffset(4), 0);
}

QTEST_GUILESS_MAIN(TestViewState)
#include "test_viewstate.moc"
