#pragma once
// Every rank's clock offset: the value, how the analysis found it (matched collectives, steps,
// the source's wall clock, an anchor, the user, nothing), how well it fits (residual) and on how
// many anchors it rests. A Low-confidence estimate shows a warning icon and colour in the Method
// column (Qt::UserRole true), with the reason as its tooltip. An offset can be typed in µs or reset to the estimate; each change emits
// the user's overrides, and the owner applies them to the view at once and re-runs the analysis.

#include "analysisresult.h"

#include <QHash>
#include <QWidget>

#include <map>
#include <memory>
#include <optional>

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace rs {

class ClockOffsetsPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { RankColumn, OffsetColumn, MethodColumn, ResidualColumn, AnchorsColumn, ResetColumn, ColumnCount };

    explicit ClockOffsetsPanel(QWidget *parent = nullptr);

    /// Shows the alignment of `result` (null: nothing). The estimates of ranks the user did not
    /// override are remembered, so "Reset" can restore them before the re-analysis returns.
    void setResult(std::shared_ptr<const AnalysisResult> result);
    /// Forgets the user's overrides and the remembered estimates (a new session).
    void clear();

    /// The user's overrides (rank → ns); ranks not in it are estimated by the analysis.
    const std::map<RankId, TimeNs> &overrides() const { return m_overrides; }
    /// What the view should apply now: the estimates with the overrides on top.
    QHash<RankId, TimeNs> effectiveOffsets() const;
    /// The analysis' own estimate for `rank`, if known.
    std::optional<TimeNs> estimate(RankId rank) const;

    QTableWidget *table() const { return m_table; }
    /// The offset editor of `rank` (µs), or nullptr.
    QDoubleSpinBox *offsetEditor(RankId rank) const;
    /// The row of `rank`, or -1.
    int rowOf(RankId rank) const;
    static QString methodText(AlignmentMethod m);

public Q_SLOTS:
    /// Sets `rank`'s offset as the user would (emits clockOffsetsEdited when it changes).
    void setOffset(rs::RankId rank, rs::TimeNs offsetNs);
    /// Drops the user's offset of `rank`, back to the estimate.
    void resetOffset(rs::RankId rank);
    /// Drops every override.
    void resetAll();
    /// Replaces every override at once (a reopened session file); emits clockOffsetsEdited once
    /// when they differ from the current ones.
    void setOverrides(const std::map<rs::RankId, rs::TimeNs> &overrides);

Q_SIGNALS:
    /// The user's overrides changed; `offsets` holds all of them (rank → ns).
    void clockOffsetsEdited(const std::map<rs::RankId, rs::TimeNs> &offsets);

private:
    void rebuild();
    void updateRow(int row);

    std::shared_ptr<const AnalysisResult> m_result;
    std::map<RankId, TimeNs> m_estimates;
    std::map<RankId, TimeNs> m_overrides;
    QTableWidget *m_table;
    QLabel *m_note;
    QPushButton *m_resetAll;
    bool m_filling = false; // set while the table is filled, so spin boxes do not echo as edits
};

} // namespace rs
