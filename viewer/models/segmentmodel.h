#pragma once
// Models over the caching allocator evidence of a session (Session::allocator()):
// - SegmentModel: a tree, one row per cudaMalloc'd segment at snapshot time with a child row per
//   block; numeric sort keys in SortRole, exact bytes in tooltips, the row's stack in StackRole.
// - SegmentFilterModel: sorting plus a rank filter and a text filter on the rows' stack frames.
// - AllocationModel: the largest allocations, either still alive at the snapshot or overall.
// Helpers format frames ("name (file:line)") and pick the innermost frame outside torch.

#include "session.h"

#include <QAbstractItemModel>
#include <QSortFilterProxyModel>

#include <set>

namespace rs {

/// "name (file:line)".
QString formatStackFrame(const StackFrame &frame);
/// Index into `frames` of the innermost Python frame outside PyTorch (the job's code or the model
/// library it calls; never a native C++ or interpreter frame); else of the innermost Python
/// frame; else 0; -1 when `frames` is empty.
int firstUserFrame(const std::vector<StackFrame> &frames);
/// The frames of stack `stack` of `allocator` (innermost first), or null when it has none (-1 or
/// out of range).
const std::vector<StackFrame> *stackFrames(const AllocatorEvidence &allocator, std::int32_t stack);
/// formatStackFrame() of the firstUserFrame() of stack `stack`; empty when it has no frames.
QString topFrameText(const AllocatorEvidence &allocator, std::int32_t stack);

/// Roles shared by the allocator models.
enum AllocatorRole {
    SortRole = Qt::UserRole + 1, ///< numeric (or string) key the proxy sorts on
    StackRole,                   ///< int: index into AllocatorEvidence::stacks, -1 without frames
    RankRole,                    ///< int: owning rank
    DeviceRole,                  ///< int: CUDA device
    BytesRole,                   ///< qint64: the cell's exact bytes (byte columns only)
    FramesTextRole,              ///< QString: the row's frames, one per line (for filtering)
    IsBlockRole,                 ///< bool: a block row (child of a segment)
};

class SegmentModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { AddressColumn, RankColumn, DeviceColumn, SizeColumn, AllocatedColumn, RequestedColumn,
                  FreeColumn, PoolColumn, StateColumn, ColumnCount };

    explicit SegmentModel(QObject *parent = nullptr);

    void setSession(SessionPtr session);
    const Session *session() const { return m_session.get(); }

    /// The segment (and, for a block row, the block) of `index`; nullptr for an invalid index.
    const SegmentRecord *segment(const QModelIndex &index) const;
    const SegmentRecord::Block *block(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString framesText(std::int32_t stack) const;

    SessionPtr m_session;
};

class SegmentFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit SegmentFilterModel(QObject *parent = nullptr);

    /// Only segments of `rank` (kNoRank: all ranks).
    void setRank(RankId rank);
    /// Only rows whose stack frames contain `text` (case-insensitive; empty: all rows). A segment
    /// with a matching block stays, showing its matching blocks.
    void setFrameText(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    RankId m_rank = kNoRank;
    QString m_text;
};

/// The largest allocations. "Alive" lists the allocated blocks of the snapshot's segments, so its
/// rows add up to the allocated total the dock's summary states (the trace is a ring buffer: what
/// was allocated before it began is alive but not in it); each row takes its time and stack from
/// the trace's allocation at that address when there is one. "All" lists the trace's allocations.
class AllocationModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { SizeColumn, RankColumn, DeviceColumn, AddressColumn, TimeColumn, FreedColumn, FrameColumn,
                  ColumnCount };
    enum class Mode : std::uint8_t { Alive, All };

    explicit AllocationModel(QObject *parent = nullptr);

    void setSession(SessionPtr session);
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    /// At most this many rows, largest first (0: all).
    void setLimit(int limit);
    /// Rows there would be without the limit, and their bytes.
    std::size_t totalCount() const { return m_total; }
    std::int64_t totalBytes() const { return m_totalBytes; }

    /// The trace allocation of `row`, or nullptr (out of range, or a block the trace does not have).
    const AllocationRecord *allocation(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        std::int64_t size = 0;
        RankId rank = kNoRank;
        std::int32_t device = 0;
        std::uint64_t address = 0;
        std::int32_t stack = -1;
        std::int64_t record = -1; ///< index into allocations, -1 when the trace does not have it
        bool alive = true;
    };
    void rebuild();
    bool clocked(const Row &row) const;

    SessionPtr m_session;
    Mode m_mode = Mode::Alive;
    int m_limit = 500;
    std::vector<Row> m_rows; ///< largest first
    std::size_t m_total = 0;
    std::int64_t m_totalBytes = 0;
    std::set<std::pair<RankId, std::int32_t>> m_clockedDevices; ///< snapshots whose trace has time_us
};

} // namespace rs
