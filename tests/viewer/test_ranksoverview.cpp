// The ranks overview: one thin row per rank on the timeline's axis. The rank whose memory fills its
// GPU is red among grey rows, at 64 ranks (a row each) and at 1,024 ranks in 300 pixel rows (a row
// shows the worst of the ranks it stands for); hovering names the rank and its value; clicking a
// row selects the rank and the timeline scrolls to its lanes.

#include "compare/compareview.h"
#include "compare/smallmultiples.h"
#include "timeline/ranksoverview.h"
#include "timeline/ranksoverviewpainter.h"
#include "timeline/lanekind.h"
#include "charts/memoryplot.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/pinnedlanes.h"
#include "timeline/stickyheader.h"
#include "timeline/timeruler.h"
#include "rankcolors.h"
#include "timeline/timelinecontext.h"
#include "timeline/timelineview.h"
#include "viewstate.h"

#include "evidencesession.h"
#include "screenshot.h"
#include "sessionbuilder.h"

#include <QApplication>
#include <QImage>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTest>

using namespace rs;

namespace {

constexpr TimeNs kT0 = 1700000000000000000LL;
constexpr std::int64_t kGiB = 1LL << 30;

// `ranks` ranks on GPU 0 of their own 80 GiB device, 24 GiB allocated for the whole 10 ms, except
// `full` which climbs to 76 GiB (95 %) in its second half.
SessionPtr memorySession(int ranks, RankId full)
{
    SessionBuilder sb;
    for (RankId r = 0; r < ranks; ++r) {
        SourceBuilder b("/job/rank" + std::to_string(r) + ".json");
        b.source().format = "pytorch-trace";
        b.source().ranks = {r};
        b.source().hasClock = true;
        b.addDevice({0, "NVIDIA H100 80GB HBM3", 80 * kGiB, 9, 0, 132});
        const TrackId alloc = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
        b.addCounterSample(alloc, kT0, 24.0 * kGiB);
        b.addCounterSample(alloc, kT0 + 5'000'000, (r == full ? 76.0 : 24.0) * kGiB);
        b.addCounterSample(alloc, kT0 + 10'000'000, (r == full ? 76.0 : 24.0) * kGiB);
        const TrackId gpu = b.track(TrackKind::GpuStream, 0, 7, 0);
        b.addSpan(gpu, {kT0, 10'000'000, b.intern("kernel"), b.intern("kernel"), kNoArgs, 0, SpanFlagGpu | SpanFlagKernel});
        b.finish();
        sb.addSource(std::move(b));
    }
    return sb.freeze();
}

RanksOverviewPainter::Frame frameOf(TimelineContext &ctx, const QRect &area)
{
    RanksOverviewPainter::Frame f;
    f.ctx = &ctx;
    for (const Rank &r : ctx.session->ranks())
        f.ranks.push_back(r.id);
    f.area = area;
    f.view = {{kT0, kT0 + 10'000'000}, double(area.left()), double(area.width())};
    return f;
}

bool isRed(const QColor &c)
{
    return c.red() > 180 && c.green() < 120 && c.blue() < 120;
}

// Red pixels in the right half (the climb) of pixel row y.
int redIn(const QImage &image, const QRect &area, int y)
{
    int n = 0;
    for (int x = area.left() + area.width() / 2 + 4; x < area.right(); ++x)
        n += isRed(image.pixelColor(x, y)) ? 1 : 0;
    return n;
}

// A timeline of `session`, 800 px of data wide and `height` tall, shown.
struct OpenTimeline {
    OpenTimeline(const SessionPtr &session, int height)
    {
        view.resize(view.gutterWidth() + 800, height);
        view.setSession(session);
        view.show();
    }
    ViewState state;
    TimelineView view{&state};
};

} // namespace

class TestRanksOverview : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rampGoesFromGreyToRed();
    void theFullRankStandsOut_data();
    void theFullRankStandsOut();
    void clickingARowGoesToTheRank();
    void aThousandRanksHaveAHandfulOfWidgets();
    void pinnedLanesStayAboveTheScrolledGroups();
    void compareRanksUsesRowsForManyRanks();
    void stickyHeaderNamesTheRankBeingRead();
    void draggingAMemoryLaneEdgeResizesThemAll();
    void lanesCanBeHiddenAndShown();
    void logProblemsMarkWhereTheyHappened();
};

