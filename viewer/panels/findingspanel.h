#pragma once
// "What went wrong": the analysis' findings, most severe first, with their evidence and fix.
// Selecting a finding frames its ranks on the timeline (ViewState::highlight), shows its time
// window and picks its first rank; activating an evidence line jumps to that moment and, when it
// names a log file and line the session holds, asks for that log record to be shown. Below the
// tree the selected finding reads as a short report whose evidence lines are links. Above it all,
// the incident's story (IncidentSummary::headline) says in one paragraph what happened; its
// culprit ranks are links that pick the rank and select the cause.

#include "analysisresult.h"
#include "session.h"
#include "viewstate.h"

#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QModelIndex;
class QStackedWidget;
class QTextBrowser;
class QTreeView;
class QUrl;

namespace rs {

class FindingsFilterModel;
class FindingsModel;

class FindingsPanel : public QWidget
{
    Q_OBJECT
public:
    /// Width of the window shown around a moment (a finding or evidence without an end).
    static constexpr TimeNs kMomentWindowNs = 2'000'000'000;

    explicit FindingsPanel(ViewState *state, QWidget *parent = nullptr);

    /// The session the findings are about (resolves evidence path:line to its log records).
    void setSession(SessionPtr session);
    /// Shows the findings of `result` (null: none). Keeps the selected finding when it still exists
    /// (same id and ranks), without moving the view.
    void setResult(std::shared_ptr<const AnalysisResult> result);

    FindingsModel *model() const { return m_model; }
    FindingsFilterModel *proxy() const { return m_proxy; }
    QTreeView *tree() const { return m_tree; }
    QTextBrowser *detailsView() const { return m_details; }
    /// The story above the list (hidden while there are no findings).
    QLabel *storyLabel() const { return m_story; }
    QComboBox *severityCombo() const { return m_severity; }
    QLineEdit *textFilter() const { return m_text; }
    /// Index into the result's findings of the selected finding; -1 when none.
    int currentFinding() const { return m_current; }
    /// The view-time window shown for `f`: its region with a margin, or a window around its time.
    static std::optional<TimeRange> windowFor(const Finding &f);
    /// The log record `e` names by path and line, if the session has it.
    std::optional<std::uint32_t> logRecordFor(const Evidence &e) const;

public Q_SLOTS:
    /// Selects finding `findingIndex` of the result and shows it (highlight, window, rank).
    void selectFinding(int findingIndex);
    /// Selects the first (most severe, earliest) finding shown; false when there is none.
    bool selectTopFinding();
    /// Jumps to evidence `evidenceIndex` of finding `findingIndex`.
    void activateEvidence(int findingIndex, int evidenceIndex);
    /// Copies the fix of `findingIndex` (default: the selected one) to the clipboard.
    void copyFix(int findingIndex = -1);

Q_SIGNALS:
    /// Evidence named log record `index`: the log panel should select and show it.
    void logRecordRequested(std::uint32_t index);
    /// The selected finding changed (-1: none).
    void currentFindingChanged(int findingIndex);

protected:
    void changeEvent(QEvent *event) override;

private:
    const Finding *findingAt(int findingIndex) const;
    void currentChanged(const QModelIndex &current);
    void activated(const QModelIndex &index);
    void showFinding(int findingIndex, bool move);
    void renderDetails();
    void renderStory();
    /// The details' style sheet in the screen's colours (Palette).
    void applyColors();
    void storyLinkActivated(const QString &link);
    void linkClicked(const QUrl &url);
    void contextMenu(const QPoint &pos);
    void spanChildRows();
    void updateCount();

    ViewState *m_state;
    SessionPtr m_session;
    FindingsModel *m_model;
    FindingsFilterModel *m_proxy;
    QStackedWidget *m_stack;
    QTreeView *m_tree;
    QTextBrowser *m_details;
    QComboBox *m_severity;
    QLineEdit *m_text;
    QLabel *m_count;
    QLabel *m_empty;
    QLabel *m_story;
    int m_current = -1;
    bool m_restoring = false; // re-selecting after a new result: do not move the view
};

} // namespace rs
