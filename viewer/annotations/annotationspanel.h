#pragma once
// Dock content listing the session's annotations: a filterable table (kind, rank, time, text,
// origin), buttons to add a note at the view's centre, mark the visible range (or the selected
// event's extent) as a range, edit and delete the selected annotation, and a "Show finding
// annotations" switch. Selecting a row selects the annotation on the timeline; activating a row
// (double-click, Enter) moves the view to it. Every change goes through the store: undoable.

#include "annotationstore.h"
#include "viewstate.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QLineEdit;
class QSortFilterProxyModel;
class QToolButton;
class QTreeView;

namespace rs {

class AnnotationModel;
class TimelineView;

class AnnotationsPanel : public QWidget
{
    Q_OBJECT
public:
    AnnotationsPanel(AnnotationStore *store, ViewState *state, QWidget *parent = nullptr);

    /// The timeline whose selected event "Mark range" uses and whose rank groups a jump scrolls
    /// to (optional; without it "Mark range" marks the visible range). Not owned.
    void setTimelineView(TimelineView *view);

    AnnotationModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTreeView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }
    QCheckBox *showFindingsCheck() const { return m_showFindings; }
    QToolButton *noteButton() const { return m_note; }
    QToolButton *rangeButton() const { return m_range; }
    QToolButton *arrowButton() const { return m_arrow; }
    QToolButton *editButton() const { return m_edit; }
    QToolButton *deleteButton() const { return m_delete; }

    /// The range "Mark range" would mark now: the selected event's extent when it has one, else
    /// the visible range; and the rank it belongs to (kNoRank: job-wide).
    std::pair<TimeRange, RankId> rangeToMark() const;

public Q_SLOTS:
    /// Asks for a text and adds a note at the centre of the visible range, on the selected rank
    /// (job-wide when none is selected).
    void addNoteAtCenter();
    /// Starts placing an arrow on the timeline: the next click puts its tail, the one after its
    /// head, each on any rank (needs setTimelineView()).
    void addArrow();
    /// Adds rangeToMark() as a Range and selects it.
    void markRange();
    /// Opens the editor on the selected annotation.
    void editSelected();
    /// Deletes the selected annotation.
    void deleteSelected();
    /// Moves the view to annotation `id`: centred at the same zoom when it fits, else framed; its
    /// rank group scrolled into view.
    void jumpTo(std::uint64_t id);

private:
    void storeSelectionChanged(std::uint64_t id);
    void syncButtons();
    std::uint64_t idAt(const QModelIndex &proxyIndex) const;

    QPointer<AnnotationStore> m_store;
    ViewState *m_state;
    QPointer<TimelineView> m_timeline;
    AnnotationModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTreeView *m_view;
    QLineEdit *m_filter;
    QCheckBox *m_showFindings;
    QToolButton *m_note;
    QToolButton *m_range;
    QToolButton *m_arrow;
    QToolButton *m_edit;
    QToolButton *m_delete;
    bool m_syncing = false; // selection flowing from the store to the view: don't echo it back
};

} // namespace rs