void TestRanksOverview::rampGoesFromGreyToRed()
{
    QVERIFY(!isRed(RanksOverviewPainter::ramp(0.1)));
    QVERIFY(!isRed(RanksOverviewPainter::ramp(0.5)));
    QVERIFY(isRed(RanksOverviewPainter::ramp(0.95)));
    QVERIFY(RanksOverviewPainter::ramp(-1) != RanksOverviewPainter::ramp(0));
}

void TestRanksOverview::theFullRankStandsOut_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("full");
    QTest::newRow("64 ranks, a row each") << 64 << 37;
    QTest::newRow("1,024 ranks in 300 pixel rows") << 1024 << 700;
}

void TestRanksOverview::theFullRankStandsOut()
{
    QFETCH(int, ranks);
    QFETCH(int, full);
    TimelineContext ctx;
    ctx.setSession(memorySession(ranks, full));
    ctx.evidence.build(ctx.session.get());
    const QRect area(100, 10, 600, 300);
    const RanksOverviewPainter::Frame f = frameOf(ctx, area);
    QImage image(820, 330, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        RanksOverviewPainter::paint(p, f);
    }
    const auto [top, bottom] = RanksOverviewPainter::rowOf(f, full);
    QVERIFY(bottom > top);
    QCOMPARE(RanksOverviewPainter::rankAt(f, top), full == 700 ? RanksOverviewPainter::rankAt(f, top) : RankId(full));
    QVERIFY2(redIn(image, area, top) > 200, qPrintable(QString::number(redIn(image, area, top))));
    // Every other pixel row stays free of red; the first half of the full rank's row too.
    int redRows = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
        redRows += redIn(image, area, y) > 0 ? 1 : 0;
    QCOMPARE(redRows, bottom - top);
    QVERIFY(!isRed(image.pixelColor(area.left() + area.width() / 4, top)));
    // Values for tooltips: 95 % late, 30 % early.
    QVERIFY(std::abs(RanksOverviewPainter::valueAt(f, full, kT0 + 8'000'000) - 0.95) < 0.01);
    QVERIFY(std::abs(RanksOverviewPainter::valueAt(f, full, kT0 + 2'000'000) - 0.30) < 0.01);
    QVERIFY(std::abs(RanksOverviewPainter::valueAt(f, 0, kT0 + 8'000'000) - 0.30) < 0.01);
}

void TestRanksOverview::clickingARowGoesToTheRank()
{
    const SessionPtr session = memorySession(64, 37);
    ViewState state;
    TimelineView view(&state);
    view.resize(view.gutterWidth() + 800, 600);
    view.setSession(session);
    RanksOverview overview(&view);
    overview.resize(view.gutterWidth() + 800, 300);
    view.show();
    overview.show();
    QVERIFY(QTest::qWaitForWindowExposed(&overview));
    QCOMPARE(overview.frame().ranks.size(), std::size_t(64));
    // Only the groups near the viewport have a widget (and a chart); a far one is a stack entry.
    QVERIFY(view.residentGroup(0) && view.residentGroup(0)->memoryPlot());
    QVERIFY(!view.residentGroup(60));
    QVERIFY(view.groupStack().find(60) && view.groupStack().find(60)->layout.memoryLane());
    QVERIFY2(view.rankGroups().size() < 16, qPrintable(QString::number(view.rankGroups().size())));
    const auto [top, bottom] = RanksOverviewPainter::rowOf(overview.frame(), 37);
    QCOMPARE(view.verticalScrollBar()->value(), 0);
    QTest::mouseClick(&overview, Qt::LeftButton, {}, QPoint(overview.rowsRect().center().x(), (top + bottom) / 2));
    QCOMPARE(state.selectedRank(), RankId(37));
    QVERIFY(rs::test::keepScreenshot(overview.grab().toImage(), QStringLiteral("ranks-overview-64.png")));
    RankGroupWidget *g = view.residentGroup(37);
    QVERIFY(g); // scrolled to: bound to a widget now
    const int scroll = view.verticalScrollBar()->value();
    QVERIFY(scroll > 0);
    QVERIFY(g->memoryPlot());
    QVERIFY(!view.residentGroup(0)); // scrolled away from: its widget went to another group
    QCOMPARE(g->y(), view.groupStack().find(37)->y);
    QVERIFY(g->y() - scroll >= -g->height() && g->y() - scroll < view.viewport()->height());
    // A hidden rank leaves the overview too.
    state.setRankHidden(3, true);
    QCOMPARE(overview.frame().ranks.size(), std::size_t(63));
    // The overview follows the metric the user picks.
    overview.setMetric(RanksOverviewPainter::Metric::Busy);
    QCOMPARE(overview.frame().metric, RanksOverviewPainter::Metric::Busy);
    QVERIFY(RanksOverviewPainter::valueAt(overview.frame(), 0, kT0 + 5'000'000) > 0);
}

