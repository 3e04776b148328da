#include "segmentmodel.h"

#include "counterformat.h"
#include "timeformat.h"

#include <QLocale>

#include <algorithm>
#include <optional>

namespace rs {

namespace {

QString bytes(std::int64_t n)
{
    return CounterFormat::value(static_cast<double>(n), CounterFormat::Unit::Bytes);
}

QString exactBytes(std::int64_t n)
{
    return QObject::tr("%1 bytes").arg(QLocale::system().toString(static_cast<qlonglong>(n)));
}

QString hex(std::uint64_t a)
{
    return QStringLiteral("0x%1").arg(a, 0, 16);
}

QString rankText(RankId r)
{
    return r == kNoRank ? QStringLiteral("?") : QString::number(r);
}

bool insideTorch(const StackFrame &f)
{
    const std::string &p = f.filename;
    return p.find("/torch/") != std::string::npos || p.rfind("torch/", 0) == 0;
}

QString blockState(SegmentRecord::Block::State s)
{
    switch (s) {
    case SegmentRecord::Block::State::Allocated:
        return QObject::tr("allocated");
    case SegmentRecord::Block::State::AwaitingFree:
        return QObject::tr("awaiting free");
    case SegmentRecord::Block::State::Inactive:
        return QObject::tr("free");
    }
    return {};
}

} // namespace

QString formatStackFrame(const StackFrame &frame)
{
    return QStringLiteral("%1 (%2:%3)")
        .arg(QString::fromStdString(frame.name), QString::fromStdString(frame.filename))
        .arg(frame.line);
}

int firstUserFrame(const std::vector<StackFrame> &frames)
{
    if (frames.empty())
        return -1;
    for (std::size_t i = 0; i < frames.size(); ++i)
        if (!insideTorch(frames[i]))
            return static_cast<int>(i);
    return 0;
}

// ---- SegmentModel -------------------------------------------------------------------------------
// internalId: 0 for segment rows, segment index + 1 for block rows.

SegmentModel::SegmentModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void SegmentModel::setSession(SessionPtr session)
{
    beginResetModel();
    m_session = std::move(session);
    endResetModel();
}

const SegmentRecord *SegmentModel::segment(const QModelIndex &index) const
{
    if (!index.isValid() || !m_session)
        return nullptr;
    const auto &segs = m_session->allocator().segments;
    const std::size_t s = index.internalId() == 0 ? static_cast<std::size_t>(index.row()) : index.internalId() - 1;
    return s < segs.size() ? &segs[s] : nullptr;
}

const SegmentRecord::Block *SegmentModel::block(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() == 0)
        return nullptr;
    const SegmentRecord *seg = segment(index);
    if (!seg || index.row() < 0 || static_cast<std::size_t>(index.row()) >= seg->blocks.size())
        return nullptr;
    return &seg->blocks[static_cast<std::size_t>(index.row())];
}

