// Annotations on the live timeline: drawn over the rank groups and their memory charts, created
// with Shift+drag, moved by dragging (one undo step per drag), deleted with the Delete key, and
// the Annotations panel's actions, selection and jumps. Findings are numbered badges, numbered like
// the findings panel, in a Findings lane under their rank's header (job-wide ones in a strip under
// the ruler) that exists only while such badges are shown; selected and moved through their badge.

#include "findingstyle.h"
#include "palette.h"
#include "timeline/lanekind.h"
#include "screenshot.h"
#include "testsession.h"

#include "annotations/annotationmodel.h"
#include "annotations/annotationspanel.h"
#include "annotations/annotationstore.h"
#include "models/findingsmodel.h"
#include "panels/findingspanel.h"
#include "timeline/annotationoverlay.h"
#include "timeline/findingmarkerlayer.h"
#include "timeline/findingsstrip.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/timelineview.h"
#include "timeline/timeruler.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QImage>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>

using namespace rs;
using namespace rs::test;

namespace {

const QColor kMagenta(255, 0, 255);

bool isMagenta(const QColor &c)
{
    return c.red() > 170 && c.blue() > 170 && c.green() < 120;
}

void sendMouse(QWidget *w, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons buttons,
               Qt::KeyboardModifiers mods = Qt::NoModifier)
{
    QMouseEvent e(type, QPointF(pos), QPointF(w->mapToGlobal(pos)), button, buttons, mods);
    QApplication::sendEvent(w, &e);
}

void drag(QWidget *w, QPoint from, QPoint to, Qt::KeyboardModifiers mods = Qt::NoModifier)
{
    sendMouse(w, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton, mods);
    for (int i = 1; i <= 5; ++i)
        sendMouse(w, QEvent::MouseMove, from + (to - from) * i / 5, Qt::NoButton, Qt::LeftButton, mods);
    sendMouse(w, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton, mods);
}

} // namespace

class TestAnnotationTimeline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void drawnOverLanesAndMemoryChart();
    void shiftDragCreatesRange_data();
    void shiftDragCreatesRange();
    void draggingMovesNoteAndUndoes_data();
    void draggingMovesNoteAndUndoes();
    void deleteKeyTakesOnlySelectedAnnotation();
    void panelActionsAndSelection();
    void arrowBetweenAnyTwoPointsWithHint();
    void findingsAreNumberedBadgesInFindingsLanes();
    void findingsLaneFollowsVisibleFindings();

private:
    // An analysis with three findings, as the analysis orders them: a high moment on rank 0 (over
    // its memory chart), a medium range on rank 0 and a low one of ranks 0 and 1 (job-wide); shown
    // on the view and turned into the store's finding annotations.
    std::shared_ptr<AnalysisResult> showThreeFindings();

    // x in group (and viewport) coordinates of time `t`: 10 ns per pixel from kBase + 1000.
    int xOf(TimeNs t) const { return m_view->gutterWidth() + static_cast<int>((t - kBase - 1000) / 10); }
    // The top row of rank `r`'s band (under its header), in group coordinates.
    static int bandTop(RankGroupWidget *g) { return g->layout().lanes().front().height; }

    TestSession m_t;
    ViewState *m_state = nullptr;
    TimelineView *m_view = nullptr;
    AnnotationStore *m_store = nullptr;
};

void TestAnnotationTimeline::init()
{
    m_t = makeTestSession();
    m_state = new ViewState;
    m_store = new AnnotationStore;
    m_view = new TimelineView(m_state);
    m_view->resize(m_view->gutterWidth() + 1000, 700);
    m_view->setSession(m_t.session);
    m_view->setAnnotationStore(m_store);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
    m_state->setVisibleRange({kBase + 1000, kBase + 11000}); // 10 ns per pixel
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 1000, kBase + 11000}));
    QCOMPARE(m_view->viewScale().width, 1000.0);
    QTest::qWait(30);
}

void TestAnnotationTimeline::cleanup()
{
    delete m_view;
    delete m_store;
    delete m_state;
}

