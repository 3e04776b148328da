// The allocator dock: the segment tree (rows, blocks, free bytes, sorting, filters), the largest
// allocations, the stack list of the selection, the summary line, and a real snapshot without
// history (its segments still show).

#include "importerregistry.h"
#include "models/segmentmodel.h"
#include "panels/allocatorpanel.h"
#include "activememory.h"
#include "allocator/activememoryview.h"
#include "allocator/segmentmapview.h"
#include "counterformat.h"
#include "sessionbuilder.h"

#include "palette.h"
#include "screenshot.h"

#include <QAbstractItemModelTester>

#include <set>
#include <tuple>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QTest>
#include <QTreeView>

using namespace rs;

namespace {

constexpr std::int64_t MiB = 1LL << 20;
constexpr TimeNs kBase = 1700000000000000000LL;

SessionPtr makeSession()
{
    SessionBuilder sb;
    SourceBuilder b("/incident/rank0_snapshot.pickle");
    b.source().format = "memory-snapshot";
    b.source().ranks = {0};
    b.source().hasClock = true;
    AllocatorEvidence &a = b.allocator();
    a.stacks = {
        {{"/usr/lib/python3/site-packages/torch/nn/modules/linear.py", "forward", 116}, {"/job/train.py", "step", 42}},
        {{"/job/model.py", "attention", 7}, {"/job/train.py", "step", 40}},
        {{"/job/data.py", "load", 3}},
    };
    SegmentRecord s0;
    s0.rank = 0;
    s0.address = 0x7f0000000000;
    s0.totalSize = 20 * MiB;
    s0.allocatedSize = 12 * MiB;
    s0.activeSize = 12 * MiB;
    s0.stack = 2;
    s0.blocks = {{0x7f0000000000, 8 * MiB, 8 * MiB - 100, SegmentRecord::Block::State::Allocated, 0},
                 {0x7f0000800000, 4 * MiB, 4 * MiB, SegmentRecord::Block::State::Allocated, 1},
                 {0x7f0000c00000, 8 * MiB, 0, SegmentRecord::Block::State::Inactive, -1}};
    SegmentRecord s1;
    s1.rank = 0;
    s1.address = 0x7f1000000000;
    s1.totalSize = 2 * MiB;
    s1.allocatedSize = 512 * 1024;
    s1.large = false;
    s1.expandable = true;
    s1.blocks = {{0x7f1000000000, 512 * 1024, 500 * 1024, SegmentRecord::Block::State::Allocated, 1},
                 {0x7f1000080000, 1536 * 1024, 0, SegmentRecord::Block::State::Inactive, -1}};
    a.segments = {s0, s1};
    auto alloc = [&a](TimeNs t, TimeNs freed, std::uint64_t addr, std::int64_t size, std::int64_t seq, int stack) {
        AllocationRecord r;
        r.rank = 0;
        r.time = kBase + t;
        r.freed = freed == kNoTime ? kNoTime : kBase + freed;
        r.address = addr;
        r.size = size;
        r.sequence = seq;
        r.stack = stack;
        a.allocations.push_back(r);
    };
    alloc(100, kNoTime, 0x7f0000000000, 8 * MiB, 0, 0);
    alloc(200, kNoTime, 0x7f0000800000, 4 * MiB, 1, 1);
    alloc(300, 400, 0x7f0000c00000, 16 * MiB, 2, 2); // the largest, but freed
    alloc(500, kNoTime, 0x7f1000000000, 512 * 1024, 3, 1);
    b.finish();
    sb.addSource(std::move(b));
    return sb.freeze();
}

} // namespace

class TestAllocatorPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void segmentTree();
    void sortingAndFilters();
    void allocations();
    void stackOfSelection();
    void summary();
    void realSnapshotWithoutHistory();
    void activeMemoryStacksByAddress();
    void activeMemoryOnRealSnapshots_data();
    void activeMemoryOnRealSnapshots();
    void segmentMapBlocks();
    void firstUserFrame_data();
    void firstUserFrame();
};

