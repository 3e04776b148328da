#include "searchpanel.h"

#include "models/slicesearchmodel.h"
#include "palette.h"
#include "recordtable.h"
#include "viewstate.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace rs {

SearchPanel::SearchPanel(ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_state(state)
    , m_model(new SliceSearchModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_typing(new QTimer(this))
{
    m_proxy->setSourceModel(m_model);
    m_field = new QLineEdit;
    m_field->setObjectName(QStringLiteral("sliceSearchField"));
    m_field->setPlaceholderText(tr("Find slices by name on every rank (Enter: next, Shift+Enter: previous)"));
    m_field->setClearButtonEnabled(true);
    m_field->installEventFilter(this);
    m_regex = new QCheckBox(tr("Regex"));
    m_regex->setToolTip(tr("Match a regular expression instead of plain text (both ignore case)"));
    m_args = new QCheckBox(tr("Args"));
    m_args->setToolTip(tr("Also match the slices' arguments (shapes, types, collective sizes); slower on large traces"));
    m_count = new QLabel;
    m_count->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));
    m_stop = new QToolButton;
    m_stop->setText(tr("Stop"));
    m_stop->setToolTip(tr("Stop this search (Esc)"));
    m_stop->setVisible(false);
    auto *prev = new QToolButton;
    prev->setArrowType(Qt::UpArrow);
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto *next = new QToolButton;
    next->setArrowType(Qt::DownArrow);
    next->setToolTip(tr("Next match (Enter)"));

    m_view = recordTable(m_proxy); // time order until the user sorts
    m_view->horizontalHeader()->setSectionResizeMode(SliceSearchModel::NameColumn, QHeaderView::Stretch);
    for (int c : {SliceSearchModel::RankColumn, SliceSearchModel::StartColumn, SliceSearchModel::DurationColumn})
        m_view->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // Columns sort by their value, not their text: durations and starts as numbers.
    m_proxy->setSortRole(SliceSearchModel::DurationRole);

    auto *top = new QHBoxLayout;
    top->addWidget(m_field, 1);
    top->addWidget(m_regex);
    top->addWidget(m_args);
    top->addWidget(prev);
    top->addWidget(next);
    top->addWidget(m_count);
    top->addWidget(m_stop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);

    m_typing->setSingleShot(true);
    m_typing->setInterval(250);
    connect(m_typing, &QTimer::timeout, this, &SearchPanel::searchNow);
    connect(m_field, &QLineEdit::textChanged, m_typing, qOverload<>(&QTimer::start));
    connect(m_regex, &QCheckBox::toggled, this, &SearchPanel::searchNow);
    connect(m_args, &QCheckBox::toggled, this, &SearchPanel::searchNow);
    connect(m_stop, &QToolButton::clicked, this, &SearchPanel::cancelSearch);
    connect(m_model, &SliceSearchModel::searchFinished, this, [this] {
        m_stop->setVisible(false);
        updateCount();
        if (const int pending = std::exchange(m_pendingStep, 0))
            step(pending);
    });
    connect(prev, &QToolButton::clicked, this, [this] { step(-1); });
    connect(next, &QToolButton::clicked, this, [this] { step(1); });
    connect(m_view->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [this](int column, Qt::SortOrder) {
        m_proxy->setSortRole(column == SliceSearchModel::StartColumn ? int(SliceSearchModel::StartRole)
                             : column == SliceSearchModel::RankColumn ? int(SliceSearchModel::RankRole)
                             : column == SliceSearchModel::DurationColumn ? int(SliceSearchModel::DurationRole)
                                                                          : int(Qt::DisplayRole));
        m_current = -1;
    });
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex &index) { selectRow(index.row()); });
    // The list reads like the ruler: t = 0 and the clock offsets follow the view.
    auto timeBase = [this] { m_model->setTimeBase(m_state->fullRange().begin, [state = m_state](RankId r) { return state->clockOffset(r); }); };
    connect(m_state, &ViewState::fullRangeChanged, this, timeBase);
    connect(m_state, &ViewState::clockOffsetsChanged, this, timeBase);
    updateCount();
}