void TestAnnotationTimeline::drawnOverLanesAndMemoryChart()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    RankGroupWidget *g1 = m_view->rankGroup(1);
    Annotation note;
    note.rank = note.endRank = 0;
    note.time = note.endTime = kBase + 6000;
    note.text = QStringLiteral("relu waits for the allocator");
    note.color = kMagenta;
    m_store->add(note);
    Annotation range;
    range.kind = Annotation::Kind::Range;
    range.rank = 0;
    range.time = kBase + 2000;
    range.endTime = kBase + 4000;
    range.text = QStringLiteral("linear");
    range.color = kMagenta;
    m_store->add(range);
    Annotation arrow;
    arrow.kind = Annotation::Kind::Arrow;
    arrow.rank = 1;
    arrow.time = kBase + 9500;
    arrow.endRank = 0;
    arrow.endTime = kBase + 8000;
    arrow.text = QStringLiteral("conv ends late");
    m_store->add(arrow);
    // A finding at the same moment and rank: its callout stacks below the note's, both readable.
    Annotation finding = note;
    finding.origin = Annotation::Origin::Finding;
    finding.findingKey = "oom|0|6000";
    finding.text = QStringLiteral("CUDA out of memory: tried to allocate 2.00 GiB");
    finding.color = QColor(0xc9, 0x1d, 0x2e);
    m_store->setFindingAnnotations({finding});
    QTest::qWait(30);
    const AnnotationGeometry stacked = m_view->annotationOverlay()->geometryForPainting();
    const auto visible = m_store->visibleAnnotations();
    const double pinX = stacked.x(kBase + 6000), top = stacked.rankBand(0)->top();
    QCOMPARE(AnnotationPainter::hitTest(QPointF(pinX + 40, top + 8), visible, stacked).first, visible[0].id);
    QCOMPARE(AnnotationPainter::hitTest(QPointF(pinX + 40, top + 30), visible, stacked).first, visible.back().id);
    const QImage img = m_view->grab().toImage();
    rs::test::keepScreenshot(img, QStringLiteral("annotation-timeline.png"));
    auto pixel = [&](RankGroupWidget *g, QPoint p) { return img.pixelColor(g->mapTo(m_view, p)); };

    // The note's callout: its accent bar in the note's colour right of the pin, under the header.
    const int x = xOf(kBase + 6000);
    bool accent = false;
    for (int dx = 9; dx <= 16 && !accent; ++dx)
        accent = isMagenta(pixel(g0, QPoint(x + dx, bandTop(g0) + 9)));
    QVERIFY2(accent, "the note's callout is not drawn right of its pin");
    // The range's start edge crosses the memory chart (a child widget of the group) too.
    const Lane *memory = g0->layout().memoryLane();
    QVERIFY(memory && g0->memoryPlot());
    const int rangeX = xOf(kBase + 2000);
    bool edge = false;
    for (int dx = -1; dx <= 1 && !edge; ++dx)
        edge = isMagenta(pixel(g0, QPoint(rangeX + dx, memory->top + memory->height / 2)));
    QVERIFY2(edge, "the range is hidden under the memory chart");
    // Rank 1 has no range: no magenta at the same x.
    for (int y = bandTop(g1); y < g1->height() - LaneLayout::kGroupGap; y += 3)
        QVERIFY(!isMagenta(pixel(g1, QPoint(rangeX, y))));
    // The arrow crosses from rank 1 up into rank 0: dark ink at its midpoint on the boundary side.
    const QRect vp(m_view->viewport()->mapTo(m_view, QPoint(0, 0)), m_view->viewport()->size());
    const AnnotationGeometry geo = m_view->annotationOverlay()->geometryForPainting();
    const QPointF tail(geo.x(arrow.time), geo.rankBand(1)->center().y());
    const QPointF head(geo.x(arrow.endTime), geo.rankBand(0)->center().y());
    const QPoint mid = ((tail + head) / 2).toPoint() + vp.topLeft();
    QVERIFY2(img.pixelColor(mid).lightness() < 110, qPrintable(img.pixelColor(mid).name()));
    // Undoing every step takes the ink away again.
    m_store->undoStack()->setIndex(0);
    QTest::qWait(30);
    const QImage clean = m_view->grab().toImage();
    QVERIFY(!isMagenta(clean.pixelColor(g0->mapTo(m_view, QPoint(rangeX, memory->top + memory->height / 2)))));
}

void TestAnnotationTimeline::shiftDragCreatesRange_data()
{
    QTest::addColumn<int>("endRank"); // the group the drag ends over
    QTest::addColumn<int>("expectedRank");
    QTest::newRow("within rank 0") << 0 << 0;
    QTest::newRow("across ranks") << 1 << int(kNoRank);
}

