#include "logpanel.h"

#include "palette.h"
#include "recordtable.h"

#include "logstyle.h"
#include "models/logfiltermodel.h"
#include "models/logmodel.h"
#include "plural.h"
#include "rankcolors.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

namespace rs {

namespace {

// Item data of the rank combo's "every rank" entry; real entries carry the RankId.
constexpr int kAllRanks = std::numeric_limits<int>::min();

QIcon swatch(const QColor &c)
{
    QPixmap pm(10, 10);
    pm.fill(c);
    return QIcon(pm);
}

} // namespace

LogPanel::LogPanel(ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_state(state)
    , m_model(new LogModel(this))
    , m_proxy(new LogFilterModel(this))
{
    m_model->setViewState(state);
    m_proxy->setSourceModel(m_model);

    m_rank = new QComboBox;
    m_rank->setToolTip(tr("Show the records of one rank, or the job's own (torchrun agent) lines"));
    m_rank->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_level = new QComboBox;
    m_level->addItem(tr("All levels"), static_cast<int>(LogLevel::Info));
    m_level->addItem(tr("Warnings and errors"), static_cast<int>(LogLevel::Warning));
    m_level->addItem(tr("Errors only"), static_cast<int>(LogLevel::Error));
    m_kind = new QComboBox;
    m_kind->addItem(tr("All kinds"), -1);
    for (LogKind k : {LogKind::Nccl, LogKind::PyTorch, LogKind::Torchrun, LogKind::Python, LogKind::Other})
        m_kind->addItem(LogStyle::kindName(k), static_cast<int>(k));
    m_text = new QLineEdit;
    m_text->setPlaceholderText(tr("Filter messages"));
    m_text->setClearButtonEnabled(true);
    m_count = new QLabel;
    m_count->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));

    m_view = recordTable(m_proxy);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_view->setColumnWidth(LogModel::TimeColumn, 120);
    m_view->setColumnWidth(LogModel::RankColumn, 48);
    m_view->setColumnWidth(LogModel::LevelColumn, 70);
    m_view->setColumnWidth(LogModel::KindColumn, 72);
    m_view->setColumnWidth(LogModel::SourceColumn, 190);

    auto *empty = new QLabel(tr("No log records. Add NCCL debug output (NCCL_DEBUG=INFO) or the job's "
                                "torchrun log to see them here and on each rank's log lane."));
    empty->setWordWrap(true);
    empty->setAlignment(Qt::AlignCenter);
    empty->setStyleSheet(QStringLiteral("color: %1; padding: 16px;").arg(Palette::screen().css(Palette::Role::Muted)));
    m_stack = new QStackedWidget;
    m_stack->addWidget(empty);
    m_stack->addWidget(m_view);

    auto *top = new QHBoxLayout;
    top->addWidget(m_rank);
    top->addWidget(m_level);
    top->addWidget(m_kind);
    top->addWidget(m_text, 1);
    top->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);

    auto apply = [this] { applyFilters(); };
    connect(m_rank, &QComboBox::currentIndexChanged, this, apply);
    connect(m_level, &QComboBox::currentIndexChanged, this, apply);
    connect(m_kind, &QComboBox::currentIndexChanged, this, apply);
    connect(m_text, &QLineEdit::textChanged, this, apply);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &LogPanel::updateCount);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &LogPanel::updateCount);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &LogPanel::updateCount);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &LogPanel::updateCount);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { rowChanged(current); });
    connect(m_view, &QAbstractItemView::activated, this,
            [this](const QModelIndex &i) { jumpToRecord(i.data(LogModel::RecordIndexRole).toUInt()); });
    connect(m_state, &ViewState::selectionChanged, this, &LogPanel::followSelection);
    connect(m_state, &ViewState::selectedRankChanged, this, &LogPanel::followSelectedRank);
    connect(m_state, &ViewState::fullRangeChanged, m_model, &LogModel::refreshTimes);
    connect(m_state, &ViewState::clockOffsetsChanged, m_model, &LogModel::refreshTimes);
    setSession(nullptr);
}

void LogPanel::setSession(SessionPtr session)
{
    m_model->setSession(std::move(session));
    rebuildRankCombo();
    m_stack->setCurrentIndex(m_model->rowCount() > 0 ? 1 : 0);
    updateCount();
}