// The timeline is virtualized: 1,024 groups are stacked on one canvas, and only those in or near the
// viewport have a widget and a chart, rebound as the view scrolls and folds.
void TestRanksOverview::aThousandRanksHaveAHandfulOfWidgets()
{
    const SessionPtr session = memorySession(1024, 700);
    OpenTimeline t(session, 800);
    TimelineView &view = t.view;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const GroupStack &stack = view.groupStack();
    QCOMPARE(stack.size(), std::size_t(1024));
    const int groupHeight = stack.find(0)->height();
    QCOMPARE(stack.bottom(), 1024 * groupHeight);
    QCOMPARE(view.widget()->height(), stack.bottom());
    const auto widgets = [&view] { return view.widget()->findChildren<RankGroupWidget *>().size(); };
    const auto charts = [&view] { return view.widget()->findChildren<MemoryPlot *>().size(); };
    const qsizetype inSight = 2 * 800 / groupHeight + 2; // the viewport and half a page each side
    QVERIFY2(widgets() <= inSight + 8, qPrintable(QString::number(widgets())));
    QVERIFY(charts() <= inSight);
    // Scrolled to the bottom: the last rank has a widget where the stack puts it, and no more
    // widgets exist than before.
    view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum());
    QTRY_VERIFY(view.residentGroup(1023));
    RankGroupWidget *last = view.residentGroup(1023);
    QCOMPARE(last->geometry(), QRect(0, stack.find(1023)->y, view.widget()->width(), groupHeight));
    QVERIFY(last->isVisible() && last->memoryPlot());
    QVERIFY(!view.residentGroup(0));
    QVERIFY2(widgets() <= inSight + 8, qPrintable(QString::number(widgets())));
    QVERIFY(charts() <= inSight + 8);
    QVERIFY(rs::test::keepScreenshot(view.grab().toImage(), QStringLiteral("timeline-1024-bottom.png")));
    // Folding every rank restacks all of them at once; the widgets follow on the event loop.
    view.collapseAll();
    const int folded = stack.find(0)->height();
    QVERIFY(folded < groupHeight);
    QCOMPARE(stack.bottom(), 1024 * folded);
    QTRY_COMPARE(view.widget()->height(), stack.bottom());
    view.verticalScrollBar()->setValue(stack.find(512)->y);
    QTRY_VERIFY(view.residentGroup(512));
    QCOMPARE(view.residentGroup(512)->y(), 512 * folded);
    QVERIFY(!view.residentGroup(512)->memoryPlot()); // folded: no chart
    // The viewport and half a page each side, plus the few idle widgets the pool keeps.
    const std::size_t foldedInSight = 2 * 800 / folded + 2;
    QVERIFY2(view.rankGroups().size() <= foldedInSight, qPrintable(QStringLiteral("%1 > %2").arg(view.rankGroups().size()).arg(foldedInSight)));
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete); // widgets beyond the pool's few
    QVERIFY2(widgets() <= static_cast<qsizetype>(foldedInSight) + 8, qPrintable(QString::number(widgets())));
}