void TestAllocatorPanel::firstUserFrame_data()
{
    // Frames innermost first, as "file | function"; the frame an allocation is coloured and labelled by.
    QTest::addColumn<QStringList>("frames");
    QTest::addColumn<int>("expected");
    QTest::newRow("empty") << QStringList{} << -1;
    QTest::newRow("python only") << QStringList{"/job/model.py | forward", "/job/train.py | step"} << 0;
    QTest::newRow("torch first") << QStringList{"/usr/lib/python3/site-packages/torch/nn/functional.py | linear", "/job/model.py | forward"} << 1;
    QTest::newRow("native frames of stacks='all'")
        << QStringList{"?? | torch::unwind::unwind()", "memory_snapshot.cpp | torch::cuda::gather_with_cpp()",
                       "CUDACachingAllocator.cpp | c10::cuda::malloc", "/job/train.py | step"}
        << 3;
    QTest::newRow("windows venv")
        << QStringList{R"(D:\Dev\a2\.venv\Lib\site-packages\torch\functional.py | einsum)",
                       R"(D:\Dev\a2\.venv\Lib\site-packages\einops\einops.py | einsum)", R"(D:\Dev\a2\cs336_basics\model.py | forward)"}
        << 1; // einops asked for it (its caller is one click away in the stack)
    QTest::newRow("libraries only: the innermost python") << QStringList{"?? | c10::malloc", "/x/site-packages/torch/a.py | f"} << 1;
    QTest::newRow("native only") << QStringList{"?? | a", "b.cpp | b"} << 0;
}

void TestAllocatorPanel::firstUserFrame()
{
    QFETCH(QStringList, frames);
    QFETCH(int, expected);
    std::vector<StackFrame> stack;
    for (const QString &f : frames) {
        const QStringList parts = f.split(QStringLiteral(" | "));
        StackFrame frame;
        frame.filename = parts.value(0).toStdString();
        frame.name = parts.value(1).toStdString();
        stack.push_back(frame);
    }
    QCOMPARE(rs::firstUserFrame(stack), expected);
}

void TestAllocatorPanel::segmentTree()
{
    SegmentModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(makeSession());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.rowCount(model.index(0, 0)), 3);
    QCOMPARE(model.rowCount(model.index(1, 0)), 2);
    QCOMPARE(model.rowCount(model.index(0, 0, model.index(0, 0))), 0);
    const QModelIndex free0 = model.index(0, SegmentModel::FreeColumn);
    QCOMPARE(free0.data(BytesRole).toLongLong(), 8 * MiB);
    QVERIFY(!free0.data(Qt::DisplayRole).toString().isEmpty());
    QVERIFY(free0.data(Qt::ToolTipRole).toString().contains(QStringLiteral("bytes")));
    QCOMPARE(model.index(1, SegmentModel::FreeColumn).data(BytesRole).toLongLong(), 1536 * 1024LL);
    QCOMPARE(model.index(0, SegmentModel::AddressColumn).data().toString(), QStringLiteral("0x7f0000000000"));
    QCOMPARE(model.index(1, SegmentModel::PoolColumn).data().toString(), QStringLiteral("small"));
    QVERIFY(model.index(1, SegmentModel::StateColumn).data().toString().contains(QStringLiteral("expandable")));
    const QModelIndex blk = model.index(2, SegmentModel::StateColumn, model.index(0, 0));
    QCOMPARE(blk.data().toString(), QStringLiteral("free"));
    QCOMPARE(blk.parent(), model.index(0, 0));
    QCOMPARE(model.index(0, SegmentModel::RequestedColumn, model.index(0, 0)).data(BytesRole).toLongLong(), 8 * MiB - 100);
    QVERIFY(model.index(0, 0, model.index(0, 0)).data(IsBlockRole).toBool());
}

