#pragma once
// The proxy in front of every compare table: sorts by the raw number a model puts in its SortRole
// (a missing value, an invalid QVariant, sorts last in either direction, so "no data" never tops a
// column), filters rows by text on one column, and for the op diff by kind (ops, kernels, copies).

#include <QSortFilterProxyModel>

namespace rs {

/// Roles every compare model answers the same way, so one proxy serves all of them.
enum CompareRole {
    CompareSortRole = Qt::UserRole + 1, ///< the raw number (double/qint64) or text to sort by; invalid when missing
    CompareKindRole,                    ///< the row's OpKind as int (op diff only); invalid elsewhere
    CompareFirstModelRole,              ///< first role number free for a model's own roles
};

class CompareSortFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit CompareSortFilterModel(QObject *parent = nullptr);

    /// Only rows whose CompareKindRole is `kind` (an OpKind as int); -1 shows every kind.
    void setKindFilter(int kind);
    int kindFilter() const { return m_kind; }
    /// Case-insensitive substring filter on filterKeyColumn(); empty shows every row.
    void setTextFilter(const QString &text);

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    int m_kind = -1;
};

} // namespace rs