void TestAnnotationTimeline::shiftDragCreatesRange()
{
    QFETCH(int, endRank);
    QFETCH(int, expectedRank);
    RankGroupWidget *g0 = m_view->rankGroup(0);
    RankGroupWidget *gEnd = m_view->rankGroup(endRank);
    const TimeRange before = m_state->visibleRange();
    const int y = bandTop(g0) + 30;
    const QPoint to = g0->mapFrom(m_view->viewport(), gEnd->mapTo(m_view->viewport(), QPoint(xOf(kBase + 5000), bandTop(gEnd) + 10)));
    drag(g0, QPoint(xOf(kBase + 3000), y), to, Qt::ShiftModifier);
    QCOMPARE(m_state->visibleRange(), before); // not a pan
    QVERIFY(m_state->selection().isNone());    // not a click
    QCOMPARE(int(m_store->annotations().size()), 1);
    const Annotation &a = m_store->annotations().front();
    QCOMPARE(a.kind, Annotation::Kind::Range);
    QCOMPARE(int(a.rank), expectedRank);
    QVERIFY2(std::abs(a.time - (kBase + 3000)) <= 10, qPrintable(QString::number(a.time - kBase)));
    QVERIFY2(std::abs(a.endTime - (kBase + 5000)) <= 10, qPrintable(QString::number(a.endTime - kBase)));
    QCOMPARE(m_store->selectedId(), a.id);
    m_store->undoStack()->undo();
    QVERIFY(m_store->annotations().empty());
}

void TestAnnotationTimeline::draggingMovesNoteAndUndoes_data()
{
    QTest::addColumn<int>("targetRank");
    QTest::newRow("along rank 0") << 0;
    QTest::newRow("onto rank 1") << 1;
}

void TestAnnotationTimeline::draggingMovesNoteAndUndoes()
{
    QFETCH(int, targetRank);
    RankGroupWidget *g0 = m_view->rankGroup(0);
    RankGroupWidget *target = m_view->rankGroup(targetRank);
    Annotation note;
    note.rank = note.endRank = 0;
    note.time = note.endTime = kBase + 6000;
    note.text = QStringLiteral("move me");
    const std::uint64_t id = m_store->add(note);
    const int steps = m_store->undoStack()->count();
    const TimeRange view = m_state->visibleRange();
    // Grab the note by its flag and drag it 100 px (1 µs) later.
    const QPoint from(xOf(kBase + 6000) + 3, bandTop(g0) + 3);
    const QPoint to = g0->mapFrom(m_view->viewport(), target->mapTo(m_view->viewport(), QPoint(xOf(kBase + 7000) + 3, bandTop(target) + 3)));
    drag(g0, from, to);
    QCOMPARE(m_state->visibleRange(), view); // the view did not pan under the drag
    const Annotation *moved = m_store->find(id);
    QVERIFY(moved);
    QVERIFY2(std::abs(moved->time - (kBase + 7000)) <= 10, qPrintable(QString::number(moved->time - kBase)));
    QCOMPARE(int(moved->rank), targetRank);
    QCOMPARE(m_store->undoStack()->count(), steps + 1); // five mouse moves, one step
    QCOMPARE(m_store->selectedId(), id);
    m_store->undoStack()->undo();
    QCOMPARE(m_store->find(id)->time, kBase + 6000);
    QCOMPARE(int(m_store->find(id)->rank), 0);

    // An arrow's head is dragged on its own: the tail stays.
    Annotation arrow;
    arrow.kind = Annotation::Kind::Arrow;
    arrow.rank = arrow.endRank = 0;
    arrow.time = kBase + 2000;
    arrow.endTime = kBase + 4000;
    const std::uint64_t arrowId = m_store->add(arrow);
    const AnnotationGeometry geo = m_view->annotationOverlay()->geometryForPainting();
    const QPoint headInGroup = g0->mapFrom(m_view->viewport(), QPointF(geo.x(arrow.endTime), geo.rankBand(0)->center().y()).toPoint());
    drag(g0, headInGroup, headInGroup + QPoint(50, 0));
    QCOMPARE(m_store->find(arrowId)->time, kBase + 2000);
    QVERIFY(std::abs(m_store->find(arrowId)->endTime - (kBase + 4500)) <= 10);
}

void TestAnnotationTimeline::deleteKeyTakesOnlySelectedAnnotation()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    Annotation note;
    note.rank = note.endRank = 0;
    note.time = note.endTime = kBase + 6000;
    const std::uint64_t id = m_store->add(note);
    // Backspace without a selected annotation still goes back in the zoom history.
    m_state->setVisibleRange({kBase + 2000, kBase + 4000});
    QTest::keyClick(m_view, Qt::Key_Backspace);
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 1000, kBase + 11000}));
    QVERIFY(m_store->find(id));
    // A click on the note selects it; Delete removes it; undo brings it back.
    sendMouse(g0, QEvent::MouseButtonPress, QPoint(xOf(kBase + 6000) + 2, bandTop(g0) + 3), Qt::LeftButton, Qt::LeftButton);
    sendMouse(g0, QEvent::MouseButtonRelease, QPoint(xOf(kBase + 6000) + 2, bandTop(g0) + 3), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(m_store->selectedId(), id);
    QTest::keyClick(m_view, Qt::Key_Delete);
    QVERIFY(!m_store->find(id));
    QCOMPARE(m_store->selectedId(), std::uint64_t(0));
    m_store->undoStack()->undo();
    QVERIFY(m_store->find(id));
    // A click on empty data deselects the annotation and selects as before.
    m_store->setSelectedId(id);
    QTest::mouseClick(g0, Qt::LeftButton, {}, g0->spanRect(m_t.cpu0, m_t.linearB).center().toPoint());
    QCOMPARE(m_store->selectedId(), std::uint64_t(0));
    QCOMPARE(m_state->selection(), EventRef::span(m_t.cpu0, m_t.linearB));
}