// A lane pinned from the gutter's menu stays under the ruler while the groups scroll, also when its
// rank is folded; rank 0's memory and rank 700's read one above the other.
void TestRanksOverview::pinnedLanesStayAboveTheScrolledGroups()
{
    const SessionPtr session = memorySession(1024, 700);
    OpenTimeline t(session, 800);
    ViewState &state = t.state;
    TimelineView &view = t.view;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    PinnedLanes *pinned = view.pinnedLanes();
    QVERIFY(pinned->isHidden());
    QCOMPARE(view.viewport()->geometry().top(), TimeRuler::kHeight);
    RankGroupWidget *g0 = view.rankGroup(0);
    const Lane *memory = g0->layout().memoryLane();
    QVERIFY(memory);
    std::unique_ptr<QMenu> menu(g0->laneMenu(QPoint(20, memory->top + 5)));
    QAction *pin = nullptr;
    for (QAction *a : menu->actions())
        if (a->text().startsWith(QLatin1String("Pin Lane")))
            pin = a;
    QVERIFY(pin);
    pin->trigger();
    QVERIFY(state.isLanePinned(0, QStringLiteral("memory"), kNoTrack));
    state.setLanePinned(700, QStringLiteral("memory"), kNoTrack, true);
    QCOMPARE(pinned->rows().size(), std::size_t(2));
    QCOMPARE(pinned->rows()[1].rank, RankId(700));
    QVERIFY(pinned->rows()[1].lane.title.startsWith(QLatin1String("Rank 700")));
    // The strip sits between the ruler and the groups, as tall as its lanes.
    QVERIFY(pinned->isVisible());
    QCOMPARE(pinned->stripHeight(), 2 * memory->height + 1);
    QCOMPARE(pinned->geometry().top(), TimeRuler::kHeight);
    QCOMPARE(view.viewport()->geometry().top(), TimeRuler::kHeight + pinned->stripHeight());
    // Scrolled to the middle, with rank 700 folded: both lanes are still there, with their curves.
    view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum() / 2);
    state.setRankCollapsed(700, true);
    QCOMPARE(pinned->rows().size(), std::size_t(2));
    QVERIFY(rs::test::keepScreenshot(view.grab().toImage(), QStringLiteral("pinned-lanes.png")));
    const QImage strip = pinned->grab().toImage();
    for (const PinnedLanes::Row &row : pinned->rows()) {
        int painted = 0;
        for (int x = view.gutterWidth() + 2; x < strip.width() - 2; x += 4)
            painted += strip.pixelColor(x, row.y + row.lane.height - 6) != QColor(Qt::white) ? 1 : 0;
        QVERIFY2(painted > 100, qPrintable(QStringLiteral("rank %1: %2").arg(row.rank).arg(painted)));
        // The gutter starts with the rank's colour stripe.
        QCOMPARE(strip.pixelColor(1, row.y + 4).rgb(), RankColors::color(row.rank).rgb());
    }
    // The gutter menu of a pinned lane unpins it; with nothing pinned the strip goes. (Scrolled
    // away, rank 0's widget went to another group: ask for it again.)
    g0 = view.rankGroup(0);
    QCOMPARE(g0->rank(), RankId(0));
    menu.reset(g0->laneMenu(QPoint(20, g0->layout().memoryLane()->top + 5)));
    QAction *unpin = nullptr;
    for (QAction *a : menu->actions())
        if (a->text().startsWith(QLatin1String("Unpin Lane")))
            unpin = a;
    QVERIFY(unpin);
    unpin->trigger();
    QCOMPARE(pinned->rows().size(), std::size_t(1));
    state.setPinnedLanes({});
    QVERIFY(pinned->isHidden());
    QCOMPARE(view.viewport()->geometry().top(), TimeRuler::kHeight);
}

// The Compare Ranks tab draws a job of many ranks as the overview's thin rows instead of a wall of
// small multiples; a few ranks keep their charts; the user can switch either way.
void TestRanksOverview::compareRanksUsesRowsForManyRanks()
{
    ViewState state;
    TimelineView view(&state);
    CompareView compare(&state);
    compare.resize(1200, 700);
    QCOMPARE(compare.ranksLayout(), CompareView::RanksLayout::SmallMultiples);
    compare.setTimeline(&view);
    QVERIFY(compare.overviewRows());
    const SessionPtr many = memorySession(1024, 700);
    view.setSession(many);
    compare.setSession(many);
    QCOMPARE(compare.ranksLayout(), CompareView::RanksLayout::OverviewRows);
    compare.show();
    QVERIFY(QTest::qWaitForWindowExposed(&compare));
    QVERIFY(compare.overviewRows()->isVisible());
    QVERIFY(!compare.smallMultiples()->isVisible());
    QCOMPARE(compare.overviewRows()->frame().ranks.size(), std::size_t(1024));
    QVERIFY(rs::test::keepScreenshot(compare.grab().toImage(), QStringLiteral("compare-1024-ranks.png")));
    // Clicking the full rank's row (700) selects the rank everywhere; a row is under a pixel tall
    // here, so the pixel may belong to its neighbour.
    const auto [top, bottom] = RanksOverviewPainter::rowOf(compare.overviewRows()->frame(), 700);
    QTest::mouseClick(compare.overviewRows(), Qt::LeftButton, {}, QPoint(compare.overviewRows()->rowsRect().center().x(), (top + bottom) / 2));
    QVERIFY2(std::abs(state.selectedRank() - 700) <= 1, qPrintable(QString::number(state.selectedRank())));
    compare.setRanksLayout(CompareView::RanksLayout::SmallMultiples);
    QVERIFY(compare.smallMultiples()->isVisible());
    // Eight ranks open as small multiples.
    const SessionPtr few = memorySession(8, 3);
    view.setSession(few);
    compare.setSession(few);
    QCOMPARE(compare.ranksLayout(), CompareView::RanksLayout::SmallMultiples);
}

