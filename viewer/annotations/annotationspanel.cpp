#include "annotationspanel.h"

#include "annotationdialog.h"
#include "annotationmodel.h"
#include "timeline/annotationoverlay.h"
#include "timeline/timelineview.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace rs {

namespace {

QToolButton *button(const QString &text, const QString &tip)
{
    auto *b = new QToolButton;
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

} // namespace

AnnotationsPanel::AnnotationsPanel(AnnotationStore *store, ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_store(store)
    , m_state(state)
    , m_model(new AnnotationModel(store, this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_model->setTimeOrigin(state->fullRange().begin);
    connect(state, &ViewState::fullRangeChanged, this, [this](TimeRange r) { m_model->setTimeOrigin(r.begin); });

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(AnnotationModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_note = button(tr("Note…"), tr("Add a note at the centre of the view, on the selected rank"));
    m_range = button(tr("Mark range"), tr("Mark the selected event's extent, or the visible range, as a range"));
    m_arrow = button(tr("Arrow"), tr("Draw an arrow between two points of the timeline: click its tail, then its head, on any ranks"));
    m_edit = button(tr("Edit…"), tr("Edit the selected annotation's text and colour (Return on the timeline)"));
    m_delete = button(tr("Delete"), tr("Delete the selected annotation (Delete on the timeline)"));
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter annotations…"));
    m_filter->setClearButtonEnabled(true);
    m_showFindings = new QCheckBox(tr("Show finding annotations"));
    m_showFindings->setToolTip(tr("Draw and list the annotations made from the analysis' findings"));
    m_showFindings->setChecked(store->findingAnnotationsVisible());

    auto *actions = new QHBoxLayout;
    actions->setContentsMargins(6, 4, 6, 0);
    actions->setSpacing(2);
    for (QToolButton *b : {m_note, m_range, m_arrow, m_edit, m_delete})
        actions->addWidget(b);
    actions->addStretch(1);
    actions->addWidget(m_showFindings);
    auto *filterRow = new QHBoxLayout;
    filterRow->setContentsMargins(6, 2, 6, 4);
    filterRow->addWidget(m_filter);

    m_view = new QTreeView;
    m_view->setModel(m_proxy);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(AnnotationModel::TimeColumn, Qt::AscendingOrder);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Double-click and Enter jump; F2 or a click on the selected text edits it.
    m_view->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    QHeaderView *h = m_view->header();
    h->setStretchLastSection(false);
    h->setSectionResizeMode(AnnotationModel::TextColumn, QHeaderView::Stretch);
    for (int c : {AnnotationModel::KindColumn, AnnotationModel::RankColumn, AnnotationModel::TimeColumn, AnnotationModel::OriginColumn})
        h->setSectionResizeMode(c, QHeaderView::ResizeToContents);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(actions);
    layout->addLayout(filterRow);
    layout->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_showFindings, &QCheckBox::toggled, store, &AnnotationStore::setFindingAnnotationsVisible);
    connect(m_note, &QToolButton::clicked, this, &AnnotationsPanel::addNoteAtCenter);
    connect(m_range, &QToolButton::clicked, this, &AnnotationsPanel::markRange);
    connect(m_arrow, &QToolButton::clicked, this, &AnnotationsPanel::addArrow);
    connect(m_edit, &QToolButton::clicked, this, &AnnotationsPanel::editSelected);
    connect(m_delete, &QToolButton::clicked, this, &AnnotationsPanel::deleteSelected);
    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex &index) { jumpTo(idAt(index)); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        if (!m_syncing && m_store)
            m_store->setSelectedId(idAt(current));
    });
    connect(store, &AnnotationStore::selectionChanged, this, &AnnotationsPanel::storeSelectionChanged);
    connect(store, &AnnotationStore::changed, this, [this] {
        m_showFindings->setChecked(m_store->findingAnnotationsVisible());
        // A reset of the rows drops the view's current row; put the store's selection back.
        storeSelectionChanged(m_store->selectedId());
    });
    syncButtons();
}

void AnnotationsPanel::setTimelineView(TimelineView *view)
{
    m_timeline = view;
}

std::uint64_t AnnotationsPanel::idAt(const QModelIndex &proxyIndex) const
{
    return proxyIndex.isValid() ? proxyIndex.data(AnnotationModel::IdRole).value<quint64>() : 0;
}

void AnnotationsPanel::storeSelectionChanged(std::uint64_t id)
{
    m_syncing = true;
    const int row = m_model->rowOf(id);
    const QModelIndex index = row >= 0 ? m_proxy->mapFromSource(m_model->index(row, 0)) : QModelIndex();
    if (index.isValid()) {
        if (idAt(m_view->currentIndex()) != id)
            m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_view->scrollTo(index);
    } else {
        m_view->selectionModel()->clearSelection();
        m_view->selectionModel()->setCurrentIndex({}, QItemSelectionModel::NoUpdate);
    }
    m_syncing = false;
    syncButtons();
}

void AnnotationsPanel::syncButtons()
{
    const bool selected = m_store && m_store->selectedId() != 0;
    m_edit->setEnabled(selected);
    m_delete->setEnabled(selected);
}

std::pair<TimeRange, RankId> AnnotationsPanel::rangeToMark() const
{
    if (m_timeline) {
        const EventRef sel = m_state->selection();
        if (const auto r = m_timeline->eventRange(sel); r && r->duration() > 0) {
            RankId rank = kNoRank;
            const SessionPtr s = m_timeline->session();
            if (s && sel.onTrack() && sel.track < s->tracks().size())
                rank = s->tracks()[sel.track].rank;
            return {*r, rank};
        }
    }
    return {m_state->visibleRange(), m_state->selectedRank()};
}

void AnnotationsPanel::addNoteAtCenter()
{
    if (!m_store)
        return;
    const TimeRange v = m_state->visibleRange();
    Annotation a;
    a.kind = Annotation::Kind::Note;
    a.rank = a.endRank = m_state->selectedRank();
    a.time = a.endTime = v.begin + v.duration() / 2;
    if (AnnotationDialog::edit(this, a))
        m_store->setSelectedId(m_store->add(a));
}

void AnnotationsPanel::addArrow()
{
    if (!m_store || !m_timeline)
        return;
    m_timeline->annotationOverlay()->beginArrowAnywhere();
    m_timeline->setFocus(Qt::OtherFocusReason); // Esc cancels there
}

void AnnotationsPanel::markRange()
{
    if (!m_store)
        return;
    const auto [range, rank] = rangeToMark();
    Annotation a;
    a.kind = Annotation::Kind::Range;
    a.rank = a.endRank = rank;
    a.time = range.begin;
    a.endTime = range.end;
    m_store->setSelectedId(m_store->add(a));
}

void AnnotationsPanel::editSelected()
{
    const Annotation *found = m_store ? m_store->find(m_store->selectedId()) : nullptr;
    if (!found)
        return;
    Annotation a = *found;
    if (AnnotationDialog::edit(this, a))
        m_store->update(a);
}

void AnnotationsPanel::deleteSelected()
{
    if (m_store)
        m_store->remove(m_store->selectedId());
}

void AnnotationsPanel::jumpTo(std::uint64_t id)
{
    const Annotation *a = m_store ? m_store->find(id) : nullptr;
    if (!a)
        return;
    m_store->setSelectedId(id);
    const RankId rank = a->rank;
    const TimeNs begin = std::min(a->time, a->endTime);
    const TimeNs end = std::max(a->time, a->endTime);
    const TimeRange view = m_state->visibleRange();
    if (end - begin < view.duration() * 8 / 10) {
        // Fits at this zoom: keep it, centre the annotation.
        const TimeNs mid = begin + (end - begin) / 2;
        m_state->setVisibleRange({mid - view.duration() / 2, mid - view.duration() / 2 + view.duration()}, ViewState::Change::Jump);
    } else {
        const TimeNs pad = std::max<TimeNs>((end - begin) / 10, 1000);
        m_state->setVisibleRange({begin - pad, end + pad}, ViewState::Change::Jump);
    }
    if (m_timeline && rank != kNoRank)
        m_timeline->ensureRankVisible(rank);
}

} // namespace rs
