#include "logfiltermodel.h"

#include "logmodel.h"
#include "logstyle.h"

#include <QFileInfo>

#include <algorithm>

namespace rs {

LogFilterModel::LogFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(LogModel::SortRole);
}

void LogFilterModel::setRankFilter(std::optional<RankId> rank)
{
    if (rank == m_rank)
        return;
    m_rank = rank;
    invalidateRowsFilter();
}

void LogFilterModel::setMinimumLevel(LogLevel level)
{
    if (level == m_minLevel)
        return;
    m_minLevel = level;
    invalidateRowsFilter();
}

void LogFilterModel::setKindFilter(std::optional<LogKind> kind)
{
    if (kind == m_kind)
        return;
    m_kind = kind;
    invalidateRowsFilter();
}

void LogFilterModel::setTextFilter(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

QModelIndex LogFilterModel::indexOfRecord(std::uint32_t index, int column) const
{
    const auto *logs = qobject_cast<const LogModel *>(sourceModel());
    return logs ? mapFromSource(logs->indexOfRecord(index, column)) : QModelIndex();
}

bool LogFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_rank && i.data(LogModel::RankRole).toInt() != *m_rank)
        return false;
    // Severity as drawn: an OOM message is an error whatever level its writer printed.
    const int severity = std::min(i.data(LogModel::MarkRole).toInt(), static_cast<int>(LogStyle::Mark::Error));
    if (severity < static_cast<int>(m_minLevel))
        return false;
    if (m_kind && i.data(LogModel::KindRole).toInt() != static_cast<int>(*m_kind))
        return false;
    if (m_text.isEmpty())
        return true;
    return i.data(LogModel::TextRole).toString().contains(m_text, Qt::CaseInsensitive)
        || QFileInfo(i.data(LogModel::SourceRole).toString()).fileName().contains(m_text, Qt::CaseInsensitive);
}

} // namespace rs
