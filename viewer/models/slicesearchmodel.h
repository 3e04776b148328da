#pragma once
// The slices (spans) whose name — and, when asked, whose args — match a search, across every rank
// (Edit ▸ Find Slices, Ctrl+F or /). Names are matched once per distinct name in the session's
// string pool, so a search over millions of spans is one pass comparing ids; args are matched span
// by span (and read from the import cache when they were left there), only when asked for.
// searchAsync() runs the pass on the thread pool (a JobTracker: a newer search drops an older one)
// so typing never waits for a search of args over a multi-GB trace; cancelSearch() stops it.

#include "session.h"
#include "viewstate.h"

#include <QAbstractTableModel>
#include <QString>

#include "jobtracker.h"

#include <atomic>
#include <functional>
#include <memory>
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
    /// The same search on the thread pool; the matches replace the list when it finishes
    /// (searchFinished), unless a newer search or cancelSearch() came first.
    void searchAsync(const QString &pattern, bool regex, bool inArgs);
    /// Stops the running search; the list keeps what it showed.
    void cancelSearch();
    /// A searchAsync() is still running.
    bool isSearching() const { return m_jobs.isPending(); }
    bool truncated() const { return m_truncated; }
    QString error() const { return m_error; }
    EventRef eventAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    /// The matches of the newest searchAsync() are in the list.
    void searchFinished();

private:
    struct Match {
        TrackId track;
        std::uint32_t index;
    };
    struct Result {
        std::vector<Match> matches;
        bool truncated = false;
        QString error;
    };
    /// The search itself (any thread): stops early, with what it found so far, when `stop` is set.
    static Result find(const Session *session, const QString &pattern, bool regex, bool inArgs, const std::atomic<bool> &stop);
    void show(Result result);
    const Span &spanOf(const Match &m) const { return m_session->tracks()[m.track].spans[m.index]; }

    SessionPtr m_session;
    std::vector<Match> m_matches;
    bool m_truncated = false;
    QString m_error;
    TimeNs m_origin = 0;
    std::function<TimeNs(RankId)> m_offsetOf;
    JobTracker m_jobs{this};
    std::shared_ptr<std::atomic<bool>> m_stop; // of the running search
};

} // namespace rs
