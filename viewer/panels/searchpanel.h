#pragma once
// Find Slices (Ctrl+F or /): a search field over every rank's slices by name (and args), the match
// count, Enter / Shift+Enter to step to the next / previous match (selected on the timeline, which
// scrolls to it), and the matches as a list that sorts by any column (the longest first by
// Duration). Searches as the user types, after a short pause.

#include "session.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class QToolButton;

namespace rs {

class SliceSearchModel;
class ViewState;
struct EventRef;

class SearchPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SearchPanel(ViewState *state, QWidget *parent = nullptr);

    void setSession(SessionPtr session);
    /// Puts the cursor in the search field with its text selected.
    void focusSearch();
    /// Starts the search now (instead of after the typing pause); it runs on the pool and the
    /// list fills when it is done (SliceSearchModel::searchFinished).
    void searchNow();
    /// Selects the next (`step` 1) or previous (-1) match in the list's order, wrapping around;
    /// while a search runs, once it is done.
    void step(int step);
    /// Stops the running search (the Stop button beside the count).
    void cancelSearch();

    QLineEdit *field() const { return m_field; }
    QLabel *countLabel() const { return m_count; }
    QToolButton *stopButton() const { return m_stop; }
    QTableView *results() const { return m_view; }
    SliceSearchModel *model() const { return m_model; }

Q_SIGNALS:
    /// The timeline should bring `event` into view.
    void revealRequested(const rs::EventRef &event);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void selectRow(int proxyRow);
    void updateCount();

    ViewState *m_state;
    SliceSearchModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_field;
    QCheckBox *m_regex;
    QCheckBox *m_args;
    QLabel *m_count;
    QToolButton *m_stop;
    QTableView *m_view;
    QTimer *m_typing;
    QString m_searched; // what the model holds the matches of ("pattern|regex|args")
    int m_current = -1; // proxy row of the selected match
    int m_pendingStep = 0; // Enter pressed while the search ran: step this way when it is done
    bool m_cancelled = false; // the last search was stopped: the count says so
};

} // namespace rs
