// Annotations on the live timeline: drawn over the rank groups and their memory charts, created
// with Shift+drag, moved by dragging (one undo step per drag), deleted with the Delete key, and
// the Annotations panel's actions, selection and jumps. Findings are numbered badges on the header
// rows, numbered like the findings panel, selected and moved through their badge.

#include "testsession.h"

#include "annotations/annotationmodel.h"
#include "annotations/annotationspanel.h"
#include "annotations/annotationstore.h"
#include "models/findingsmodel.h"
#include "panels/findingspanel.h"
#include "timeline/annotationoverlay.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QImage>
#include <QLineEdit>
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
    void findingsAreNumberedBadgesOnHeaders();

private:
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
    img.save(QStringLiteral("/tmp/ann/timeline.png"));
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
    panel.grab().save(QStringLiteral("/tmp/ann/panel.png"));

    // Delete acts on the selection, undoably.
    QTest::mouseClick(panel.deleteButton(), Qt::LeftButton);
    QCOMPARE(panel.proxy()->rowCount(), 2);
    m_store->undoStack()->undo();
    QCOMPARE(panel.proxy()->rowCount(), 3);
}

void TestAnnotationTimeline::findingsAreNumberedBadgesOnHeaders()
{
    // Three findings of an analysis, as the analysis orders them: a high moment on rank 0 (over its
    // memory chart), a medium range on rank 0 and a low one of ranks 0 and 1 (job-wide).
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
        QCOMPARE(overlay->findingNumberOf(a), model.index(row, FindingsModel::NumberColumn).data(FindingsModel::NumberRole).toInt());
        QCOMPARE(model.index(row, FindingsModel::NumberColumn).data().toString(), QString::number(row + 1));
    }

    // Drawn as badges in the severity colour on the header row at the finding's moment (a range's
    // start), and not over rank 0's memory chart: the title is no callout there.
    RankGroupWidget *g0 = m_view->rankGroup(0);
    const Lane &header = g0->layout().lanes().front();
    const Lane *memory = g0->layout().memoryLane();
    QVERIFY(header.kind == Lane::Kind::Header && memory);
    const QImage img = m_view->grab().toImage();
    img.save(QStringLiteral("/tmp/ann/finding_markers.png"));
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
        const QColor color = FindingsModel::severityColor(f.severity);
        QVERIFY2(inkNear(*f.timeNs, headerTop, headerBottom, color), f.id.c_str());
        QVERIFY2(!inkNear(*f.timeNs, memory->top, memory->top + memory->height, color), f.id.c_str());
    }
    // The range keeps its dashed edge across the memory chart.
    bool edge = false;
    for (int y = memory->top; y < memory->top + memory->height && !edge; ++y)
        for (int dx = -1; dx <= 1 && !edge; ++dx)
            edge = near(pixel(QPoint(xOf(kBase + 2000) + dx, y)), FindingsModel::severityColor(Severity::Medium));
    QVERIFY2(edge, "the finding range's edge is gone");
    QVERIFY(m_store->find(shown.front().id)->text.contains(QStringLiteral("longer than any callout")));

    // The badge is what the mouse takes: hovering names the finding in full, a press on the
    // memory chart under the moment is not taken by the finding.
    const AnnotationGeometry geo = overlay->geometryForPainting();
    const std::optional<QRectF> row0 = geo.markerRow(0);
    QVERIFY(row0);
    const double rowY = row0->center().y();
    QCOMPARE(rowY, QRectF(g0->mapTo(m_view->viewport(), QPoint(0, header.top)), QSizeF(1, header.height)).center().y());
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
    QCOMPARE(panel.tree()->currentIndex().data(FindingsModel::NumberRole).toInt(), overlay->findingNumberOf(oom));
    QCOMPARE(m_state->highlight().ranks, std::vector<RankId>{0});
    QVERIFY(m_state->visibleRange().contains(kBase + 6000));

    // Without the analysis (a session file reopened before it ran) findings keep their callouts.
    m_view->setAnalysis(nullptr);
    QCOMPARE(overlay->findingNumberOf(oom), 0);
    QVERIFY(overlay->toolTipFor(oom.id).isEmpty());
}

QTEST_MAIN(TestAnnotationTimeline)
#include "test_annotationtimeline.moc"