void TestAllocatorPanel::sortingAndFilters()
{
    SegmentModel model;
    SegmentFilterModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(makeSession());
    proxy.sort(SegmentModel::SizeColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, SegmentModel::SizeColumn).data(BytesRole).toLongLong(), 2 * MiB);
    QCOMPARE(proxy.index(1, SegmentModel::SizeColumn).data(BytesRole).toLongLong(), 20 * MiB);
    // Children sort too: the smallest block of the 20 MiB segment first.
    const QModelIndex big = proxy.index(1, 0);
    QCOMPARE(proxy.index(0, SegmentModel::SizeColumn, big).data(BytesRole).toLongLong(), 4 * MiB);
    proxy.sort(SegmentModel::SizeColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, SegmentModel::SizeColumn).data(BytesRole).toLongLong(), 20 * MiB);

    proxy.setFrameText(QStringLiteral("attention"));
    QCOMPARE(proxy.rowCount(), 2); // both segments hold a block allocated in attention()
    QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 1);
    proxy.setFrameText(QStringLiteral("data.py"));
    QCOMPARE(proxy.rowCount(), 1); // the first segment's own segment_alloc stack
    proxy.setFrameText(QString());
    proxy.setRank(3);
    QCOMPARE(proxy.rowCount(), 0);
    proxy.setRank(0);
    QCOMPARE(proxy.rowCount(), 2);
}

void TestAllocatorPanel::allocations()
{
    AllocationModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(makeSession());
    QCOMPARE(model.rowCount(), 3); // alive only
    QCOMPARE(model.index(0, AllocationModel::SizeColumn).data(BytesRole).toLongLong(), 8 * MiB);
    QCOMPARE(model.index(0, AllocationModel::FrameColumn).data().toString(), QStringLiteral("step (/job/train.py:42)"));
    QCOMPARE(model.index(1, AllocationModel::FrameColumn).data().toString(), QStringLiteral("attention (/job/model.py:7)"));
    QCOMPARE(model.index(0, AllocationModel::FreedColumn).data().toString(), QStringLiteral("alive"));
    model.setMode(AllocationModel::Mode::All);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.index(0, AllocationModel::SizeColumn).data(BytesRole).toLongLong(), 16 * MiB);
    model.setLimit(2);
    QCOMPARE(model.rowCount(), 2);
}

void TestAllocatorPanel::stackOfSelection()
{
    ViewState state;
    AllocatorPanel panel(&state);
    panel.setSession(makeSession());
    auto *view = panel.segmentView();
    auto *proxy = panel.segmentProxy();
    // Find the 20 MiB segment whatever the sort order, then its 4 MiB block (stack 1).
    QModelIndex seg;
    for (int r = 0; r < proxy->rowCount(); ++r)
        if (proxy->index(r, SegmentModel::SizeColumn).data(BytesRole).toLongLong() == 20 * MiB)
            seg = proxy->index(r, 0);
    QVERIFY(seg.isValid());
    view->setCurrentIndex(seg);
    QCOMPARE(panel.stackList()->count(), 1);
    QCOMPARE(panel.stackList()->item(0)->text(), QStringLiteral("load (/job/data.py:3)"));
    QModelIndex blk;
    for (int r = 0; r < proxy->rowCount(seg); ++r)
        if (proxy->index(r, SegmentModel::SizeColumn, seg).data(BytesRole).toLongLong() == 4 * MiB)
            blk = proxy->index(r, 0, seg);
    QVERIFY(blk.isValid());
    view->setCurrentIndex(blk);
    QCOMPARE(panel.stackList()->count(), 2);
    QCOMPARE(panel.stackList()->item(0)->text(), QStringLiteral("attention (/job/model.py:7)"));
    QCOMPARE(panel.stackList()->item(1)->text(), QStringLiteral("step (/job/train.py:40)"));

    panel.allocationView()->setCurrentIndex(panel.allocationModel()->index(0, 0));
    QCOMPARE(panel.stackList()->count(), 2);
    QCOMPARE(panel.stackList()->item(0)->text(),
             QStringLiteral("forward (/usr/lib/python3/site-packages/torch/nn/modules/linear.py:116)"));
}