void LogPanel::rebuildRankCombo()
{
    const QSignalBlocker block(m_rank);
    m_rank->clear();
    m_rank->addItem(tr("All ranks"), kAllRanks);
    const SessionPtr s = m_model->session();
    if (!s)
        return;
    std::set<RankId> ranks;
    for (const Rank &r : s->ranks())
        ranks.insert(r.id);
    bool job = false, unknown = false;
    for (const LogRecord &r : s->logs().records) {
        job = job || r.rank == kJobLevel;
        unknown = unknown || r.rank == kNoRank;
        if (r.rank >= 0)
            ranks.insert(r.rank);
    }
    if (job)
        m_rank->addItem(tr("Job (torchrun)"), kJobLevel);
    for (RankId r : ranks)
        m_rank->addItem(swatch(RankColors::color(r)), tr("Rank %1").arg(r), r);
    if (unknown)
        m_rank->addItem(tr("Without rank"), kNoRank);
    m_proxy->setRankFilter(std::nullopt);
}

void LogPanel::applyFilters()
{
    const int rank = m_rank->currentData().isValid() ? m_rank->currentData().toInt() : kAllRanks;
    m_proxy->setRankFilter(rank == kAllRanks ? std::nullopt : std::optional<RankId>(rank));
    m_proxy->setMinimumLevel(static_cast<LogLevel>(m_level->currentData().toInt()));
    const int kind = m_kind->currentData().toInt();
    m_proxy->setKindFilter(kind < 0 ? std::nullopt : std::optional<LogKind>(static_cast<LogKind>(kind)));
    m_proxy->setTextFilter(m_text->text());
    updateCount();
    // Keep the selected record in sight when it survives the new filter.
    const EventRef sel = m_state->selection();
    if (sel.kind == EventRef::Kind::LogRecord)
        followSelection(sel);
}

void LogPanel::updateCount()
{
    const int total = m_model->rowCount();
    const int shown = m_proxy->rowCount();
    m_count->setText(shown == total ? countOf(total, tr("record"), tr("records"))
                                    : tr("%1 of %2").arg(QLocale().toString(shown), countOf(total, tr("record"), tr("records"))));
}

void LogPanel::rowChanged(const QModelIndex &current)
{
    if (m_following || !current.isValid())
        return;
    m_state->setSelection(EventRef::logRecord(current.data(LogModel::RecordIndexRole).toUInt()));
}

void LogPanel::followSelection(const EventRef &event)
{
    if (event.kind != EventRef::Kind::LogRecord)
        return;
    QModelIndex i = m_proxy->indexOfRecord(event.index);
    const SessionPtr s = m_model->session();
    if (!i.isValid() && s && event.index < s->logs().records.size() && m_proxy->rankFilter()) {
        // A marker of another rank was picked on the timeline: show that rank's records rather than
        // leave the table pointing nowhere. Level and text filters are the user's and stay.
        const int entry = m_rank->findData(s->logs().records[event.index].rank);
        if (entry >= 0) {
            m_rank->setCurrentIndex(entry);
            i = m_proxy->indexOfRecord(event.index);
        }
    }
    if (!i.isValid() || m_view->currentIndex().row() == i.row())
        return;
    m_following = true;
    m_view->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(i, QAbstractItemView::PositionAtCenter);
    m_following = false;
}

void LogPanel::followSelectedRank(RankId rank)
{
    const int i = m_rank->findData(rank == kNoRank ? kAllRanks : rank);
    if (i >= 0)
        m_rank->setCurrentIndex(i);
}

void LogPanel::jumpToRecord(std::uint32_t index)
{
    const SessionPtr s = m_model->session();
    if (!s || index >= s->logs().records.size())
        return;
    const LogRecord &r = s->logs().records[index];
    if (r.rank >= 0)
        m_state->setSelectedRank(r.rank);
    m_state->setSelection(EventRef::logRecord(index));
    if (r.time != kNoTime) {
        const TimeNs t = r.time + (r.rank >= 0 ? m_state->clockOffset(r.rank) : 0);
        m_state->setVisibleRange({t - kJumpWindowNs / 2, t + kJumpWindowNs / 2}, ViewState::Change::Jump);
    }
    Q_EMIT revealRequested(EventRef::logRecord(index));
}

void LogPanel::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_model->setAnalysis(std::move(analysis));
}

} // namespace rs