QModelIndex SegmentModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, quintptr(0));
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex SegmentModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int SegmentModel::rowCount(const QModelIndex &parent) const
{
    if (!m_session)
        return 0;
    if (!parent.isValid())
        return static_cast<int>(m_session->allocator().segments.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    const SegmentRecord *seg = segment(parent);
    return seg ? static_cast<int>(seg->blocks.size()) : 0;
}

int SegmentModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QString SegmentModel::framesText(std::int32_t stack) const
{
    const auto &stacks = m_session->allocator().stacks;
    if (stack < 0 || static_cast<std::size_t>(stack) >= stacks.size())
        return {};
    QStringList lines;
    for (const StackFrame &f : stacks[static_cast<std::size_t>(stack)])
        lines << formatStackFrame(f);
    return lines.join(QLatin1Char('\n'));
}

QVariant SegmentModel::data(const QModelIndex &index, int role) const
{
    const SegmentRecord *seg = segment(index);
    if (!seg)
        return {};
    const SegmentRecord::Block *blk = block(index);
    const bool isBlock = index.internalId() != 0;
    if (isBlock && !blk)
        return {};
    const int col = index.column();

    switch (role) {
    case IsBlockRole:
        return isBlock;
    case RankRole:
        return seg->rank;
    case DeviceRole:
        return seg->device;
    case StackRole:
        return isBlock ? blk->stack : seg->stack;
    case FramesTextRole:
        return framesText(isBlock ? blk->stack : seg->stack);
    default:
        break;
    }

    // Exact byte values of the byte columns (invalid where the cell is empty).
    auto cellBytes = [&]() -> std::optional<std::int64_t> {
        switch (col) {
        case SizeColumn:
            return isBlock ? blk->size : seg->totalSize;
        case AllocatedColumn:
            if (isBlock)
                return blk->state == SegmentRecord::Block::State::Inactive ? std::int64_t(0) : blk->size;
            return seg->allocatedSize;
        case RequestedColumn:
            if (isBlock)
                return blk->state == SegmentRecord::Block::State::Inactive ? std::nullopt
                                                                            : std::optional<std::int64_t>(blk->requested);
            return std::nullopt;
        case FreeColumn:
            if (isBlock)
                return blk->state == SegmentRecord::Block::State::Inactive ? blk->size : std::int64_t(0);
            return seg->totalSize - seg->allocatedSize;
        default:
            return std::nullopt;
        }
    };

    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case AddressColumn:
            return hex(isBlock ? blk->address : seg->address);
        case RankColumn:
            return rankText(seg->rank);
        case DeviceColumn:
            return seg->device;
        case PoolColumn:
            return isBlock ? QString() : (seg->large ? tr("large") : tr("small"));
        case StateColumn: {
            if (isBlock)
                return blockState(blk->state);
            QStringList flags;
            if (seg->expandable)
                flags << tr("expandable");
            if (seg->privatePool)
                flags << tr("private pool");
            return flags.join(QStringLiteral(", "));
        }
        default:
            if (const auto b = cellBytes())
                return bytes(*b);
            return {};
        }
    case Qt::ToolTipRole:
        if (const auto b = cellBytes())
            return exactBytes(*b);
        if (col == AddressColumn) {
            const QString frames = framesText(isBlock ? blk->stack : seg->stack);
            return frames.isEmpty() ? QVariant() : QVariant(frames);
        }
        return {};
    case BytesRole:
        if (const auto b = cellBytes())
            return static_cast<qlonglong>(*b);
        return {};
    case SortRole:
        switch (col) {
        case AddressColumn:
            return static_cast<qulonglong>(isBlock ? blk->address : seg->address);
        case RankColumn:
            return seg->rank;
        case DeviceColumn:
            return seg->device;
        case PoolColumn:
            return isBlock ? QString() : (seg->large ? tr("large") : tr("small"));
        case StateColumn:
            return data(index, Qt::DisplayRole);
        default:
            if (const auto b = cellBytes())
                return static_cast<qlonglong>(*b);
            return qlonglong(-1);
        }
    case Qt::TextAlignmentRole:
        if (col >= SizeColumn && col <= FreeColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QVariant SegmentModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case AddressColumn:
        return tr("Address");
    case RankColumn:
        return tr("Rank");
    case DeviceColumn:
        return tr("Device");
    case SizeColumn:
        return tr("Size");
    case AllocatedColumn:
        return tr("Allocated");
    case RequestedColumn:
        return tr("Requested");
    case FreeColumn:
        return tr("Free");
    case PoolColumn:
        return tr("Pool");
    case StateColumn:
        return tr("State / flags");
    default:
        return {};
    }
}

// ---- SegmentFilterModel -------------------------------------------------------------------------

SegmentFilterModel::SegmentFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SortRole);
    setRecursiveFilteringEnabled(true);
}

void SegmentFilterModel::setRank(RankId rank)
{
    if (rank == m_rank)
        return;
    m_rank = rank;
    invalidateRowsFilter();
}

void SegmentFilterModel::setFrameText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