void SearchPanel::setSession(SessionPtr session)
{
    m_model->setSession(std::move(session));
    m_model->setTimeBase(m_state->fullRange().begin, [state = m_state](RankId r) { return state->clockOffset(r); });
    m_searched.clear();
    m_current = -1;
    m_pendingStep = 0;
    m_stop->setVisible(false);
    if (!m_field->text().isEmpty())
        searchNow();
    updateCount();
}

void SearchPanel::focusSearch()
{
    m_field->setFocus(Qt::ShortcutFocusReason);
    m_field->selectAll();
}

void SearchPanel::searchNow()
{
    m_typing->stop();
    const QString key = m_field->text() + QLatin1Char('|') + (m_regex->isChecked() ? QLatin1Char('r') : QLatin1Char('-'))
        + (m_args->isChecked() ? QLatin1Char('a') : QLatin1Char('-'));
    if (key == m_searched)
        return;
    m_searched = key;
    m_current = -1;
    m_cancelled = false;
    m_model->searchAsync(m_field->text(), m_regex->isChecked(), m_args->isChecked());
    m_stop->setVisible(true);
    updateCount();
}

void SearchPanel::cancelSearch()
{
    if (!m_model->isSearching())
        return;
    m_model->cancelSearch();
    m_searched.clear(); // Enter searches again
    m_pendingStep = 0;
    m_cancelled = true;
    m_stop->setVisible(false);
    updateCount();
}

void SearchPanel::step(int step)
{
    searchNow();
    if (m_model->isSearching()) {
        m_pendingStep = step;
        return;
    }
    const int rows = m_proxy->rowCount();
    if (rows == 0)
        return;
    selectRow(m_current < 0 ? (step > 0 ? 0 : rows - 1) : ((m_current + step) % rows + rows) % rows);
}

void SearchPanel::selectRow(int proxyRow)
{
    const QModelIndex index = m_proxy->index(proxyRow, 0);
    if (!index.isValid())
        return;
    m_current = proxyRow;
    m_view->selectRow(proxyRow);
    m_view->scrollTo(index);
    const EventRef event = m_model->eventAt(m_proxy->mapToSource(index).row());
    m_state->setSelection(event);
    // In time too: a match outside the window is brought to its middle at the same zoom, one
    // longer than the window is shown whole.
    const QModelIndex source = m_proxy->mapToSource(index);
    const TimeNs start = source.data(SliceSearchModel::StartRole).toLongLong()
        + m_state->clockOffset(source.data(SliceSearchModel::RankRole).toInt());
    const TimeNs end = start + std::max<qint64>(1, source.data(SliceSearchModel::DurationRole).toLongLong());
    const TimeRange visible = m_state->visibleRange();
    if (start < visible.begin || end > visible.end) {
        const TimeNs width = std::max(visible.duration(), (end - start) + (end - start) / 4);
        const TimeNs middle = start + (end - start) / 2;
        m_state->setVisibleRange({middle - width / 2, middle - width / 2 + width});
    }
    Q_EMIT revealRequested(event);
    updateCount();
}

void SearchPanel::updateCount()
{
    const int rows = m_model->rowCount();
    if (m_model->isSearching())
        m_count->setText(tr("Searching…"));
    else if (m_cancelled)
        m_count->setText(tr("Search stopped"));
    else if (!m_model->error().isEmpty())
        m_count->setText(m_model->error());
    else if (m_field->text().isEmpty())
        m_count->clear();
    else if (rows == 0)
        m_count->setText(tr("No match"));
    else if (m_current >= 0)
        m_count->setText(tr("%1 of %2%3").arg(m_current + 1).arg(rows).arg(m_model->truncated() ? QStringLiteral("+") : QString()));
    else
        m_count->setText(rows == 1 ? tr("1 match") : tr("%1%2 matches").arg(rows).arg(m_model->truncated() ? QStringLiteral("+") : QString()));
}

bool SearchPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_field && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Escape && m_model->isSearching()) {
            cancelSearch();
            return true;
        }
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            step(key->modifiers() & Qt::ShiftModifier ? -1 : 1);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace rs
