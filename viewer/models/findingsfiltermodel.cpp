#include "findingsfiltermodel.h"

#include "findingsmodel.h"

namespace rs {

FindingsFilterModel::FindingsFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    // Rows are already in severity-then-time order; sorting would only undo it.
    setDynamicSortFilter(false);
}

void FindingsFilterModel::setMinimumSeverity(Severity minimum)
{
    if (minimum == m_minimum)
        return;
    m_minimum = minimum;
    invalidateFilter();
}

void FindingsFilterModel::setText(const QString &text)
{
    const QString t = text.trimmed();
    if (t == m_text)
        return;
    m_text = t;
    invalidateFilter();
}

bool FindingsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (sourceParent.isValid())
        return true;
    const QModelIndex row = sourceModel()->index(sourceRow, 0, sourceParent);
    if (row.data(FindingsModel::SeverityRole).toInt() < static_cast<int>(m_minimum))
        return false;
    if (m_text.isEmpty())
        return true;
    auto matches = [this](const QString &s) { return s.contains(m_text, Qt::CaseInsensitive); };
    for (int c = 0; c < FindingsModel::ColumnCount; ++c)
        if (matches(sourceModel()->index(sourceRow, c).data().toString()))
            return true;
    const int children = sourceModel()->rowCount(row);
    for (int i = 0; i < children; ++i)
        if (matches(sourceModel()->index(i, 0, row).data(FindingsModel::TextRole).toString()))
            return true;
    return false;
}

} // namespace rs
