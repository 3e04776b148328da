#pragma once
// Per-step durations of rank A and rank B side by side, matched by ProfilerStep number, with the
// change (B − A) absolute and relative. A step only one rank ran shows a dash on the other side; a
// step a rank was cut off inside (Step::incomplete) reads "(cut off)", greyed, with no change.

#include "comparesortfiltermodel.h"

#include "compare/rankdiff.h"

#include <QAbstractTableModel>

#include <vector>

namespace rs {

class StepDiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        StepColumn,         ///< ProfilerStep number
        DurationAColumn,    ///< duration on rank A
        DurationBColumn,    ///< duration on rank B
        DeltaColumn,        ///< B − A
        RelativeColumn,     ///< (B − A) / A
        ColumnCount
    };
    enum Role {
        SortRole = CompareSortRole,       ///< the raw number (qint64 ns, or double for the ratio); invalid when missing
        StepNumberRole = CompareFirstModelRole, ///< the step number (qint64)
    };

    explicit StepDiffModel(QObject *parent = nullptr);

    /// Shows `rows` of rank `a` against rank `b`.
    void setSteps(std::vector<StepDiffRow> rows, RankId a, RankId b);
    void clear();
    const StepDiffRow &rowAt(int row) const { return m_rows[std::size_t(row)]; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<StepDiffRow> m_rows;
    RankId m_a = kNoRank;
    RankId m_b = kNoRank;
};

} // namespace rs