void TestAllocatorPanel::summary()
{
    ViewState state;
    AllocatorPanel panel(&state);
    QVERIFY(panel.summaryLabel()->text().contains(QStringLiteral("No allocator")));
    panel.setSession(makeSession());
    const QString text = panel.summaryLabel()->text();
    QVERIFY2(text.contains(QStringLiteral("Rank 0 GPU 0")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("2 segments")), qPrintable(text));
}

void TestAllocatorPanel::realSnapshotWithoutHistory()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/select_n_no_history/snapshot.pickle");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    SessionBuilder sb;
    sb.addSource(std::move(b));
    SessionPtr session = sb.freeze();
    ViewState state;
    AllocatorPanel panel(&state);
    QAbstractItemModelTester tester(panel.segmentModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.setSession(session);
    QCOMPARE(panel.segmentModel()->rowCount(), 40);
    QCOMPARE(panel.segmentProxy()->rowCount(), 40);
    // No history, but its allocated blocks are the largest alive, and they add up to its segments.
    std::int64_t allocated = 0, blocks = 0;
    for (const SegmentRecord &seg : session->allocator().segments) {
        allocated += seg.allocatedSize;
        for (const auto &blk : seg.blocks)
            blocks += blk.state == SegmentRecord::Block::State::Allocated;
    }
    QCOMPARE(std::int64_t(panel.allocationModel()->totalCount()), blocks);
    QCOMPARE(panel.allocationModel()->totalBytes(), allocated);
    QCOMPARE(panel.allocationModel()->index(0, AllocationModel::TimeColumn).data().toString(), QStringLiteral("before the trace"));
    QVERIFY(!panel.summaryLabel()->text().contains(QStringLiteral("No allocator")));
    // Nothing to lay out in time: the panel says why and opens on the segment map.
    QVERIFY(!panel.activeMemory()->layout());
    QVERIFY(panel.activeMemory()->noteLabel()->text().contains(QStringLiteral("no allocation history")));
    QCOMPARE(panel.tabs()->currentWidget()->findChild<SegmentMapView *>(), panel.segmentMap());
    QCOMPARE(panel.segmentMap()->order().size(), std::size_t(40));

    // The Allocations list shows its columns whole: each as wide as its widest cell and its title
    // (the frame column takes the rest).
    panel.resize(1000, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.tabs()->setCurrentWidget(panel.allocationView()->parentWidget());
    QCoreApplication::processEvents();
    QTableView *list = panel.allocationView();
    for (int c = 0; c < list->model()->columnCount(); ++c) {
        if (c == AllocationModel::FrameColumn)
            continue;
        const int needed = std::max(static_cast<QAbstractItemView *>(list)->sizeHintForColumn(c), list->horizontalHeader()->sectionSizeHint(c));
        QVERIFY2(list->columnWidth(c) >= needed,
                 qPrintable(QStringLiteral("column %1 (%2) is %3 px, its content needs %4")
                                .arg(c).arg(list->model()->headerData(c, Qt::Horizontal).toString()).arg(list->columnWidth(c)).arg(needed)));
    }
}

namespace {

SessionPtr importSnapshot(const QString &path)
{
    ImportContext ctx;
    SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    SessionBuilder sb;
    sb.addSource(std::move(b));
    return sb.freeze();
}

// At `t`, every band's offset is the bytes of the live bands at lower addresses, and the summed
// rest sits on all of them: what a brute-force walk over the allocations says.
void checkLayout(const Session &s, const ActiveMemory &m, TimeNs t)
{
    const auto &allocs = s.allocator().allocations;
    std::vector<const ActiveMemory::Band *> live;
    for (const ActiveMemory::Band &b : m.bands)
        if (b.begin <= t && t < b.end)
            live.push_back(&b);
    std::int64_t total = 0;
    std::set<std::uint64_t> aliveAt;
    for (const AllocationRecord &a : allocs)
        if (a.rank == m.rank && a.device == m.device && a.time != kNoTime) {
            if (a.time <= t && (a.freed == kNoTime ? true : t < std::max(a.freed, a.time + 1)))
                total += a.size;
            if (a.freed == kNoTime)
                aliveAt.insert(a.address);
        }
    // Blocks held at the snapshot that the trace never saw allocated count from its start.
    std::int64_t before = 0;
    for (const SegmentRecord &seg : s.allocator().segments)
        for (const SegmentRecord::Block &b : seg.blocks)
            if (seg.rank == m.rank && seg.device == m.device && b.state != SegmentRecord::Block::State::Inactive && !aliveAt.count(b.address))
                before += b.size;
    QCOMPARE(m.beforeTraceBytes, before);
    if (t >= m.range.begin)
        total += before;
    std::int64_t banded = 0;
    for (const ActiveMemory::Band *b : live) {
        std::int64_t below = 0;
        for (const ActiveMemory::Band *o : live)
            if (std::tuple(o->address, o->allocation == ActiveMemory::kBeforeTrace, o->allocation)
                < std::tuple(b->address, b->allocation == ActiveMemory::kBeforeTrace, b->allocation))
                below += o->size;
        QCOMPARE(b->offsetAt(t), below);
        banded += b->size;
    }
    QCOMPARE(m.liveAt(t), total);
    QVERIFY(m.liveAt(t) >= banded);
}

} // namespace

void TestAllocatorPanel::activeMemoryStacksByAddress()
{
    const SessionPtr s = makeSession();
    const ActiveMemory m = ActiveMemory::build(*s, 0, 0, 0);
    QCOMPARE(m.bands.size(), std::size_t(4));
    QCOMPARE(m.allocations, std::size_t(4));
    QCOMPARE(m.rest.count, std::size_t(0));
    // At 350 the 16 MiB block (highest address) sits on the 8 and 4 MiB ones.
    QCOMPARE(m.liveAt(kBase + 350), 28 * MiB);
    QCOMPARE(m.peak, 28 * MiB);
    const int top = m.bandAt(kBase + 350, 20.0 * MiB);
    QVERIFY(top >= 0);
    QCOMPARE(m.bands[static_cast<std::size_t>(top)].size, 16 * MiB);
    QCOMPARE(m.bands[static_cast<std::size_t>(top)].offsetAt(kBase + 350), 12 * MiB);
    QCOMPARE(m.bandAt(kBase + 350, 40.0 * MiB), -1);
    for (TimeNs t : {100, 150, 250, 350, 450, 500})
        checkLayout(*s, m, kBase + t);
    // With one band, the other three are summed on top of it.
    const ActiveMemory one = ActiveMemory::build(*s, 0, 0, 1);
    QCOMPARE(one.bands.size(), std::size_t(1));
    QCOMPARE(one.threshold, 16 * MiB);
    QCOMPARE(one.rest.count, std::size_t(3));
    QCOMPARE(one.rest.largest, 8 * MiB);
    QCOMPARE(one.liveAt(kBase + 350), 28 * MiB);
    for (TimeNs t : {100, 250, 350, 450, 500})
        checkLayout(*s, one, kBase + t);
}

void TestAllocatorPanel::activeMemoryOnRealSnapshots_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("clocked");
    QTest::addColumn<bool>("reservedSteady"); // the trace records no segment_alloc or segment_free
    QTest::newRow("cs336 (time_us)") << QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/cs336_magma27/memory_snapshot.pickle") << true << true;
    QTest::newRow("ftcourse (no clock)") << QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/ftcourse/memory_snapshot.pickle") << false << false;
}

