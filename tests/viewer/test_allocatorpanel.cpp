// The allocator dock: the segment tree (rows, blocks, free bytes, sorting, filters), the largest
// allocations, the stack list of the selection, the summary line, and a real snapshot without
// history (its segments still show).

#include "importerregistry.h"
#include "models/segmentmodel.h"
#include "panels/allocatorpanel.h"
#include "sessionbuilder.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
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
};

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
    QCOMPARE(panel.allocationModel()->rowCount(), 0);
    QVERIFY(!panel.summaryLabel()->text().contains(QStringLiteral("No allocator")));
}

QTEST_MAIN(TestAllocatorPanel)
#include "test_allocatorpanel.moc"
