#pragma once
// The slices (spans) whose name — and, when asked, whose args — match a search, across every rank
// (Edit ▸ Find Slices, Ctrl+F or /). Names are matched once per distinct name in the session's
// string pool, so a search over millions of spans is one pass comparing ids; args are matched span
// by span (and read from the import cache when they were left there), only when asked for.

#include "session.h"
#include "viewstate.h"

#include <QAbstractTableModel>
#include <QString>

#include <functional>
#include <vector>

namespace rs {

class SliceSearchModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, RankColumn, StartColumn, DurationColumn, ColumnCount };
    enum Role {
        EventRole = Qt::UserRole + 1, ///< QVariant::fromValue(EventRef) of the span
        StartRole,                    ///< qint64: the span's start (rank clock, ns)
        DurationRole,                 ///< qint64: ns (what the Duration column sorts by)
        RankRole,                     ///< int
    };
    /// The most matches kept; a search with more says so (truncated()).
    static constexpr std::size_t kMaxMatches = 100000;

    explicit SliceSearchModel(QObject *parent = nullptr);

    void setSession(SessionPtr session);
    /// What the Start column counts from and each rank's clock offset (the timeline's t = 0 and
    /// alignment), so the list reads like the ruler.
    void setTimeBase(TimeNs origin, std::function<TimeNs(RankId)> offsetOf);
    /// Runs the search: `pattern` as text (case-insensitive) or, with `regex`, a regular
    /// expression; `inArgs` also matches the args' raw JSON. An empty or invalid pattern matches
    /// nothing (error() says why for an invalid one).
    void search(const QString &pattern, bool regex, bool inArgs);
    bool truncated() const { return m_truncated; }
    QString error() const { return m_error; }
    EventRef eventAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Match {
        TrackId track;
        std::uint32_t index;
    };
    const Span &spanOf(const Match &m) const { return m_session->tracks()[m.track].spans[m.index]; }

    SessionPtr m_session;
    std::vector<Match> m_matches;
    bool m_truncated = false;
    QString m_error;
    TimeNs m_origin = 0;
    std::function<TimeNs(RankId)> m_offsetOf;
};

} // namespace rs