void TestAllocatorPanel::activeMemoryOnRealSnapshots()
{
    QFETCH(QString, path);
    QFETCH(bool, clocked);
    QFETCH(bool, reservedSteady);
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    const SessionPtr s = importSnapshot(path);
    const auto devices = ActiveMemory::devices(*s);
    QCOMPARE(devices.size(), std::size_t(1));
    for (const std::size_t maxBands : {std::size_t(0), std::size_t(200)}) {
        const ActiveMemory m = ActiveMemory::build(*s, devices[0].first, devices[0].second, maxBands);
        QCOMPARE(m.clocked, clocked);
        QCOMPARE(m.allocations, s->allocator().allocations.size() + m.beforeTrace);
        QVERIFY(m.beforeTrace > 0); // both traces start after the model was loaded
        // cs336's trace has no segment events (its segments were all made before recording began);
        // ftcourse's allocates 152 segments while it records.
        QCOMPARE(m.reservedSteady, reservedSteady);
        // At the snapshot the picture holds what its segments hold: the same blocks, each as large
        // as the trace said (its request rounded; a block left unsplit holds up to a few KiB more).
        std::int64_t active = 0;
        for (const SegmentRecord &seg : s->allocator().segments)
            for (const SegmentRecord::Block &b : seg.blocks)
                active += b.state != SegmentRecord::Block::State::Inactive ? b.size : 0;
        const std::int64_t end = m.liveAt(m.range.end - 1);
        QVERIFY2(end <= active && end >= active - active / 200, qPrintable(QStringLiteral("%1 drawn, %2 in the segments").arg(end).arg(active)));
        QCOMPARE(m.bands.size() + m.rest.count, m.allocations);
        QVERIFY(maxBands == 0 || m.bands.size() == maxBands);
        for (int k = 0; k <= 40; ++k)
            checkLayout(*s, m, m.range.begin + (m.range.end - m.range.begin) * k / 40);
        checkLayout(*s, m, m.peakTime);
        QCOMPARE(m.liveAt(m.peakTime), m.peak);
    }

    // In the dock: a click on a band lists its stack; the detail slider trades bands for speed;
    // the note says what the trace lacks.
    ViewState state;
    state.setFullRange(s->timeRange());
    AllocatorPanel panel(&state);
    panel.resize(900, 640);
    panel.setSession(s);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ActiveMemoryView *view = panel.activeMemory();
    QCOMPARE(panel.tabs()->currentWidget(), static_cast<QWidget *>(view));
    QVERIFY(view->layout());
    QCOMPARE(view->layout()->bands.size(), std::min<std::size_t>(2000, view->layout()->allocations));
    // The largest band, clicked where it is drawn.
    int largest = 0;
    for (int i = 1; i < static_cast<int>(view->layout()->bands.size()); ++i)
        if (view->layout()->bands[static_cast<std::size_t>(i)].size > view->layout()->bands[static_cast<std::size_t>(largest)].size)
            largest = i;
    const QPoint at = view->bandCenter(largest);
    QCOMPARE(view->bandAt(at), largest);
    // Drawn where the layout puts it: its colour under its middle, and the stack's top at the peak
    // where the live bytes say (the drawing folds each pixel column to its lowest and highest).
    const QImage drawn = view->plotWidget()->grab().toImage();
    QCOMPARE(drawn.pixelColor(at).rgb(), view->bandColor(largest).rgb());
    const QPoint peak = view->pixelOf(view->layout()->peakTime, static_cast<double>(view->layout()->peak));
    const auto empty = [](const QColor &c) {
        return c.rgb() == Palette::screen().color(Palette::Role::Base).rgb() || c.rgb() == Palette::screen().color(Palette::Role::ChartGrid).rgb();
    };
    int top = 0;
    while (top < drawn.height() && empty(drawn.pixelColor(peak.x(), top)))
        ++top;
    QVERIFY2(std::abs(top - peak.y()) <= 2, qPrintable(QStringLiteral("the stack's top at the peak is at y %1, the peak's %2").arg(top).arg(peak.y())));
    QTest::mouseClick(view->plotWidget(), Qt::LeftButton, {}, at);
    const std::int32_t stack = view->layout()->bands[static_cast<std::size_t>(largest)].stack;
    QCOMPARE(panel.stackList()->count(), stack < 0 ? 0 : int(s->allocator().stacks[static_cast<std::size_t>(stack)].size()));
    QVERIFY(view->bandText(largest).startsWith(CounterFormat::value(double(view->layout()->bands[std::size_t(largest)].size), CounterFormat::Unit::Bytes)));
    view->detailSlider()->setValue(0);
    QCOMPARE(view->layout()->bands.size(), std::min<std::size_t>(50, view->layout()->allocations));
    QVERIFY(view->noteLabel()->text().contains(QStringLiteral("summed in the grey band")));
    QCOMPARE(view->noteLabel()->text().contains(QStringLiteral("no time stamps")), !clocked);
    QCOMPARE(view->noteLabel()->text().contains(QStringLiteral("reserved memory stayed at")), reservedSteady);
    if (const QString keep = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS"); !keep.isEmpty()) {
        view->detailSlider()->setValue(4);
        QCoreApplication::processEvents();
        QVERIFY(rs::test::keepScreenshot(panel.grab().toImage(), QStringLiteral("allocator-active-%1.png").arg(clocked ? QStringLiteral("clock") : QStringLiteral("order"))));
        panel.tabs()->setCurrentWidget(panel.segmentMap()->parentWidget()->parentWidget());
        QCoreApplication::processEvents();
        QVERIFY(rs::test::keepScreenshot(panel.grab().toImage(), QStringLiteral("allocator-segments-%1.png").arg(clocked ? QStringLiteral("clock") : QStringLiteral("order"))));
    }
    if (!clocked)
        return;
    // One time axis with the timeline: a narrower window there is the chart's window too.
    const TimeRange r = view->layout()->range;
    state.setVisibleRange({r.begin + r.duration() / 4, r.begin + r.duration() / 2});
    QCOMPARE(view->shownRange(), (TimeRange{r.begin + r.duration() / 4, r.begin + r.duration() / 2}));
}