bool SegmentFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_rank != kNoRank && idx.data(RankRole).toInt() != m_rank)
        return false;
    if (m_text.isEmpty())
        return true;
    return idx.data(FramesTextRole).toString().contains(m_text, Qt::CaseInsensitive);
}

// ---- AllocationModel ----------------------------------------------------------------------------

AllocationModel::AllocationModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void AllocationModel::setSession(SessionPtr session)
{
    m_session = std::move(session);
    rebuild();
}

void AllocationModel::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    rebuild();
}

void AllocationModel::setLimit(int limit)
{
    m_limit = limit;
    rebuild();
}

void AllocationModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    if (m_session) {
        const auto &allocs = m_session->allocator().allocations;
        for (std::uint32_t i = 0; i < allocs.size(); ++i)
            if (m_mode == Mode::All || allocs[i].freed == kNoTime)
                m_rows.push_back(i);
        auto larger = [&allocs](std::uint32_t a, std::uint32_t b) {
            if (allocs[a].size != allocs[b].size)
                return allocs[a].size > allocs[b].size;
            return a < b;
        };
        if (m_limit > 0 && m_rows.size() > static_cast<std::size_t>(m_limit)) {
            std::partial_sort(m_rows.begin(), m_rows.begin() + m_limit, m_rows.end(), larger);
            m_rows.resize(static_cast<std::size_t>(m_limit));
        } else {
            std::sort(m_rows.begin(), m_rows.end(), larger);
        }
    }
    endResetModel();
}

const AllocationRecord *AllocationModel::allocation(int row) const
{
    if (!m_session || row < 0 || static_cast<std::size_t>(row) >= m_rows.size())
        return nullptr;
    return &m_session->allocator().allocations[m_rows[static_cast<std::size_t>(row)]];
}

int AllocationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AllocationModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool AllocationModel::hasClock(const AllocationRecord &a) const
{
    return a.time != kNoTime;
}

QVariant AllocationModel::data(const QModelIndex &index, int role) const
{
    const AllocationRecord *a = allocation(index.row());
    if (!a || !index.isValid())
        return {};
    const auto &stacks = m_session->allocator().stacks;
    const std::vector<StackFrame> *frames =
        a->stack >= 0 && static_cast<std::size_t>(a->stack) < stacks.size() ? &stacks[static_cast<std::size_t>(a->stack)] : nullptr;
    switch (role) {
    case StackRole:
        return a->stack;
    case RankRole:
        return a->rank;
    case DeviceRole:
        return a->device;
    case BytesRole:
        return index.column() == SizeColumn ? QVariant(static_cast<qlonglong>(a->size)) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == SizeColumn)
            return exactBytes(a->size);
        if (index.column() == FrameColumn && frames) {
            QStringList lines;
            for (const StackFrame &f : *frames)
                lines << formatStackFrame(f);
            return lines.join(QLatin1Char('\n'));
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == SizeColumn ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::DisplayRole:
        switch (index.column()) {
        case SizeColumn:
            return bytes(a->size);
        case RankColumn:
            return rankText(a->rank);
        case DeviceColumn:
            return a->device;
        case AddressColumn:
            return hex(a->address);
        case TimeColumn:
            return hasClock(*a) ? TimeFormat::wallClock(a->time) : tr("#%1").arg(a->sequence);
        case FreedColumn:
            if (a->freed == kNoTime)
                return tr("alive");
            return hasClock(*a) ? TimeFormat::wallClock(a->freed) : tr("freed");
        case FrameColumn: {
            if (!frames)
                return {};
            const int i = firstUserFrame(*frames);
            return i < 0 ? QString() : formatStackFrame((*frames)[static_cast<std::size_t>(i)]);
        }
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant AllocationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SizeColumn:
        return tr("Size");
    case RankColumn:
        return tr("Rank");
    case DeviceColumn:
        return tr("Device");
    case AddressColumn:
        return tr("Address");
    case TimeColumn:
        return tr("Allocated at");
    case FreedColumn:
        return tr("Freed");
    case FrameColumn:
        return tr("Frame");
    default:
        return {};
    }
}

} // namespace rs
