// Ctrl+P, find a track: the model lists every lane of a six-rank session, the filter keeps and
// orders rows as documented (rank words, word starts, substrings), and on a live timeline Ctrl+P,
// typing and Enter un-hide and expand the rank, scroll its lane into the viewport and flash it.

#include "timeline/stickyheader.h"
#include "sessionbuilder.h"
#include "timeline/lanekind.h"
#include "screenshot.h"

#include "timeline/rankgroupwidget.h"
#include "timeline/shortcutsheet.h"
#include "timeline/timelineview.h"
#include "timeline/trackfinder.h"
#include "timeline/trackfindermodel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLineEdit>
#include <QListView>
#include <QScrollBar>
#include <QTest>

using namespace rs;

namespace {

constexpr TimeNs kBase = 1700000000000000000LL;
constexpr int kRanks = 6;
constexpr int kRowsPerRank = 4; // memory chart, CPU thread, GPU stream, counter

// Six ranks, each with a memory chart, a CPU thread "thread 4821<r> (python)", GPU stream 7 and a
// counter; rank 0's counter is named "2x scale" so a query "2" has a word-start match outside
// rank 2, and the tids (48210…) give it substring matches. Tall enough to need scrolling.
SessionPtr makeSession()
{
    SessionBuilder sb;
    for (int r = 0; r < kRanks; ++r) {
        SourceBuilder b(QStringLiteral("/job/rank%1.pt.trace.json").arg(r).toStdString());
        b.source().format = "pytorch-trace";
        b.source().ranks = {r};
        b.source().hasClock = true;
        const TrackId cpu = b.track(TrackKind::CpuThread, 1, 48210 + r);
        b.trackAt(cpu).name = b.intern(QStringLiteral("thread %1 (python)").arg(48210 + r).toStdString());
        const TrackId gpu = b.track(TrackKind::GpuStream, 0, 7, 0);
        b.trackAt(gpu).name = b.intern("stream 7");
        const TrackId alloc = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
        const TrackId counter = b.track(TrackKind::Counter, 1, 0);
        b.trackAt(counter).name = b.intern(r == 0 ? "2x scale" : "loss scale");
        const StringId op = b.intern("cpu_op");
        b.addSpan(cpu, {kBase + 1000, 8000, b.intern("aten::linear"), op, kNoArgs, 0, 0});
        b.addSpan(cpu, {kBase + 2000, 1000, b.intern("aten::addmm"), op, kNoArgs, 0, 0});
        b.addSpan(gpu, {kBase + 3000, 2000, b.intern("gemm"), b.intern("kernel"), kNoArgs, 0, SpanFlagGpu | SpanFlagKernel});
        b.addCounterSample(alloc, kBase + 1000, 1.0e9);
        b.addCounterSample(alloc, kBase + 9000, 2.0e9);
        b.addCounterSample(counter, kBase + 1000, 1.0);
        b.addCounterSample(counter, kBase + 9000, 4.0);
        b.finish();
        sb.addSource(std::move(b));
    }
    return sb.freeze();
}

QStringList rowsFor(TrackFinderFilter &filter, const QString &query)
{
    filter.setQuery(query);
    QStringList rows;
    for (int i = 0; i < filter.rowCount(); ++i)
        rows << filter.index(i, 0).data().toString();
    return rows;
}

// The first track of `kind` on `rank`.
TrackId trackOf(const Session &s, RankId rank, TrackKind kind)
{
    for (TrackId id : s.ranks()[static_cast<std::size_t>(rank)].tracks)
        if (s.tracks()[id].kind == kind)
            return id;
    return kNoTrack;
}

// Whether the rows [top, bottom] of `g` lie inside `view`'s viewport.
// Wholly in the viewport, and not under the rank header pinned at its top.
bool inViewport(TimelineView *view, RankGroupWidget *g, int top, int bottom)
{
    const QPoint a = g->mapTo(view->viewport(), QPoint(0, top));
    const QPoint b = g->mapTo(view->viewport(), QPoint(0, bottom));
    const QWidget *sticky = view->stickyHeader();
    const int covered = sticky && sticky->isVisible() ? sticky->geometry().bottom() + 1 : 0;
    return g->isVisible() && a.y() >= covered && b.y() <= view->viewport()->height();
}

} // namespace

class TestTrackFinder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void modelListsEveryLane();
    void filterKeepsMatchingRows();
    void filterOrdersBestFirst();
    void ctrlPTypeEnterShowsTheLane();
    void laneClearsThePinnedHeader();
    void arrowsPickAndEscapeCloses();
    void memoryLaneOfACollapsedRank();
    void listedOnTheShortcutSheet();