void TestAllocatorPanel::segmentMapBlocks()
{
    ViewState state;
    AllocatorPanel panel(&state);
    panel.resize(800, 500);
    const SessionPtr session = makeSession();
    panel.setSession(session);
    SegmentMapView *map = panel.segmentMap();
    map->resize(700, map->heightForWidth(700));
    // Largest first; a bar's length is its share of the largest segment.
    const auto &segs = session->allocator().segments;
    QCOMPARE(map->order().size(), std::size_t(2));
    QCOMPARE(segs[map->order()[0]].totalSize, 20 * MiB);
    const QRectF whole0 = map->blockRect(int(map->order()[0]), 0).united(map->blockRect(int(map->order()[0]), 2));
    const QRectF whole1 = map->blockRect(int(map->order()[1]), 0).united(map->blockRect(int(map->order()[1]), 1));
    QVERIFY(std::abs(whole1.width() / whole0.width() - 2.0 / 20.0) < 0.02);
    // Blocks in address order, each its share of the bar, found again under the pointer.
    const QRectF b1 = map->blockRect(int(map->order()[0]), 1);
    QVERIFY(std::abs(b1.width() / whole0.width() - 4.0 / 20.0) < 0.01);
    QCOMPARE(map->blockAt(b1.center().toPoint()), std::pair(int(map->order()[0]), 1));
    QSignalSpy stacks(map, &SegmentMapView::stackRequested);
    QTest::mouseClick(map, Qt::LeftButton, {}, b1.center().toPoint());
    QCOMPARE(stacks.size(), 1);
    QCOMPARE(stacks.at(0).at(0).toInt(), 1); // the 4 MiB block's stack
    QCOMPARE(panel.stackList()->count(), 2);
    // The largest alive agree with the summary's allocated total.
    std::int64_t allocated = 0;
    for (const SegmentRecord &seg : segs)
        allocated += seg.allocatedSize;
    QCOMPARE(panel.allocationModel()->totalBytes(), allocated);
    QVERIFY(panel.allocationTotalLabel()->text().contains(CounterFormat::value(double(allocated), CounterFormat::Unit::Bytes)));
}

QTEST_MAIN(TestAllocatorPanel)
#include "test_allocatorpanel.moc"