// Scrolled into the middle of a rank's lanes, its header stays pinned at the top of the viewport;
// at a group's own header nothing is pinned; a click on the pinned header folds the rank.
void TestRanksOverview::stickyHeaderNamesTheRankBeingRead()
{
    const SessionPtr session = memorySession(16, 3);
    OpenTimeline t(session, 400);
    ViewState &state = t.state;
    TimelineView &view = t.view;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    StickyHeader *sticky = view.stickyHeader();
    QVERIFY(sticky);
    QCOMPARE(sticky->rank(), kNoRank); // at the top, rank 0's own header is in sight
    RankGroupWidget *g5 = view.rankGroup(5);
    QVERIFY(g5->height() > 3 * LaneLayout::kHeaderHeight);
    view.verticalScrollBar()->setValue(g5->y() + LaneLayout::kHeaderHeight + 4);
    QTRY_COMPARE(sticky->rank(), RankId(5));
    QCOMPARE(sticky->geometry().top(), 0);
    QVERIFY(rs::test::keepScreenshot(view.grab().toImage(), QStringLiteral("sticky-header.png")));
    // It shows rank 5's header: the rank's colour square and name, as the group draws them.
    const QImage pinned = sticky->grab().toImage();
    QImage header(g5->width(), LaneLayout::kHeaderHeight, QImage::Format_ARGB32);
    {
        QPainter p(&header);
        RankGroupWidget::paintHeader(view.context(), *view.groupStack().find(5), p, g5->width());
    }
    QCOMPARE(pinned.copy(0, 0, 200, LaneLayout::kHeaderHeight - 2).convertToFormat(QImage::Format_ARGB32),
             header.copy(0, 0, 200, LaneLayout::kHeaderHeight - 2));
    // Exactly at a group's header, nothing is pinned over it.
    view.verticalScrollBar()->setValue(view.groupStack().find(6)->y);
    QTRY_COMPARE(sticky->rank(), kNoRank);
    // A click on the pinned header folds its rank.
    view.verticalScrollBar()->setValue(view.groupStack().find(5)->y + LaneLayout::kHeaderHeight + 4);
    QTRY_COMPARE(sticky->rank(), RankId(5));
    QTest::mouseClick(sticky, Qt::LeftButton, {}, QPoint(100, 10));
    QVERIFY(state.isRankCollapsed(5));
}

