#pragma once
// Every log record of the session in one table (NCCL debug output, PyTorch and torchrun messages,
// job log lines), filtered by rank, minimum level, kind and text. Clicking a row selects the record
// (the Details panel shows it, its marker on the log lane gets a ring); double-click or Enter jumps
// the timeline to its time and selects its rank. Selecting a marker on the timeline selects its
// row; picking a rank elsewhere (ViewState::selectedRank) sets the rank filter.

#include "analysisresult.h"
#include "session.h"
#include "viewstate.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTableView;

namespace rs {

class LogFilterModel;
class LogModel;

class LogPanel : public QWidget
{
    Q_OBJECT
public:
    /// Width of the window shown around a record when jumping to it.
    static constexpr TimeNs kJumpWindowNs = 2'000'000'000;

    explicit LogPanel(ViewState *state, QWidget *parent = nullptr);

    void setSession(SessionPtr session);
    /// Passed to the model: placed times of untimed records (null: none).
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);

    LogModel *model() const { return m_model; }
    LogFilterModel *proxy() const { return m_proxy; }
    QTableView *view() const { return m_view; }
    QComboBox *rankCombo() const { return m_rank; }
    QComboBox *levelCombo() const { return m_level; }
    QComboBox *kindCombo() const { return m_kind; }
    QLineEdit *textFilter() const { return m_text; }

public Q_SLOTS:
    /// Shows record `index` on the timeline: a window around its time (when it has one), its rank
    /// selected, the record selected.
    void jumpToRecord(std::uint32_t index);

Q_SIGNALS:
    /// A record was activated (double-click, Enter): the timeline should bring `event` into view.
    void revealRequested(const rs::EventRef &event);

private:
    void rebuildRankCombo();
    void applyFilters();
    void updateCount();
    void followSelection(const EventRef &event);
    void followSelectedRank(RankId rank);
    void rowChanged(const QModelIndex &current);

    ViewState *m_state;
    LogModel *m_model;
    LogFilterModel *m_proxy;
    QStackedWidget *m_stack;
    QTableView *m_view;
    QComboBox *m_rank;
    QComboBox *m_level;
    QComboBox *m_kind;
    QLineEdit *m_text;
    QLabel *m_count;
    bool m_following = false; // set while the table follows the view state, to not echo it back
};

} // namespace rs
