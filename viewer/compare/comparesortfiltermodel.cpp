#include "comparesortfiltermodel.h"

namespace rs {

CompareSortFilterModel::CompareSortFilterModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(CompareSortRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

void CompareSortFilterModel::setKindFilter(int kind)
{
    if (kind == m_kind)
        return;
    m_kind = kind;
    invalidateFilter();
}

void CompareSortFilterModel::setTextFilter(const QString &text)
{
    setFilterFixedString(text);
}

bool CompareSortFilterModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant l = left.data(sortRole()), r = right.data(sortRole());
    // Qt reverses the comparison for a descending sort; answering by the order keeps missing
    // values at the bottom both ways.
    if (!l.isValid() || !r.isValid()) {
        if (l.isValid() == r.isValid())
            return left.row() < right.row();
        return !l.isValid() ? sortOrder() == Qt::DescendingOrder : sortOrder() == Qt::AscendingOrder;
    }
    if (l.userType() == QMetaType::QString || r.userType() == QMetaType::QString) {
        const int c = l.toString().compare(r.toString(), Qt::CaseInsensitive);
        return c != 0 ? c < 0 : left.row() < right.row();
    }
    const double a = l.toDouble(), b = r.toDouble();
    return a != b ? a < b : left.row() < right.row();
}

bool CompareSortFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_kind >= 0) {
        const QVariant kind = sourceModel()->index(sourceRow, 0, sourceParent).data(CompareKindRole);
        if (kind.isValid() && kind.toInt() != m_kind)
            return false;
    }
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

} // namespace rs
