#pragma once
// Ctrl+P over the timeline (DESIGN.md §5): a quick-open popup, like Perfetto's omnibox or VS Code's
// Ctrl+P, that lists every lane of the session (TrackFinderModel), filters it as you type, and on
// Enter or a click shows the chosen lane: its rank un-hidden and expanded, the view scrolled to it,
// and the lane flashed so the eye finds it. Up/Down move, Esc or a click elsewhere closes.

#include "lanelayout.h"
#include "session.h"

#include <QFrame>

class QLineEdit;
class QListView;

namespace rs {

class EvidenceIndex;
class TimelineView;
class TrackFinderFilter;
class TrackFinderModel;

class TrackFinder : public QFrame
{
    Q_OBJECT
public:
    /// How long the chosen lane flashes.
    static constexpr int kFlashMs = 1200;

    /// A popup over `view` (its parent), hidden until open().
    explicit TrackFinder(TimelineView *view);

    /// Lists the lanes of `session` (null: none; `evidence`, may be null, tells which ranks have a
    /// log lane), shows the popup at the top of the view with the last query selected and takes
    /// the keyboard focus.
    void open(const Session *session, const EvidenceIndex *evidence);
    /// Hides the popup and gives the focus back to the timeline.
    void dismiss();

    QLineEdit *lineEdit() const { return m_edit; }
    QListView *listView() const { return m_list; }
    TrackFinderModel *model() const { return m_model; }
    TrackFinderFilter *filter() const { return m_filter; }

    /// Shows lane `kind` of `rank` (the lane of `track` when it is not kNoTrack) in `view`: the rank
    /// un-hidden and expanded, scrolled into view, flashed for kFlashMs. False when there is no
    /// such lane.
    static bool goToLane(TimelineView *view, RankId rank, const QString &kind, TrackId track);

Q_SIGNALS:
    /// A lane was chosen and shown.
    void laneChosen(rs::RankId rank, rs::TrackId track);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void activate(const QModelIndex &index); // a row of m_filter
    void moveCurrent(int delta);
    void place();
    void applyTheme();

    TimelineView *m_view;
    QLineEdit *m_edit;
    QListView *m_list;
    TrackFinderModel *m_model;
    TrackFinderFilter *m_filter;
    bool m_theming = false; // applying the theme's style sheet sends change events of its own
};

} // namespace rs
