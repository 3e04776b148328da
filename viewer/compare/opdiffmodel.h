#pragma once
// The two-rank diff of op and kernel totals: one row per (kind, name) that ran on rank A or rank B,
// with count, total time and allocated bytes of each side and their change (B − A). Rows arrive in
// RankDiff's order (largest |time change| first); a CompareSortFilterModel sorts by any column and
// filters by name text and kind.

#include "comparesortfiltermodel.h"

#include "compare/rankdiff.h"
#include "session.h"

#include <QAbstractTableModel>

#include <vector>

namespace rs {

class OpDiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,       ///< op or kernel name
        KindColumn,       ///< "op", "kernel", "memcpy/memset"
        CountAColumn,     ///< calls on rank A
        CountBColumn,     ///< calls on rank B
        CountDeltaColumn, ///< B − A
        TimeAColumn,      ///< total time on rank A
        TimeBColumn,      ///< total time on rank B
        TimeDeltaColumn,  ///< B − A
        BytesAColumn,     ///< bytes allocated on rank A
        BytesBColumn,     ///< bytes allocated on rank B
        BytesDeltaColumn, ///< B − A
        ColumnCount
    };
    enum Role {
        SortRole = CompareSortRole,   ///< name text, or the raw number (qint64)
        KindRole = CompareKindRole,   ///< OpKind as int
        OneSidedRole = CompareFirstModelRole, ///< true when the name ran on one rank only
        NameIdRole,                   ///< the interned StringId (uint)
    };

    explicit OpDiffModel(QObject *parent = nullptr);

    /// Shows `rows` of rank `a` against rank `b`; `session` resolves names and must outlive the rows.
    void setDiff(SessionPtr session, std::vector<OpDiffRow> rows, RankId a, RankId b);
    /// Empties the table (a new session, or while a diff is being computed).
    void clear();
    RankId rankA() const { return m_a; }
    RankId rankB() const { return m_b; }
    /// The row's data as computed.
    const OpDiffRow &rowAt(int row) const { return m_rows[std::size_t(row)]; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    SessionPtr m_session;
    std::vector<OpDiffRow> m_rows;
    RankId m_a = kNoRank;
    RankId m_b = kNoRank;
};

/// Colour of a signed change: red when B spends more (time, bytes, calls), green when less, grey
/// for none. Shared by the op and step tables.
QColor deltaColor(double delta);

} // namespace rs
