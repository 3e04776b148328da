#pragma once
// The log table's filters: one rank (or the job's agent), a minimum level, one kind and free text,
// all at once. Sorting uses LogModel::SortRole, so times and ranks sort as numbers.

#include "records.h"

#include <QSortFilterProxyModel>

#include <optional>

namespace rs {

class LogFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit LogFilterModel(QObject *parent = nullptr);

    /// Only records of `rank` (kJobLevel: the job's agent, kNoRank: records without a rank);
    /// nullopt: every rank.
    void setRankFilter(std::optional<RankId> rank);
    std::optional<RankId> rankFilter() const { return m_rank; }
    /// Only records at `level` or above (Info: all). Out-of-memory records count as errors.
    void setMinimumLevel(LogLevel level);
    LogLevel minimumLevel() const { return m_minLevel; }
    /// Only records of `kind`; nullopt: every kind.
    void setKindFilter(std::optional<LogKind> kind);
    std::optional<LogKind> kindFilter() const { return m_kind; }
    /// Only records whose message or file name contains `text` (case-insensitive); empty: all.
    void setTextFilter(const QString &text);
    QString textFilter() const { return m_text; }

    /// The proxy row showing record `index` of Session::logs().records, or an invalid index when it
    /// is filtered out.
    QModelIndex indexOfRecord(std::uint32_t index, int column = 0) const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    std::optional<RankId> m_rank;
    LogLevel m_minLevel = LogLevel::Info;
    std::optional<LogKind> m_kind;
    QString m_text;
};

} // namespace rs
