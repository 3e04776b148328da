#pragma once
// The selected event, in full: what it is, where it ran, when (relative to the session start and on
// the wall clock) and every arg the profiler recorded, as a key/value tree parsed from the raw JSON
// the importer kept. A selected log record shows its message, level, kind, rank, time and file:line;
// a selected OOM shows what was asked for against what the GPU had.

#include "analysisresult.h"
#include "session.h"
#include "viewstate.h"

#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;
class QJsonValue;

namespace rs {

class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    /// Columns of the tree.
    enum Column { FieldColumn, ValueColumn };

    explicit DetailsPanel(ViewState *state, QWidget *parent = nullptr);

    /// The session the selection refers to (null clears the panel).
    void setSession(SessionPtr session);
    /// The analysis whose placements time untimed OOMs and their log lines (null: none).
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    /// The tree of fields (tests and "copy" read it).
    QTreeWidget *tree() const { return m_tree; }
    /// The value shown for top-level field `label` ("Duration"), or an empty string.
    QString fieldValue(const QString &label) const;
    /// The "Args" item, or nullptr when the event has no args.
    QTreeWidgetItem *argsItem() const;
    /// The rows that link the selected span to the other end of its flows (launch ↔ kernel,
    /// forward ↔ backward), in flow order; each row's EventRole holds where it leads.
    QList<QTreeWidgetItem *> flowItems() const;
    /// Role of a flow row's target (an EventRef stored as track and span).
    static constexpr int TargetTrackRole = Qt::UserRole + 1;
    static constexpr int TargetSpanRole = Qt::UserRole + 2;

Q_SIGNALS:
    /// A flow link was followed: `event` is selected and its time brought into the window; the
    /// timeline is asked to bring its lane into view.
    void revealRequested(const rs::EventRef &event);

public Q_SLOTS:
    /// Shows `event` (kind None shows the empty state).
    void showSelection(const rs::EventRef &event);
    /// Copies the selected rows as "field: value" lines.
    void copySelection();
    /// Selects the other end of the flow row `item` and shows both ends (no-op for other rows).
    void followFlow(QTreeWidgetItem *item);

private:
    /// Shows `title`, with places to wrap inside long unbroken names.
    void setTitle(const QString &title);
    QTreeWidgetItem *addField(const QString &label, const QString &value, QTreeWidgetItem *parent = nullptr);
    void addJson(QTreeWidgetItem *parent, const QString &key, const QJsonValue &value);
    void addArgs(std::string_view raw);
    void setVisibleContent(bool valid);
    void showLogRecord(std::uint32_t index);
    void showOom(std::uint32_t index);
    /// "Time (wall clock)" of `dataTime` (the rank's clock), "≈ " when `estimated`; nothing when
    /// the source has no wall clock.
    void addWallClockField(TimeNs dataTime, bool estimated);
    void addSourceField(SourceId source, std::int64_t line);
    void addFlows(TrackId track, std::uint32_t span);
    void followFlowTo(TrackId track, std::uint32_t span);

    ViewState *m_state;
    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    QLabel *m_title;
    QLabel *m_subtitle;
    QLabel *m_empty;
    QTreeWidget *m_tree;
};

} // namespace rs
