#include "allocatorpanel.h"

#include "allocator/activememoryview.h"
#include "allocator/segmentmapview.h"
#include "counterformat.h"
#include "models/segmentmodel.h"
#include "plural.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <set>

namespace rs {

namespace {

QString bytes(std::int64_t n)
{
    return CounterFormat::value(static_cast<double>(n), CounterFormat::Unit::Bytes);
}

} // namespace

AllocatorPanel::AllocatorPanel(ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_state(state)
    , m_segments(new SegmentModel(this))
    , m_proxy(new SegmentFilterModel(this))
    , m_allocations(new AllocationModel(this))
{
    m_proxy->setSourceModel(m_segments);

    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Segments tab.
    m_rank = new QComboBox;
    m_rank->addItem(tr("All ranks"), kNoRank);
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter by stack frame…"));
    m_filter->setClearButtonEnabled(true);
    m_segmentView = new QTreeView;
    m_segmentView->setModel(m_proxy);
    m_segmentView->setSortingEnabled(true);
    m_segmentView->sortByColumn(SegmentModel::SizeColumn, Qt::DescendingOrder);
    m_segmentView->setUniformRowHeights(true);
    m_segmentView->setAlternatingRowColors(true);
    auto *segPage = new QWidget;
    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(m_rank);
    filterRow->addWidget(m_filter, 1);
    auto *segLayout = new QVBoxLayout(segPage);
    segLayout->setContentsMargins(0, 0, 0, 0);
    segLayout->addLayout(filterRow);
    segLayout->addWidget(m_segmentView, 1);

    // Allocations tab.
    m_mode = new QComboBox;
    m_mode->addItem(tr("Largest alive at the snapshot"), static_cast<int>(AllocationModel::Mode::Alive));
    m_mode->addItem(tr("Largest overall"), static_cast<int>(AllocationModel::Mode::All));
    m_allocationView = new QTableView;
    m_allocationView->setModel(m_allocations);
    m_allocationView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_allocationView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_allocationView->verticalHeader()->hide();
    m_allocationView->horizontalHeader()->setStretchLastSection(true);
    // The columns fit their text; the frame takes what is left.
    m_allocationView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_allocationView->horizontalHeader()->setSectionResizeMode(AllocationModel::FrameColumn, QHeaderView::Stretch);
    m_allocationTotal = new QLabel;
    auto *allocPage = new QWidget;
    auto *allocLayout = new QVBoxLayout(allocPage);
    allocLayout->setContentsMargins(0, 0, 0, 0);
    auto *modeRow = new QHBoxLayout;
    modeRow->addWidget(m_mode);
    modeRow->addWidget(m_allocationTotal, 1);
    allocLayout->addLayout(modeRow);
    allocLayout->addWidget(m_allocationView, 1);

    m_active = new ActiveMemoryView(state);
    m_map = new SegmentMapView;
    m_mapPage = new QScrollArea;
    m_mapPage->setWidget(m_map);
    m_mapPage->setWidgetResizable(true);

    m_tabs = new QTabWidget;
    m_tabs->addTab(m_active, tr("Active memory"));
    m_tabs->addTab(m_mapPage, tr("Segment map"));
    m_tabs->addTab(segPage, tr("Segments"));
    m_tabs->addTab(allocPage, tr("Allocations"));

    m_stack = new QListWidget;
    m_stack->setAlternatingRowColors(true);

    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(m_tabs);
    split->addWidget(m_stack);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_rank, &QComboBox::currentIndexChanged, this,
            [this](int) { m_proxy->setRank(static_cast<RankId>(m_rank->currentData().toInt())); });
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &SegmentFilterModel::setFrameText);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int) {
        m_allocations->setMode(static_cast<AllocationModel::Mode>(m_mode->currentData().toInt()));
        updateAllocationTotal();
    });
    connect(m_active, &ActiveMemoryView::stackRequested, this, &AllocatorPanel::showStack);
    connect(m_map, &SegmentMapView::stackRequested, this, &AllocatorPanel::showStack);
    connect(m_segmentView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                showStack(current.isValid() ? current.data(StackRole).toInt() : -1);
            });
    connect(m_allocationView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                showStack(current.isValid() ? current.data(StackRole).toInt() : -1);
            });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int) {
        const QWidget *page = m_tabs->currentWidget();
        const QModelIndex cur = page == m_segmentView->parentWidget() ? m_segmentView->currentIndex()
            : page == m_allocationView->parentWidget()               ? m_allocationView->currentIndex()
                                                                     : QModelIndex();
        showStack(cur.isValid() ? cur.data(StackRole).toInt() : -1);
    });
    updateSummary();
}

