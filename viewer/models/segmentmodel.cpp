#include "segmentmodel.h"

#include "activememory.h"
#include "counterformat.h"
#include "timeformat.h"

#include <QLocale>

#include <algorithm>
#include <map>
#include <tuple>
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

// The code that asked for the memory: Python outside PyTorch itself (the job's script, or the model
// library it calls: transformers' modeling_llama.py tells layers apart where the script's one
// train() line does not), on Linux and Windows paths alike; never a native frame (C++ and the
// interpreter: "??", .cpp, .c, .h).
bool isPython(const StackFrame &f)
{
    const std::string &p = f.filename;
    return p.size() > 3 && p.compare(p.size() - 3, 3, ".py") == 0;
}

bool isLibrary(const StackFrame &f)
{
    std::string p = f.filename;
    std::replace(p.begin(), p.end(), '\\', '/');
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
        if (isPython(frames[i]) && !isLibrary(frames[i]))
            return static_cast<int>(i);
    for (std::size_t i = 0; i < frames.size(); ++i) // only library code: its first Python frame
        if (isPython(frames[i]))
            return static_cast<int>(i);
    return 0;
}

const std::vector<StackFrame> *stackFrames(const AllocatorEvidence &allocator, std::int32_t stack)
{
    return stack >= 0 && static_cast<std::size_t>(stack) < allocator.stacks.size() ? &allocator.stacks[static_cast<std::size_t>(stack)]
                                                                                    : nullptr;
}

QString topFrameText(const AllocatorEvidence &allocator, std::int32_t stack)
{
    const std::vector<StackFrame> *frames = stackFrames(allocator, stack);
    const int top = frames ? firstUserFrame(*frames) : -1;
    return top < 0 ? QString() : formatStackFrame((*frames)[static_cast<std::size_t>(top)]);
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
    const std::vector<StackFrame> *frames = stackFrames(m_session->allocator(), stack);
    if (!frames)
        return {};
    QStringList lines;
    for (const StackFrame &f : *frames)
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
    m_total = 0;
    m_totalBytes = 0;
    if (m_session) {
        const AllocatorEvidence &ev = m_session->allocator();
        const auto &allocs = ev.allocations;
        if (m_mode == Mode::All) {
            for (std::uint32_t i = 0; i < allocs.size(); ++i)
                m_rows.push_back({allocs[i].size, allocs[i].rank, allocs[i].device, allocs[i].address, allocs[i].stack, i,
                                  allocs[i].freed == kNoTime});
        } else {
            // The trace's still-alive allocation at each address, to date the blocks it made.
            std::map<std::tuple<RankId, std::int32_t, std::uint64_t>, std::uint32_t> aliveAt;
            for (std::uint32_t i = 0; i < allocs.size(); ++i)
                if (allocs[i].freed == kNoTime)
                    aliveAt[{allocs[i].rank, allocs[i].device, allocs[i].address}] = i;
            for (const SegmentRecord &seg : ev.segments)
                for (const auto &block : seg.blocks) {
                    if (block.state != SegmentRecord::Block::State::Allocated)
                        continue;
                    Row r{block.size, seg.rank, seg.device, block.address, block.stack, -1, true};
                    if (const auto it = aliveAt.find({seg.rank, seg.device, block.address}); it != aliveAt.end()) {
                        r.record = it->second;
                        if (r.stack < 0)
                            r.stack = allocs[it->second].stack;
                    }
                    m_rows.push_back(r);
                }
        }
        // A trace without time_us places entries 1 µs apart: its times are an order, not dates. The
        // snapshot's memory track says which.
        m_clockedDevices = ActiveMemory::clockedDevices(*m_session);
        m_total = m_rows.size();
        for (const Row &r : m_rows)
            m_totalBytes += r.size;
        auto larger = [](const Row &a, const Row &b) {
            if (a.size != b.size)
                return a.size > b.size;
            return std::tie(a.rank, a.device, a.address) < std::tie(b.rank, b.device, b.address);
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
    if (!m_session || row < 0 || static_cast<std::size_t>(row) >= m_rows.size() || m_rows[static_cast<std::size_t>(row)].record < 0)
        return nullptr;
    return &m_session->allocator().allocations[static_cast<std::size_t>(m_rows[static_cast<std::size_t>(row)].record)];
}

int AllocationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AllocationModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool AllocationModel::clocked(const Row &row) const
{
    return m_clockedDevices.count({row.rank, row.device}) > 0;
}

QVariant AllocationModel::data(const QModelIndex &index, int role) const
{
    if (!m_session || !index.isValid() || index.row() < 0 || static_cast<std::size_t>(index.row()) >= m_rows.size())
        return {};
    const Row &r = m_rows[static_cast<std::size_t>(index.row())];
    const AllocationRecord *a = allocation(index.row());
    const std::vector<StackFrame> *frames = stackFrames(m_session->allocator(), r.stack);
    switch (role) {
    case StackRole:
        return r.stack;
    case RankRole:
        return r.rank;
    case DeviceRole:
        return r.device;
    case BytesRole:
        return index.column() == SizeColumn ? QVariant(static_cast<qlonglong>(r.size)) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == SizeColumn)
            return exactBytes(r.size);
        if (index.column() == TimeColumn && !a)
            return tr("Allocated before the snapshot's trace begins (the trace is a ring buffer of the latest entries)");
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
            return bytes(r.size);
        case RankColumn:
            return rankText(r.rank);
        case DeviceColumn:
            return r.device;
        case AddressColumn:
            return hex(r.address);
        case TimeColumn:
            if (!a)
                return tr("before the trace");
            return clocked(r) ? TimeFormat::wallClock(a->time) : tr("#%1").arg(a->sequence);
        case FreedColumn:
            if (r.alive)
                return tr("alive");
            return a && clocked(r) ? TimeFormat::wallClock(a->freed) : tr("freed");
        case FrameColumn: {
            if (!frames)
                return r.stack < 0 ? tr("(no stack recorded)") : QString();
            return topFrameText(m_session->allocator(), r.stack);
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
