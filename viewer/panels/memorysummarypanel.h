#pragma once
// The memory summaries dock: the latest torch.cuda.memory_summary() of every rank side by side
// (MemorySummaryModel), coloured by how far each cell is from the median of the ranks, with the
// statistic (current, peak, total allocated, total freed) to compare chosen above. Clicking a
// rank's column header selects that rank everywhere (ViewState::selectedRank); the selected rank's
// column is framed in its colour.

#include "analysisresult.h"
#include "session.h"
#include "viewstate.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QStackedWidget;
class QTableView;

namespace rs {

class MemorySummaryModel;

class MemorySummaryPanel : public QWidget
{
    Q_OBJECT
public:
    explicit MemorySummaryPanel(ViewState *state, QWidget *parent = nullptr);

    void setSession(SessionPtr session);
    /// Passed to the model: placed times of untimed records (null: none).
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);

    MemorySummaryModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QComboBox *statisticCombo() const { return m_statistic; }

private:
    void followSelectedRank(RankId rank);
    void updateCaption();

    ViewState *m_state;
    MemorySummaryModel *m_model;
    QStackedWidget *m_stack;
    QTableView *m_view;
    QComboBox *m_statistic;
    QLabel *m_caption;
    QLabel *m_legend;
};

} // namespace rs