void AllocatorPanel::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_segments->setSession(m_session);
    m_allocations->setSession(m_session);
    m_active->setSession(m_session);
    m_map->setSession(m_session);
    updateAllocationTotal();
    // A snapshot without history has no timeline: its segments are what it shows.
    if (m_session && !m_session->allocator().empty() && !m_active->layout())
        m_tabs->setCurrentWidget(m_mapPage);
    updateRanks();
    updateSummary();
    showStack(-1);
    for (int c = 0; c < SegmentModel::ColumnCount; ++c)
        m_segmentView->resizeColumnToContents(c);
    m_allocationView->resizeColumnsToContents();
}

void AllocatorPanel::updateRanks()
{
    const QSignalBlocker block(m_rank);
    m_rank->clear();
    m_rank->addItem(tr("All ranks"), kNoRank);
    std::set<RankId> ranks;
    if (m_session)
        for (const SegmentRecord &s : m_session->allocator().segments)
            ranks.insert(s.rank);
    for (RankId r : ranks)
        if (r != kNoRank)
            m_rank->addItem(tr("Rank %1").arg(r), r);
    m_rank->setEnabled(ranks.size() > 1);
    m_proxy->setRank(kNoRank);
}

void AllocatorPanel::updateSummary()
{
    if (!m_session || m_session->allocator().empty()) {
        m_summary->setText(tr("No allocator snapshot in this session."));
        return;
    }
    struct Totals {
        int segments = 0;
        std::int64_t reserved = 0, allocated = 0, largestFree = 0;
    };
    std::map<std::pair<RankId, std::int32_t>, Totals> byDevice;
    for (const SegmentRecord &s : m_session->allocator().segments) {
        Totals &t = byDevice[{s.rank, s.device}];
        ++t.segments;
        t.reserved += s.totalSize;
        t.allocated += s.allocatedSize;
        for (const auto &b : s.blocks)
            if (b.state == SegmentRecord::Block::State::Inactive)
                t.largestFree = std::max(t.largestFree, b.size);
    }
    if (byDevice.empty()) {
        m_summary->setText(tr("%1 in the trace; the snapshot has no segments.")
                               .arg(countOf(static_cast<qint64>(m_session->allocator().allocations.size()),
                                            tr("allocation"), tr("allocations"))));
        return;
    }
    QStringList parts;
    for (const auto &[key, t] : byDevice) {
        const QString who = key.first == kNoRank ? tr("GPU %1").arg(key.second)
                                                 : tr("Rank %1 GPU %2").arg(key.first).arg(key.second);
        const std::int64_t free = t.reserved - t.allocated;
        const double pct = t.reserved > 0 ? 100.0 * static_cast<double>(free) / static_cast<double>(t.reserved) : 0.0;
        parts << tr("%1: %2, %3 reserved, %4 allocated, %5 free in segments (%6 %), largest free block %7")
                     .arg(who, countOf(t.segments, tr("segment"), tr("segments")), bytes(t.reserved), bytes(t.allocated), bytes(free), QString::number(pct, 'f', 1),
                          bytes(t.largestFree));
    }
    m_summary->setText(parts.join(QStringLiteral("; ")));
}

void AllocatorPanel::updateAllocationTotal()
{
    const bool alive = m_allocations->mode() == AllocationModel::Mode::Alive;
    const QString total = bytes(m_allocations->totalBytes());
    const QString count = countOf(static_cast<qint64>(m_allocations->totalCount()), alive ? tr("allocated block") : tr("allocation"),
                                  alive ? tr("allocated blocks") : tr("allocations"));
    m_allocationTotal->setText(alive ? tr("%1 in the segments, %2 in all (the allocated total above)").arg(count, total)
                                     : tr("%1 in the trace, %2 in all").arg(count, total));
}

void AllocatorPanel::showStack(std::int32_t stack)
{
    m_stack->clear();
    const std::vector<StackFrame> *frames = m_session ? stackFrames(m_session->allocator(), stack) : nullptr;
    if (!frames)
        return;
    for (const StackFrame &f : *frames)
        m_stack->addItem(formatStackFrame(f));
}

} // namespace rs