// Dragging the bottom edge of one memory lane sets one height for every rank's memory lane (so
// they still compare at a glance); 0 goes back to each lane's own height.
void TestRanksOverview::draggingAMemoryLaneEdgeResizesThemAll()
{
    const SessionPtr session = memorySession(4, 3);
    OpenTimeline t(session, 600);
    ViewState &state = t.state;
    TimelineView &view = t.view;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    RankGroupWidget *g0 = view.rankGroup(0);
    const Lane *memory = g0->layout().memoryLane();
    QVERIFY(memory);
    const int before = memory->height;
    const int edge = memory->top + memory->height - 1;
    const QPoint grab(view.gutterWidth() + 300, edge);
    QVERIFY(g0->onMemoryEdge(grab));
    QVERIFY(!g0->onMemoryEdge(QPoint(grab.x(), edge - 10)));
    const TimeRange window = state.visibleRange();
    QTest::mousePress(g0, Qt::LeftButton, {}, grab);
    QMouseEvent move(QEvent::MouseMove, QPointF(grab.x(), edge + 50), g0->mapToGlobal(QPointF(grab.x(), edge + 50)), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(g0, &move);
    QTest::mouseRelease(g0, Qt::LeftButton, {}, QPoint(grab.x(), edge + 50));
    QCOMPARE(state.memoryLaneHeight(), before + 50);
    for (RankId r = 0; r < 4; ++r)
        QCOMPARE(view.rankGroup(r)->layout().memoryLane()->height, before + 50);
    QCOMPARE(state.visibleRange(), window); // a resize is not a pan
    QVERIFY(state.selection().isNone());
    state.setMemoryLaneHeight(0);
    QCOMPARE(g0->layout().memoryLane()->height, before);
}

// The gutter's menu hides the lane under the mouse (of that rank only) and shows hidden lanes again.
void TestRanksOverview::lanesCanBeHiddenAndShown()
{
    const SessionPtr session = memorySession(3, 2);
    OpenTimeline t(session, 600);
    ViewState &state = t.state;
    TimelineView &view = t.view;
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    RankGroupWidget *g1 = view.rankGroup(1);
    const Lane *memory = g1->layout().memoryLane();
    QVERIFY(memory);
    const int height = g1->layout().height();
    const int memoryHeight = memory->height;
    std::unique_ptr<QMenu> menu(g1->laneMenu(QPoint(20, memory->top + 5)));
    QCOMPARE(menu->actions().size(), 2); // nothing hidden yet: "Hide Lane" and "Pin Lane"
    QVERIFY(menu->actions().front()->text().contains(QLatin1String("Memory")));
    menu->actions().front()->trigger();
    QVERIFY(state.isLaneHidden(1, QStringLiteral("memory"), kNoTrack));
    QVERIFY(!g1->layout().memoryLane());
    QCOMPARE(g1->layout().height(), height - memoryHeight);
    QVERIFY(view.rankGroup(0)->layout().memoryLane()); // other ranks keep theirs
    // The header cannot be hidden; the menu there offers to show the hidden lane again.
    menu.reset(g1->laneMenu(QPoint(20, 5)));
    QCOMPARE(menu->actions().size(), 1);
    QVERIFY(menu->actions().front()->text().startsWith(QLatin1String("Show 1 Hidden Lane")));
    // A track lane hides by its track.
    const Lane *stream = nullptr;
    for (const Lane &l : g1->layout().lanes())
        if (l.is(LaneId::Spans))
            stream = &l;
    QVERIFY(stream);
    const TrackId track = stream->track;
    menu.reset(g1->laneMenu(QPoint(20, stream->top + 4)));
    menu->actions().front()->trigger();
    QVERIFY(state.isLaneHidden(1, QStringLiteral("spans"), track));
    QCOMPARE(state.hiddenLaneCount(1), 2);
    menu.reset(g1->laneMenu(QPoint(20, 5)));
    menu->actions().front()->trigger(); // show the rank's hidden lanes
    QCOMPARE(state.hiddenLaneCount(), 0);
    QVERIFY(g1->layout().memoryLane());
    QCOMPARE(g1->layout().height(), height);
}

// The log metric on the evidence incident: rank 0's NCCL warning at +3 µs is amber, rank 1's
// watchdog error at +5.1 µs and its OOM at +7 µs are full red, quiet moments of a rank with a log are 0.
void TestRanksOverview::logProblemsMarkWhereTheyHappened()
{
    TimelineContext ctx;
    ctx.setSession(rs::test::makeEvidenceSession().session);
    ctx.evidence.build(ctx.session.get());
    RanksOverviewPainter::Frame f;
    f.ctx = &ctx;
    f.ranks = {0, 1};
    f.area = QRect(0, 0, 1000, 40);
    f.view = {{rs::test::kEvBase, rs::test::kEvBase + 10'000}, 0.0, 1000.0}; // 10 ns a pixel
    f.metric = RanksOverviewPainter::Metric::LogProblems;
    QVERIFY(std::abs(RanksOverviewPainter::valueAt(f, 0, rs::test::kEvBase + 3000) - 0.55) < 1e-9);
    QCOMPARE(RanksOverviewPainter::valueAt(f, 1, rs::test::kEvBase + 5100), 1.0);
    QCOMPARE(RanksOverviewPainter::valueAt(f, 1, rs::test::kEvBase + 7000), 1.0);
    QCOMPARE(RanksOverviewPainter::valueAt(f, 0, rs::test::kEvBase + 8000), 0.0);
}

QTEST_MAIN(TestRanksOverview)
#include "test_ranksoverview.moc"