void TestAnnotationTimeline::panelActionsAndSelection()
{
    AnnotationsPanel panel(m_store, m_state);
    panel.setTimelineView(m_view);
    QAbstractItemModelTester tester(panel.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.resize(640, 260);
    panel.show();

    // With a span selected, "Mark range" marks its extent on its rank.
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    QTest::mouseClick(panel.rangeButton(), Qt::LeftButton);
    QCOMPARE(int(m_store->annotations().size()), 1);
    const Annotation marked = m_store->annotations().front();
    QCOMPARE(marked.time, kBase + 2000);
    QCOMPARE(marked.endTime, kBase + 5000);
    QCOMPARE(int(marked.rank), 0);
    QCOMPARE(m_store->selectedId(), marked.id);
    QCOMPARE(panel.view()->currentIndex().data(AnnotationModel::IdRole).value<quint64>(), marked.id);
    QVERIFY(panel.deleteButton()->isEnabled());
    // Without a selection it marks the visible range, job-wide.
    m_state->clearSelection();
    QTest::mouseClick(panel.rangeButton(), Qt::LeftButton);
    QCOMPARE(int(m_store->annotations().size()), 2);
    QCOMPARE(m_store->annotations().back().time, kBase + 1000);
    QCOMPARE(int(m_store->annotations().back().rank), int(kNoRank));

    // Finding annotations are listed, filtered and hidden by the checkbox.
    Annotation f;
    f.origin = Annotation::Origin::Finding;
    f.findingKey = "oom|0|9000";
    f.time = f.endTime = kBase + 9000;
    f.text = QStringLiteral("CUDA out of memory on rank 0");
    m_store->setFindingAnnotations({f});
    QCOMPARE(panel.proxy()->rowCount(), 3);
    panel.filterEdit()->setText(QStringLiteral("out of memory"));
    QCOMPARE(panel.proxy()->rowCount(), 1);
    panel.filterEdit()->clear();
    panel.showFindingsCheck()->setChecked(false);
    QVERIFY(!m_store->findingAnnotationsVisible());
    QCOMPARE(panel.proxy()->rowCount(), 2);
    m_store->setFindingAnnotationsVisible(true);
    QVERIFY(panel.showFindingsCheck()->isChecked());

    // Picking a row selects on the timeline; activating it centres the view on it.
    m_state->setVisibleRange({kBase + 1000, kBase + 3000});
    const int row = panel.model()->rowOf(m_store->annotations().back().id);
    const QModelIndex index = panel.proxy()->mapFromSource(panel.model()->index(row, 0));
    panel.view()->setCurrentIndex(index);
    QCOMPARE(m_store->selectedId(), m_store->annotations().back().id);
    Q_EMIT panel.view()->activated(index);
    QCOMPARE(m_state->visibleRange(), (TimeRange{kBase + 8000, kBase + 10000}));
    rs::test::keepScreenshot(panel.grab().toImage(), QStringLiteral("annotation-panel.png"));

    // Delete acts on the selection, undoably.
    QTest::mouseClick(panel.deleteButton(), Qt::LeftButton);
    QCOMPARE(panel.proxy()->rowCount(), 2);
    m_store->undoStack()->undo();
    QCOMPARE(panel.proxy()->rowCount(), 3);
}

std::shared_ptr<AnalysisResult> TestAnnotationTimeline::showThreeFindings()
{
    auto result = std::make_shared<AnalysisResult>();
    auto finding = [](std::string id, Severity s, std::vector<RankId> ranks, TimeNs t, std::optional<TimeNs> end) {
        Finding f;
        f.id = std::move(id);
        f.severity = s;
        f.ranks = std::move(ranks);
        f.timeNs = t;
        f.endNs = end;
        f.title = "the full title of " + f.id + ", longer than any callout would show on the lanes";
        return f;
    };
    result->findings = {finding("oom", Severity::High, {0}, kBase + 6000, std::nullopt),
                        finding("spike", Severity::Medium, {0}, kBase + 2000, kBase + 4000),
                        finding("desync", Severity::Low, {0, 1}, kBase + 8500, std::nullopt)};
    m_view->setAnalysis(result);
    m_store->setFindingAnnotations(annotationsFromFindings(*result));
    QTest::qWait(30);
    return result;
}

void TestAnnotationTimeline::arrowBetweenAnyTwoPointsWithHint()
{
    AnnotationsPanel panel(m_store, m_state);
    panel.setTimelineView(m_view);
    AnnotationOverlay *overlay = m_view->annotationOverlay();
    QSignalSpy hints(overlay, &AnnotationOverlay::placementHintChanged);
    RankGroupWidget *g0 = m_view->rankGroup(0);
    RankGroupWidget *g1 = m_view->rankGroup(1);
    QTest::mouseClick(panel.arrowButton(), Qt::LeftButton);
    QVERIFY(overlay->isPlacingArrow());
    QVERIFY(overlay->placementHint().contains(QStringLiteral("starts")));
    QCOMPARE(hints.size(), 1);

    // The tail on rank 1 at 3 µs; moving over rank 0 draws the rubber arrow and the hint beside the pointer.
    const QPoint tail(xOf(kBase + 3000), bandTop(g1) + 10);
    sendMouse(g1, QEvent::MouseButtonPress, tail, Qt::LeftButton, Qt::LeftButton);
    sendMouse(g1, QEvent::MouseButtonRelease, tail, Qt::LeftButton, Qt::NoButton);
    QVERIFY(m_store->annotations().empty());
    QVERIFY(overlay->isPlacingArrow());
    QVERIFY2(overlay->placementHint().contains(QStringLiteral("rank 1")), qPrintable(overlay->placementHint()));
    const QPoint head(xOf(kBase + 7000), bandTop(g0) + 12);
    sendMouse(g0, QEvent::MouseMove, head, Qt::NoButton, Qt::NoButton);
    QImage shot(m_view->size(), QImage::Format_ARGB32);
    m_view->render(&shot);
    QVERIFY(rs::test::keepScreenshot(shot, QStringLiteral("annotation-arrow-placing.png")));
    // The hint's box is painted in the chrome colour just below and right of the pointer.
    const QPoint hintAt = g0->mapTo(m_view, head + QPoint(19, 22)); // inside its padding, left of the text
    QCOMPARE(shot.pixelColor(hintAt).rgb() & 0xffffff, Palette::screen().color(Palette::Role::Chrome).rgb() & 0xffffff);

    sendMouse(g0, QEvent::MouseButtonPress, head, Qt::LeftButton, Qt::LeftButton);
    sendMouse(g0, QEvent::MouseButtonRelease, head, Qt::LeftButton, Qt::NoButton);
    QVERIFY(!overlay->isPlacingArrow());
    QVERIFY(overlay->placementHint().isEmpty());
    QCOMPARE(hints.size(), 3);
    QVERIFY(hints.back().front().toString().isEmpty());
    QCOMPARE(int(m_store->annotations().size()), 1);
    const Annotation a = m_store->annotations().front();
    QCOMPARE(a.kind, Annotation::Kind::Arrow);
    QCOMPARE(int(a.rank), 1);
    QCOMPARE(int(a.endRank), 0);
    QVERIFY2(std::abs(a.time - (kBase + 3000)) <= 10, qPrintable(QString::number(a.time - kBase)));
    QVERIFY2(std::abs(a.endTime - (kBase + 7000)) <= 10, qPrintable(QString::number(a.endTime - kBase)));

    // Esc cancels while the tail is still to be placed; nothing is added.
    QTest::mouseClick(panel.arrowButton(), Qt::LeftButton);
    QVERIFY(overlay->isPlacingArrow());
    QTest::keyClick(m_view, Qt::Key_Escape);
    QVERIFY(!overlay->isPlacingArrow());
    QCOMPARE(int(m_store->annotations().size()), 1);
}

void TestAnnotationTimeline::findingsAreNumberedBadgesInFindingsLanes()
{
    const std::shared_ptr<AnalysisResult> result = showThreeFindings();
    AnnotationOverlay *overlay = m_view->annotationOverlay();
    const std::vector<Annotation> shown = m_store->visibleAnnotations();
    QCOMPARE(shown.size(), std::size_t(3));

    // Each badge carries the number of its finding's row in the findings panel.
    FindingsModel model;
    model.setResult(result);
    for (const Annotation &a : shown) {
        int row = -1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (findingKey(*model.finding(r)) == a.findingKey)
                row = r;
        QVERIFY(row >= 0);
        QCOMPARE(m_view->findingMarkers().numberOf(a), model.index(row, FindingsModel::NumberColumn).data(FindingsModel::NumberRole).toInt());
        QCOMPARE(model.index(row, FindingsModel::NumberColumn).data().toString(), QString::number(row + 1));
    }

    // Drawn as badges in the severity colour at the finding's moment (a range's start): rank 0's in
    // the Findings lane right under its header, the job-wide one in the strip under the ruler; none
    // on the header row (its summary text and divergence label stay readable) and none over rank
    // 0's memory chart: the title is no callout there.
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const Lane &header = g0->layout().lanes().front();
    const Lane *memory = g0->layout().memoryLane();
    const Lane *findings = g0->layout().findingsLane();
    QVERIFY(header.is(LaneId::Header) && memory && findings);
    QCOMPARE(findings->top, header.top + header.height);
    QCOMPARE(findings->title, QStringLiteral("Findings"));
    // Rank 1 has only the job-wide finding: no lane of its own.
    QVERIFY(!m_view->rankGroup(1)->layout().findingsLane());
    FindingsStrip *strip = m_view->jobFindingsStrip();
    QVERIFY(strip->isVisible());
    QCOMPARE(strip->geometry().bottom() + 1, m_view->viewport()->geometry().top());
    QCOMPARE(m_view->ruler()->geometry().bottom() + 1, strip->geometry().top());
    const QImage img = m_view->grab().toImage();
    rs::test::keepScreenshot(img, QStringLiteral("finding-markers.png"));
    auto pixel = [&](QPoint p) { return img.pixelColor(g0->mapTo(m_view, p)); };
    auto near = [](const QColor &c, const QColor &want) {
        return std::abs(c.red() - want.red()) + std::abs(c.green() - want.green()) + std::abs(c.blue() - want.blue()) < 45;
    };
    // Solid severity colour within a badge's half-width of the moment, leaving out the 2 px around
    // it where a range's dashed edge (which stays, like its faint wash) runs down the band.
    auto inkNear = [&](TimeNs t, int top, int bottom, const QColor &want) {
        for (int y = top; y < bottom; ++y)
            for (int dx = -9; dx <= 9; ++dx)
                if (std::abs(dx) > 2 && near(pixel(QPoint(xOf(t) + dx, y)), want))
                    return true;
        return false;
    };
    const int headerTop = header.top, headerBottom = header.top + header.height;
    for (const Finding &f : result->findings) {
        const QColor color = FindingStyle::severityColor(f.severity);
        const bool jobWide = f.ranks.size() > 1;
        QVERIFY2(inkNear(*f.timeNs, findings->top, findings->top + findings->height, color) != jobWide, f.id.c_str());
        QVERIFY2(!inkNear(*f.timeNs, headerTop, headerBottom, color), f.id.c_str());
        QVERIFY2(!inkNear(*f.timeNs, memory->top, memory->top + memory->height, color), f.id.c_str());
    }
    // The job-wide badge is in the strip: severity-coloured pixels around its moment there.
    bool jobBadge = false;
    const QColor low = FindingStyle::severityColor(Severity::Low);
    for (int y = 0; y < strip->height() && !jobBadge; ++y)
        for (int dx = -9; dx <= 9 && !jobBadge; ++dx)
            jobBadge = std::abs(dx) > 2 && near(img.pixelColor(strip->mapTo(m_view, QPoint(xOf(kBase + 8500) + dx, y))), low);
    QVERIFY2(jobBadge, "no job-wide badge in the strip under the ruler");
    // The range keeps its dashed edge across the memory chart.
    bool edge = false;
    for (int y = memory->top; y < memory->top + memory->height && !edge; ++y)
        for (int dx = -1; dx <= 1 && !edge; ++dx)
            edge = near(pixel(QPoint(xOf(kBase + 2000) + dx, y)), FindingStyle::severityColor(Severity::Medium));
    QVERIFY2(edge, "the finding range's edge is gone");
    QVERIFY(m_store->find(shown.front().id)->text.contains(QStringLiteral("longer than any callout")));

    // The badge is what the mouse takes: hovering names the finding in full, a press on the
    // memory chart under the moment is not taken by the finding.
    const AnnotationGeometry geo = overlay->geometryForPainting();
    const std::optional<QRectF> row0 = geo.markerRow(0);
    QVERIFY(row0);
    const double rowY = row0->center().y();
    // The lane less its bottom separator, as the figure's strip.
    QCOMPARE(rowY, QRectF(g0->mapTo(m_view->viewport(), QPoint(0, findings->top)), QSizeF(1, findings->height - 1)).center().y());
    const std::optional<QRectF> jobRow = geo.markerRow(kNoRank);
    QVERIFY(jobRow && jobRow->bottom() <= 0); // above the viewport: the strip
    const Annotation &oom = *std::find_if(shown.begin(), shown.end(), [](const Annotation &a) { return a.findingKey.starts_with("oom"); });
    const Annotation &spike = *std::find_if(shown.begin(), shown.end(), [](const Annotation &a) { return a.findingKey.starts_with("spike"); });
    const QPoint oomBadge = g0->mapFrom(m_view->viewport(), QPointF(geo.x(oom.time), rowY).toPoint());
    QCOMPARE(AnnotationPainter::hitTest(QPointF(geo.x(oom.time), rowY), shown, geo, overlay->style()).first, oom.id);
    const QPoint onChart(xOf(oom.time), memory->top + memory->height / 2);
    QCOMPARE(AnnotationPainter::hitTest(g0->mapTo(m_view->viewport(), onChart), shown, geo, overlay->style()).first, std::uint64_t(0));
    sendMouse(g0, QEvent::MouseMove, oomBadge, Qt::NoButton, Qt::NoButton);
    QCOMPARE(overlay->hoveredId(), oom.id);
    const QString tip = overlay->toolTipFor(oom.id);
    QVERIFY2(tip.contains(QStringLiteral("High")) && tip.contains(QStringLiteral("longer than any callout would show")), qPrintable(tip));
    QVERIFY(overlay->toolTipFor(0).isEmpty());

    // Dragging the range's badge moves the whole range (one undo step); the view does not pan.
    const TimeRange view = m_state->visibleRange();
    const QPoint spikeBadge = g0->mapFrom(m_view->viewport(), QPointF(geo.x(spike.time), rowY).toPoint());
    drag(g0, spikeBadge, spikeBadge + QPoint(100, 0));
    QCOMPARE(m_state->visibleRange(), view);
    QVERIFY2(std::abs(m_store->find(spike.id)->time - (kBase + 3000)) <= 10, qPrintable(QString::number(m_store->find(spike.id)->time - kBase)));
    QVERIFY(std::abs(m_store->find(spike.id)->endTime - (kBase + 5000)) <= 10);
    QCOMPARE(m_state->selectedFinding(), -1); // a drag is not a click
    m_store->undoStack()->undo();
    QCOMPARE(m_store->find(spike.id)->time, kBase + 2000);

    // A click on a badge selects the annotation and, like a click in the findings panel, the
    // finding: the panel's row, the highlight of its ranks and the window around it.
    FindingsPanel panel(m_state);
    panel.setResult(result);
    sendMouse(g0, QEvent::MouseButtonPress, oomBadge, Qt::LeftButton, Qt::LeftButton);
    sendMouse(g0, QEvent::MouseButtonRelease, oomBadge, Qt::LeftButton, Qt::NoButton);
    QCOMPARE(m_store->selectedId(), oom.id);
    QCOMPARE(m_state->selectedFinding(), 0);
    QCOMPARE(panel.currentFinding(), 0);
    QCOMPARE(panel.tree()->currentIndex().data(FindingsModel::NumberRole).toInt(), m_view->findingMarkers().numberOf(oom));
    QCOMPARE(m_state->highlight().ranks, std::vector<RankId>{0});
    QVERIFY(m_state->visibleRange().contains(kBase + 6000));

    // Without the analysis (a session file reopened before it ran) findings keep their callouts.
    m_view->setAnalysis(nullptr);
    QCOMPARE(m_view->findingMarkers().numberOf(oom), 0);
    QVERIFY(overlay->toolTipFor(oom.id).isEmpty());
}

void TestAnnotationTimeline::findingsLaneFollowsVisibleFindings()
{
    RankGroupWidget *g0 = m_view->rankGroup(0);
    RankGroupWidget *g1 = m_view->rankGroup(1);
    FindingsStrip *strip = m_view->jobFindingsStrip();
    AnnotationOverlay *overlay = m_view->annotationOverlay();
    const int h0 = g0->height(), h1 = g1->height();
    auto rulerMeetsViewport = [&] { return m_view->ruler()->geometry().bottom() + 1 == m_view->viewport()->geometry().top(); };

    // A user annotation is no finding: it asks for no row.
    Annotation note;
    note.kind = Annotation::Kind::Note;
    note.rank = note.endRank = 1;
    note.time = note.endTime = kBase + 3000;
    note.text = QStringLiteral("a note");
    m_store->add(note);
    QVERIFY(!g0->layout().findingsLane() && !g1->layout().findingsLane());
    QVERIFY(strip->isHidden());
    QVERIFY(rulerMeetsViewport());

    // The analysis arrives: rank 0 gets its lane (and is taller by it), the job-wide finding the strip.
    const std::shared_ptr<AnalysisResult> result = showThreeFindings();
    QVERIFY(g0->layout().findingsLane() && !g1->layout().findingsLane());
    QCOMPARE(g0->height(), h0 + LaneLayout::kFindingsHeight);
    QCOMPARE(g1->height(), h1);
    QVERIFY(strip->isVisible());
    QVERIFY(!rulerMeetsViewport());
    QCOMPARE(strip->geometry().bottom() + 1, m_view->viewport()->geometry().top());

    // The job-wide badge in the strip takes the mouse like any other: hover names the finding, a
    // click selects it, a drag moves it.
    const std::vector<Annotation> shown = m_store->visibleAnnotations();
    const Annotation &desync = *std::find_if(shown.begin(), shown.end(), [](const Annotation &a) { return a.findingKey.starts_with("desync"); });
    QCOMPARE(desync.rank, kNoRank);
    const QPoint inStrip(xOf(desync.time), strip->height() / 2);
    QCOMPARE(overlay->geometryForPainting().markerRow(kNoRank)->center().y(),
             QRectF(m_view->viewport()->mapFrom(m_view, strip->mapTo(m_view, QPoint(0, 0))), QSizeF(1, strip->height() - 1)).center().y());
    sendMouse(strip, QEvent::MouseMove, inStrip, Qt::NoButton, Qt::NoButton);
    QCOMPARE(overlay->hoveredId(), desync.id);
    sendMouse(strip, QEvent::MouseButtonPress, inStrip, Qt::LeftButton, Qt::LeftButton);
    sendMouse(strip, QEvent::MouseButtonRelease, inStrip, Qt::LeftButton, Qt::NoButton);
    QCOMPARE(m_store->selectedId(), desync.id);
    QCOMPARE(m_state->selectedFinding(), 2);
    m_state->setVisibleRange({kBase + 1000, kBase + 11000}); // selecting the finding moved the window
    const QPoint from(xOf(desync.time), strip->height() / 2);
    drag(strip, from, from - QPoint(100, 0));
    QVERIFY2(std::abs(m_store->find(desync.id)->time - (kBase + 7500)) <= 10, qPrintable(QString::number(m_store->find(desync.id)->time - kBase)));
    QCOMPARE(m_store->find(desync.id)->rank, kNoRank);
    m_store->undoStack()->undo();

    // Edit ▸ Show Finding Annotations off: the lane and the strip go, the group shrinks back; on: back.
    m_store->setFindingAnnotationsVisible(false);
    QVERIFY(!g0->layout().findingsLane());
    QCOMPARE(g0->height(), h0);
    QVERIFY(strip->isHidden());
    QVERIFY(rulerMeetsViewport());
    m_store->setFindingAnnotationsVisible(true);
    QVERIFY(g0->layout().findingsLane());
    QVERIFY(strip->isVisible());

    // Dragging rank 0's moment onto rank 1 gives rank 1 a lane once the drag ends (not during it,
    // so the rows do not move under the mouse).
    const Annotation &oom = *std::find_if(shown.begin(), shown.end(), [](const Annotation &a) { return a.findingKey.starts_with("oom"); });
    QTest::qWait(30);
    const AnnotationGeometry geo = overlay->geometryForPainting();
    const QPoint oomBadge = g0->mapFrom(m_view->viewport(), QPointF(geo.x(oom.time), geo.markerRow(0)->center().y()).toPoint());
    const QPoint onRank1 = g0->mapFrom(m_view->viewport(), g1->mapTo(m_view->viewport(), QPoint(xOf(oom.time), bandTop(g1) + 20)));
    drag(g0, oomBadge, onRank1);
    QCOMPARE(m_store->find(oom.id)->rank, RankId(1));
    QVERIFY(g1->layout().findingsLane());
    QVERIFY(g0->layout().findingsLane()); // the range is still on rank 0
    m_store->undoStack()->undo();
    QVERIFY(!g1->layout().findingsLane());

    // A collapsed group stays two rows: its badges sit on its summary strip.
    m_state->setRankCollapsed(0, true);
    QVERIFY(!g0->layout().findingsLane());
    QCOMPARE(g0->layout().lanes().size(), std::size_t(2));
    const Lane &summary = g0->layout().lanes()[1];
    QVERIFY(summary.is(LaneId::Summary));
    QCOMPARE(overlay->geometryForPainting().markerRow(0)->top(), double(g0->mapTo(m_view->viewport(), QPoint(0, summary.top)).y()));
    m_state->setRankCollapsed(0, false);
    QVERIFY(g0->layout().findingsLane());

    // Without the analysis the findings are callouts again: no rows for badges.
    m_view->setAnalysis(nullptr);
    QVERIFY(!g0->layout().findingsLane());
    QVERIFY(strip->isHidden());
    QCOMPARE(g0->height(), h0);
    m_view->setAnalysis(result);
    QVERIFY(g0->layout().findingsLane());
}

QTEST_MAIN(TestAnnotationTimeline)
#include "test_annotationtimeline.moc"