private:
    SessionPtr m_session;
    ViewState *m_state = nullptr;
    TimelineView *m_view = nullptr;
};

void TestTrackFinder::init()
{
    m_session = makeSession();
    m_state = new ViewState;
    m_view = new TimelineView(m_state);
    m_view->resize(m_view->gutterWidth() + 800, 420);
    m_view->setSession(m_session);
    m_view->show();
    m_view->activateWindow(); // focus is only given to an active window
    QVERIFY(QTest::qWaitForWindowActive(m_view));
    m_view->setFocus();
}

void TestTrackFinder::cleanup()
{
    delete m_view;
    delete m_state;
}

void TestTrackFinder::modelListsEveryLane()
{
    TrackFinderModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(m_session.get(), nullptr);
    QCOMPARE(model.rowCount(), kRanks * kRowsPerRank);
    const QModelIndex first = model.index(2 * kRowsPerRank, 0);
    QCOMPARE(first.data().toString(), QStringLiteral("Rank 2 · Memory · GPU 0"));
    QCOMPARE(first.data(TrackFinderModel::RankRole).toInt(), 2);
    QCOMPARE(first.data(TrackFinderModel::TrackRole).toUInt(), kNoTrack);
    QCOMPARE(first.data(TrackFinderModel::LaneKindRole).toString(), QStringLiteral("memory"));
    // The other lanes follow in the session's track order (the timeline's), so compare as a set.
    QStringList rest;
    for (int i = 1; i < kRowsPerRank; ++i) {
        const QModelIndex row = model.index(2 * kRowsPerRank + i, 0);
        QCOMPARE(row.data(TrackFinderModel::RankRole).toInt(), 2);
        const TrackId track = row.data(TrackFinderModel::TrackRole).toUInt();
        QCOMPARE(m_session->tracks()[track].rank, 2);
        QVERIFY(m_view->rankGroup(2)->layout().laneForTrack(track));
        rest << row.data().toString();
    }
    rest.sort();
    QCOMPARE(rest, (QStringList{QStringLiteral("Rank 2 · CPU thread 48212 (python)"), QStringLiteral("Rank 2 · GPU stream 7"),
                                QStringLiteral("Rank 2 · loss scale")}));
    QCOMPARE(model.index(2 * kRowsPerRank + 1, 0).data(TrackFinderModel::TrackRole).toUInt(),
             m_view->rankGroup(2)->layout().lanes()[2].track); // [0] is the header, [1] the memory chart
    model.setSession(nullptr, nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestTrackFinder::filterKeepsMatchingRows()
{
    TrackFinderModel model;
    TrackFinderFilter filter;
    QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(&model);
    model.setSession(m_session.get(), nullptr);
    QCOMPARE(rowsFor(filter, {}).size(), kRanks * kRowsPerRank);
    // "r2", "rank 2", "Rank2": rank 2's rows and no other (not even ones containing a "2").
    for (const QString &q : {QStringLiteral("r2"), QStringLiteral("rank 2"), QStringLiteral("Rank2"), QStringLiteral(" R2 ")}) {
        const QStringList rows = rowsFor(filter, q);
        QCOMPARE(rows.size(), kRowsPerRank);
        for (const QString &r : rows)
            QVERIFY2(r.startsWith(QStringLiteral("Rank 2 · ")), qPrintable(q + QStringLiteral(" → ") + r));
    }
    // Every word must match, in any case: the GPU streams, one per rank.
    QStringList rows = rowsFor(filter, QStringLiteral("GPU 7"));
    QCOMPARE(rows.size(), kRanks);
    for (const QString &r : rows)
        QVERIFY(r.endsWith(QStringLiteral("GPU stream 7")));
    rows = rowsFor(filter, QStringLiteral("python"));
    QCOMPARE(rows.size(), kRanks);
    QCOMPARE(rowsFor(filter, QStringLiteral("r3 python")), QStringList{QStringLiteral("Rank 3 · CPU thread 48213 (python)")});
    // Kind words the names leave out still find their lanes: the tid, "thread", "allocated".
    QCOMPARE(rowsFor(filter, QStringLiteral("48214")), QStringList{QStringLiteral("Rank 4 · CPU thread 48214 (python)")});
    QCOMPARE(rowsFor(filter, QStringLiteral("allocated r1")), QStringList{QStringLiteral("Rank 1 · Memory · GPU 0")});
    QCOMPARE(rowsFor(filter, QStringLiteral("xyzzy")).size(), 0);
    QCOMPARE(rowsFor(filter, QStringLiteral("r9")).size(), 0);           // no such rank
    QCOMPARE(rowsFor(filter, QStringLiteral("python xyzzy")).size(), 0); // one word missing is enough
    QCOMPARE(TrackFinderFilter::score(QStringLiteral("r2"), 3, QStringLiteral("rank 3 · r2")), -1);
}

void TestTrackFinder::filterOrdersBestFirst()
{
    TrackFinderModel model;
    TrackFinderFilter filter;
    filter.setSourceModel(&model);
    model.setSession(m_session.get(), nullptr);
    // "2": rank 2's rows first (rank number), then rank 0's "2x scale" (start of a word), then the
    // other CPU threads, whose tids 4821x contain a 2 mid-word; timeline order within each tier.
    const QStringList rows = rowsFor(filter, QStringLiteral("2"));
    QCOMPARE(rows.size(), kRowsPerRank + 1 + (kRanks - 1));
    for (int i = 0; i < kRowsPerRank; ++i)
        QVERIFY2(rows[i].startsWith(QStringLiteral("Rank 2 · ")), qPrintable(rows[i]));
    for (int i = 0; i < kRowsPerRank; ++i) // timeline order kept within the tier
        QCOMPARE(rows[i], model.index(2 * kRowsPerRank + i, 0).data().toString());
    QCOMPARE(rows[kRowsPerRank], QStringLiteral("Rank 0 · 2x scale"));
    QCOMPARE(rows[kRowsPerRank + 1], QStringLiteral("Rank 0 · CPU thread 48210 (python)"));
    QCOMPARE(rows.last(), QStringLiteral("Rank 5 · CPU thread 48215 (python)"));
    // "sca": word start in every counter; "cale": mid-word only, so the same rows in timeline order.
    QVERIFY(TrackFinderFilter::score(QStringLiteral("sca"), 1, QStringLiteral("loss scale"))
            > TrackFinderFilter::score(QStringLiteral("cale"), 1, QStringLiteral("loss scale")));
}

void TestTrackFinder::ctrlPTypeEnterShowsTheLane()
{
    m_state->setRankCollapsed(4, true);
    m_state->setRankHidden(4, true);
    RankGroupWidget *g = m_view->rankGroup(4);
    QVERIFY(g && !g->isVisible());
    const int scrollBefore = m_view->verticalScrollBar()->value();

    QTest::keyClick(m_view, Qt::Key_P, Qt::ControlModifier);
    auto *finder = m_view->findChild<TrackFinder *>();
    QVERIFY(finder && finder->isVisible());
    QCOMPARE(QApplication::focusWidget(), finder->lineEdit());
    QCOMPARE(finder->listView()->model()->rowCount(), kRanks * kRowsPerRank);
    QTest::keyClicks(finder->lineEdit(), QStringLiteral("r4 stream"));
    QCOMPARE(finder->listView()->model()->rowCount(), 1);
    rs::test::keepScreenshot(m_view->grab().toImage(), QStringLiteral("track-finder.png")); // to look at the popup by eye
    QTest::keyClick(finder->lineEdit(), Qt::Key_Return);

    QVERIFY(!finder->isVisible());
    QCOMPARE(QApplication::focusWidget(), m_view); // keys go back to navigation
    QVERIFY(!m_state->isRankHidden(4));
    QVERIFY(!m_state->isRankCollapsed(4));
    QVERIFY(g->isVisible());
    const TrackId gpu = trackOf(*m_session, 4, TrackKind::GpuStream);
    const QRect lane = g->laneRect(gpu);
    QVERIFY(!lane.isEmpty());
    QVERIFY(m_view->verticalScrollBar()->value() > scrollBefore); // rank 4 starts below the fold
    QVERIFY(inViewport(m_view, g, lane.top(), lane.bottom()));
    auto *flash = g->findChild<QWidget *>(QStringLiteral("rs_laneFlash"));
    QVERIFY(flash && flash->isVisible());
    QCOMPARE(flash->geometry().top(), lane.top());
    QCOMPARE(flash->geometry().height(), lane.height());
    QTRY_VERIFY_WITH_TIMEOUT(!g->findChild<QWidget *>(QStringLiteral("rs_laneFlash")), TrackFinder::kFlashMs + 2000);
}

void TestTrackFinder::laneClearsThePinnedHeader()
{
    // A short view, scrolled into the middle of rank 2: jumping to rank 3's memory lane (its first,
    // right under the header that pins) leaves it whole and clear of the pinned header; so does a
    // lane of the rank being read.
    m_view->resize(900, 300);
    QCoreApplication::processEvents();
    for (const auto &[rank, kind] : {std::pair{3, QStringLiteral("memory")}, std::pair{2, QStringLiteral("memory")}}) {
        RankGroupWidget *g2 = m_view->rankGroup(2);
        m_view->verticalScrollBar()->setValue(g2->y() + g2->height() / 2);
        QCoreApplication::processEvents();
        QVERIFY(TrackFinder::goToLane(m_view, rank, kind, kNoTrack));
        QCoreApplication::processEvents();
        RankGroupWidget *g = m_view->rankGroup(rank);
        const Lane *lane = g->layout().lane(kind.toStdString());
        QVERIFY(lane);
        QVERIFY2(inViewport(m_view, g, lane->top, lane->top + lane->height - 1), qPrintable(QStringLiteral("rank %1").arg(rank)));
    }
}

void TestTrackFinder::arrowsPickAndEscapeCloses()
{
    m_view->showTrackFinder();
    auto *finder = m_view->findChild<TrackFinder *>();
    QVERIFY(finder);
    QTest::keyClicks(finder->lineEdit(), QStringLiteral("python"));
    QCOMPARE(finder->listView()->currentIndex().row(), 0);
    QTest::keyClick(finder->lineEdit(), Qt::Key_Down);
    QTest::keyClick(finder->lineEdit(), Qt::Key_Down);
    QTest::keyClick(finder->lineEdit(), Qt::Key_Down);
    QTest::keyClick(finder->lineEdit(), Qt::Key_Up);
    QCOMPARE(finder->listView()->currentIndex().row(), 2);
    // Escape closes without moving anything, and does not reach the view (it would clear the selection).
    m_state->setSelection(EventRef::span(trackOf(*m_session, 0, TrackKind::CpuThread), 0));
    const int scroll = m_view->verticalScrollBar()->value();
    QTest::keyClick(finder->lineEdit(), Qt::Key_Escape);
    QVERIFY(!finder->isVisible());
    QCOMPARE(m_view->verticalScrollBar()->value(), scroll);
    QVERIFY(!m_state->selection().isNone());

    // Reopened, the last query is selected (typing replaces it); Down to rank 5's thread, Enter.
    QTest::keyClick(m_view, Qt::Key_P, Qt::ControlModifier);
    QVERIFY(finder->isVisible());
    QCOMPARE(finder->lineEdit()->selectedText(), QStringLiteral("python"));
    for (int i = 0; i < 10; ++i) // clamped at the last row
        QTest::keyClick(finder->lineEdit(), Qt::Key_Down);
    QCOMPARE(finder->listView()->currentIndex().row(), kRanks - 1);
    QTest::keyClick(finder->lineEdit(), Qt::Key_Enter);
    RankGroupWidget *g = m_view->rankGroup(5);
    const QRect lane = g->laneRect(trackOf(*m_session, 5, TrackKind::CpuThread));
    QVERIFY(inViewport(m_view, g, lane.top(), lane.bottom()));
}

void TestTrackFinder::memoryLaneOfACollapsedRank()
{
    m_state->setRankCollapsed(3, true);
    m_view->showTrackFinder();
    auto *finder = m_view->findChild<TrackFinder *>();
    QTest::keyClicks(finder->lineEdit(), QStringLiteral("rank 3 memory"));
    QCOMPARE(finder->listView()->model()->rowCount(), 1);
    // A click goes too.
    const QRect row = finder->listView()->visualRect(finder->listView()->model()->index(0, 0));
    QTest::mouseClick(finder->listView()->viewport(), Qt::LeftButton, {}, row.center());
    QVERIFY(!finder->isVisible());
    QVERIFY(!m_state->isRankCollapsed(3));
    RankGroupWidget *g = m_view->rankGroup(3);
    const Lane *memory = g->layout().memoryLane();
    QVERIFY(memory);
    QVERIFY(inViewport(m_view, g, memory->top, memory->top + memory->height - 1));
    QVERIFY(g->findChild<QWidget *>(QStringLiteral("rs_laneFlash")));
}

void TestTrackFinder::listedOnTheShortcutSheet()
{
    bool found = false;
    for (const ShortcutSheet::Entry &e : ShortcutSheet::entries())
        found = found || e.keys == QStringLiteral("Ctrl + P");
    QVERIFY(found);
}

QTEST_MAIN(TestTrackFinder)
#include "test_trackfinder.moc"
