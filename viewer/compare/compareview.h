#pragma once
// The compare view: every rank against a reference rank. The "Ranks" tab shows each rank's memory
// and steps as small multiples on the aligned axis over a table of per-rank metrics coloured by
// deviation from the reference; the "Two-rank diff" tab puts rank A's op and kernel totals against
// rank B's (largest differences first) beside their per-step durations, over the steps both ranks
// completed when one of them was cut off inside a step (a checkbox includes everything).
//
// The reference defaults to the median rank (compare/referencerank.h), picked again for every new
// session; the diff defaults to the reference against the most divergent rank (or the one that ran
// out of memory). Op totals of a big trace take a while, so they are computed on the thread pool,
// cached per rank for the session, and a result whose request has been superseded is dropped.

#include "jobtracker.h"
#include "analysisresult.h"
#include "compare/optotals.h"
#include "session.h"
#include "viewstate.h"

#include <QPointer>
#include <QWidget>

#include <map>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace rs {

class TaskMonitor;

class CompareSortFilterModel;
class OpDiffModel;
class RankMetricsModel;
class RanksOverview;
class SmallMultiples;
class TimelineView;
class StepDiffModel;

class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(ViewState *state, QWidget *parent = nullptr);
    ~CompareView() override;

    /// Shows `session` (null clears); the reference is picked again once its analysis arrives.
    void setSession(SessionPtr session);
    /// Metrics, divergence and OOM placements of the current session; may be null.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);

    RankId referenceRank() const { return m_reference; }
    /// Makes `rank` the reference (ignored when the session has no such rank).
    void setReferenceRank(RankId rank);
    /// Compares rank `a` (left) against rank `b` in the diff tab and starts computing the diff.
    void setDiffRanks(RankId a, RankId b);
    RankId diffRankA() const { return m_diffA; }
    RankId diffRankB() const { return m_diffB; }
    /// True when the diff covers only the steps both ranks completed (set on by default for a pair
    /// of which one was cut off inside a step; the checkbox includes everything again).
    bool completedStepsOnly() const;
    /// Sets that scope as the checkbox does (recomputes the diff when it changes).
    void setCompletedStepsOnly(bool only);
    /// Shows the diff tab (true) or the ranks tab (false).
    void showDiff(bool diff);

    /// How the Ranks tab draws the ranks: a small multiple each (memory and steps), or one thin
    /// heat row each (RanksOverview), which a job of hundreds or thousands of ranks needs to fit.
    enum class RanksLayout { SmallMultiples, OverviewRows };
    /// From this many shown ranks on, a new session opens with overview rows.
    static constexpr int kOverviewRanks = 64;
    /// The timeline whose time axis and context the overview rows paint from (they are the same
    /// rows as the Ranks Overview dock). Without one there are only small multiples.
    void setTimeline(TimelineView *timeline);
    RanksLayout ranksLayout() const { return m_layout; }
    void setRanksLayout(RanksLayout layout);
    /// The overview rows (nullptr before setTimeline).
    RanksOverview *overviewRows() const { return m_rows; }

    /// The parts, for the exporter and tests.
    SmallMultiples *smallMultiples() const { return m_multiples; }
    RankMetricsModel *metricsModel() const { return m_metrics; }
    OpDiffModel *opDiffModel() const { return m_ops; }
    StepDiffModel *stepDiffModel() const { return m_steps; }
    CompareSortFilterModel *opDiffProxy() const { return m_opsProxy; }
    /// Cached op totals of `rank` for the current session, or null when not computed yet.
    std::shared_ptr<const RankOpTotals> cachedTotals(RankId rank) const;
    /// True while a diff is being computed.
    bool diffPending() const { return m_jobs.isPending(); }
    /// The line under the diff that says what it holds (or that it is being computed).
    QLabel *diffStatusLabel() const { return m_diffStatus; }
    /// Where the op-totals computation shows its progress and can be cancelled (not owned; may
    /// be null: no task is shown).
    void setTaskMonitor(TaskMonitor *tasks);

Q_SIGNALS:
    void referenceRankChanged(rs::RankId rank);
    /// The diff of the current ranks A and B is on screen.
    void diffReady(rs::RankId a, rs::RankId b);

private:
    void buildUi();
    void fillRankCombos();
    void requestDiff();
    void applyReference(RankId rank, bool emitSignal);
    void pickDefaults();
    void syncSelectedRank(RankId rank);
    TimeNs origin() const;

    QPointer<ViewState> m_state;
    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    RankId m_reference = kNoRank;
    RankId m_diffA = kNoRank;
    RankId m_diffB = kNoRank;
    std::map<RankId, std::shared_ptr<const RankOpTotals>> m_totals;
    JobTracker m_jobs{this}; // op totals and diffs, newest request only
    QPointer<TaskMonitor> m_tasks;
    quint64 m_diffTask = 0;   // the task of the running request
    bool m_updatingCombos = false;

    QTabWidget *m_tabs = nullptr;
    RanksLayout m_layout = RanksLayout::SmallMultiples;
    QStackedWidget *m_ranksPages = nullptr; // small multiples, overview rows
    QComboBox *m_layoutBox = nullptr;
    RanksOverview *m_rows = nullptr;
    QComboBox *m_refCombo = nullptr;
    QLabel *m_refNote = nullptr;
    QCheckBox *m_showRef = nullptr;
    SmallMultiples *m_multiples = nullptr;
    RankMetricsModel *m_metrics = nullptr;
    CompareSortFilterModel *m_metricsProxy = nullptr;
    QTableView *m_metricsTable = nullptr;
    QComboBox *m_aCombo = nullptr;
    QComboBox *m_bCombo = nullptr;
    QLineEdit *m_filter = nullptr;
    QComboBox *m_kind = nullptr;
    QCheckBox *m_completedOnly = nullptr;
    QLabel *m_diffStatus = nullptr;
    OpDiffModel *m_ops = nullptr;
    CompareSortFilterModel *m_opsProxy = nullptr;
    QTableView *m_opsTable = nullptr;
    StepDiffModel *m_steps = nullptr;
    CompareSortFilterModel *m_stepsProxy = nullptr;
    QTableView *m_stepsTable = nullptr;
};

} // namespace rs
