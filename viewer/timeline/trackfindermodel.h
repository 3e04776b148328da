#pragma once
// The list behind Ctrl+P (DESIGN.md §5): every lane a rank group can show — CPU threads, GPU
// streams, counters, markers, the memory chart, the step bands and the log lane — one row each,
// named "Rank 2 · CPU python 48213", and a filter that keeps and orders the rows a typed query
// matches. Kept apart from the popup so the matching can be tested without widgets.

#include "lanelayout.h"
#include "session.h"

#include <QAbstractListModel>
#include <QSortFilterProxyModel>
#include <QString>
#include <QStringList>

#include <vector>

namespace rs {

class EvidenceIndex;

class TrackFinderModel : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role {
        RankRole = Qt::UserRole + 1, ///< RankId (int) of the row's rank
        TrackRole,                   ///< TrackId (uint) of the lane's track, kNoTrack for memory, steps and log
        LaneKindRole,                ///< the lane kind's id (QString: "memory", "spans", …)
        SearchTextRole,              ///< lower-case text the filter matches words against
    };

    /// One row: a lane of an expanded rank group.
    struct Entry {
        RankId rank = kNoRank;
        TrackId track = kNoTrack;             ///< kNoTrack for the memory, steps and log lanes
        QString kind;                         ///< the lane kind's id (LaneKind::id())
        QString text;                         ///< what the list shows: "Rank 0 · GPU stream 7"
        QString search;                       ///< lower-case: text plus kind words and ids
    };

    explicit TrackFinderModel(QObject *parent = nullptr);

    /// Lists the lanes of every rank of `session` (null: none), in timeline order. `evidence`
    /// (may be null) says which ranks have timed log records and so a log lane.
    void setSession(const Session *session, const EvidenceIndex *evidence);
    const std::vector<Entry> &entries() const { return m_entries; }

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    std::vector<Entry> m_entries;
};

/// Keeps the rows whose search text contains every word of the query (case-insensitive), best
/// first. "r2", "rank 2" and "rank2" name rank 2 and keep only its rows; a bare number also counts
/// as a rank when it equals the row's rank. Order: more rank-number matches, then more words
/// matching at the start of a word, then timeline order.
class TrackFinderFilter : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit TrackFinderFilter(QObject *parent = nullptr);

    void setQuery(const QString &query);
    QString query() const { return m_query; }

    /// How well `search` (lower-case) of a row of `rank` matches `query`: -1 when it does not,
    /// else higher for better (exposed for the tests and the ordering).
    static int score(const QString &query, RankId rank, const QString &search);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    int rowScore(int sourceRow) const;

    QString m_query;
};

} // namespace rs
