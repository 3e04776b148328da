#include "compareview.h"
#include "taskmonitor.h"

#include "palette.h"

#include "compare/rankdiff.h"
#include "compare/referencerank.h"
#include "comparesortfiltermodel.h"
#include "opdiffmodel.h"
#include "plural.h"
#include "rankmetricsmodel.h"
#include "smallmultiples.h"
#include "stepdiffmodel.h"
#include "timeformat.h"
#include "timeline/ranksoverview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace rs {

namespace {

// What a worker hands back: the two ranks' totals (fresh or from the cache) and their diff.
struct DiffOutcome {
    SessionPtr session;
    RankId a = kNoRank;
    RankId b = kNoRank;
    std::shared_ptr<const RankOpTotals> totalsA;
    std::shared_ptr<const RankOpTotals> totalsB;
    std::vector<OpDiffRow> ops;
    std::vector<StepDiffRow> steps;
    bool scoped = false; // totals of the steps both ranks completed, not of everything
    qint64 elapsedMs = 0;
};

// The deviation colours are the point of the metrics table, and the rank a user looks at is the
// selected one: a selected row keeps its cell colours and gets a frame instead of the usual fill.
class KeepColoursDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem o = option;
        const bool selected = o.state & QStyle::State_Selected;
        o.state &= ~QStyle::State_Selected;
        o.state &= ~QStyle::State_HasFocus;
        QStyledItemDelegate::paint(painter, o, index);
        if (!selected)
            return;
        painter->save();
        painter->setPen(QPen(option.palette.highlight().color(), 2));
        const QRectF r = QRectF(option.rect).adjusted(0, 1, 0, -1);
        painter->drawLine(r.topLeft(), r.topRight());
        painter->drawLine(r.bottomLeft(), r.bottomRight());
        if (index.column() == 0)
            painter->drawLine(r.topLeft(), r.bottomLeft());
        if (index.column() == index.model()->columnCount(index.parent()) - 1)
            painter->drawLine(r.topRight(), r.bottomRight());
        painter->restore();
    }
};

QTableView *makeTable(QWidget *parent)
{
    auto *t = new QTableView(parent);
    t->setSortingEnabled(true);
    t->setAlternatingRowColors(false);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->horizontalHeader()->setHighlightSections(false);
    t->setWordWrap(false);
    t->setShowGrid(false);
    return t;
}

QString legendHtml()
{
    QString html = CompareView::tr("Deviation from the reference: ");
    for (const auto &[at, label] : RankMetricsModel::legendStops()) {
        const QColor c = RankMetricsModel::deviationColor(at);
        html += QStringLiteral("<span style='background-color:%1; border:1px solid #ccc'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2&nbsp;&nbsp;")
                    .arg(c.name(), label.toHtmlEscaped());
    }
    html += QStringLiteral("&nbsp;&nbsp;<span style='color:%1'>\u2501</span>&nbsp;%2")
                .arg(SmallMultiples::referenceColor().name(), CompareView::tr("reference curve"));
    return html;
}

} // namespace

CompareView::CompareView(ViewState *state, QWidget *parent) : QWidget(parent), m_state(state)
{
    buildUi();
    if (state) {
        connect(state, &ViewState::selectedRankChanged, this, &CompareView::syncSelectedRank);
        connect(state, &ViewState::fullRangeChanged, this, [this] {
            if (m_analysis)
                m_metrics->setAnalysis(m_analysis, origin());
        });
    }
}

CompareView::~CompareView() = default;

void CompareView::buildUi()
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Reference rank:"), this));
    m_refCombo = new QComboBox(this);
    m_refCombo->setToolTip(tr("The rank every other rank is compared with. By default the median rank: the one closest "
                              "to the per-metric medians over all ranks."));
    top->addWidget(m_refCombo);
    m_refNote = new QLabel(this);
    m_refNote->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));
    top->addWidget(m_refNote);
    m_showRef = new QCheckBox(tr("Reference curve in every row"), this);
    m_showRef->setChecked(true);
    top->addWidget(m_showRef);
    top->addStretch(1);
    m_layoutBox = new QComboBox(this);
    m_layoutBox->addItem(tr("Small multiples"));
    m_layoutBox->addItem(tr("Overview rows"));
    m_layoutBox->setToolTip(tr("A chart per rank, or one thin row per rank (for jobs of many ranks)"));
    m_layoutBox->setEnabled(false); // until there is a timeline to paint rows from
    connect(m_layoutBox, &QComboBox::activated, this,
            [this](int i) { setRanksLayout(i == 1 ? RanksLayout::OverviewRows : RanksLayout::SmallMultiples); });
    top->addWidget(m_layoutBox);
    auto *legend = new QLabel(legendHtml(), this);
    legend->setTextFormat(Qt::RichText);
    top->addWidget(legend);
    layout->addLayout(top);

    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs, 1);

    // Ranks tab.
    auto *ranksSplit = new QSplitter(Qt::Vertical, m_tabs);
    m_ranksPages = new QStackedWidget(ranksSplit);
    auto *scroll = new QScrollArea(m_ranksPages);
    m_ranksPages->addWidget(scroll);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_multiples = new SmallMultiples(m_state, scroll);
    scroll->setWidget(m_multiples);
    m_metrics = new RankMetricsModel(this);
    m_metricsProxy = new CompareSortFilterModel(this);
    m_metricsProxy->setSourceModel(m_metrics);
    m_metricsTable = makeTable(ranksSplit);
    m_metricsTable->setItemDelegate(new KeepColoursDelegate(m_metricsTable));
    m_metricsTable->setModel(m_metricsProxy);
    m_metricsTable->sortByColumn(RankMetricsModel::RankColumn, Qt::AscendingOrder);
    m_metricsTable->setToolTip(tr("Click a rank to select it everywhere; double-click to make it the reference."));
    ranksSplit->addWidget(m_ranksPages);
    ranksSplit->addWidget(m_metricsTable);
    ranksSplit->setStretchFactor(0, 3);
    ranksSplit->setStretchFactor(1, 2);
    m_tabs->addTab(ranksSplit, tr("Ranks"));

    // Two-rank diff tab.
    auto *diff = new QWidget(m_tabs);
    auto *diffLayout = new QVBoxLayout(diff);
    diffLayout->setContentsMargins(0, 4, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Rank A:"), diff));
    m_aCombo = new QComboBox(diff);
    bar->addWidget(m_aCombo);
    auto *swap = new QToolButton(diff);
    swap->setText(QStringLiteral("\u21c4"));
    swap->setToolTip(tr("Swap A and B"));
    bar->addWidget(swap);
    bar->addWidget(new QLabel(tr("Rank B:"), diff));
    m_bCombo = new QComboBox(diff);
    bar->addWidget(m_bCombo);
    bar->addSpacing(12);
    m_kind = new QComboBox(diff);
    m_kind->addItem(tr("Ops and kernels"), -1);
    m_kind->addItem(tr("CPU ops"), int(OpKind::CpuOp));
    m_kind->addItem(tr("GPU kernels"), int(OpKind::Kernel));
    m_kind->addItem(tr("Memcpy / memset"), int(OpKind::GpuMemory));
    bar->addWidget(m_kind);
    m_filter = new QLineEdit(diff);
    m_filter->setPlaceholderText(tr("Filter names\u2026"));
    m_filter->setClearButtonEnabled(true);
    bar->addWidget(m_filter, 1);
    m_completedOnly = new QCheckBox(tr("Only steps both completed"), diff);
    m_completedOnly->setToolTip(tr("Compare only the steps both ranks ran to their end: when one rank crashed, the "
                                   "ops of a step it never finished are not a difference. On by default when a rank "
                                   "was cut off inside a step."));
    bar->addWidget(m_completedOnly);
    m_diffStatus = new QLabel(diff);
    m_diffStatus->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));
    bar->addWidget(m_diffStatus);
    diffLayout->addLayout(bar);
    auto *diffSplit = new QSplitter(Qt::Horizontal, diff);
    m_ops = new OpDiffModel(this);
    m_opsProxy = new CompareSortFilterModel(this);
    m_opsProxy->setSourceModel(m_ops);
    m_opsProxy->setFilterKeyColumn(OpDiffModel::NameColumn);
    m_opsTable = makeTable(diffSplit);
    m_opsTable->setModel(m_opsProxy);
    m_opsTable->horizontalHeader()->setSortIndicatorShown(false);
    m_opsTable->horizontalHeader()->resizeSection(OpDiffModel::NameColumn, 320);
    m_steps = new StepDiffModel(this);
    m_stepsProxy = new CompareSortFilterModel(this);
    m_stepsProxy->setSourceModel(m_steps);
    m_stepsTable = makeTable(diffSplit);
    m_stepsTable->setModel(m_stepsProxy);
    m_stepsTable->sortByColumn(StepDiffModel::StepColumn, Qt::AscendingOrder);
    m_stepsTable->setToolTip(tr("Double-click a step to show it on rank B's clock"));
    diffSplit->addWidget(m_opsTable);
    diffSplit->addWidget(m_stepsTable);
    diffSplit->setStretchFactor(0, 3);
    diffSplit->setStretchFactor(1, 1);
    diffLayout->addWidget(diffSplit, 1);
    m_tabs->addTab(diff, tr("Two-rank diff"));

    connect(m_refCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!m_updatingCombos && i >= 0)
            applyReference(m_refCombo->itemData(i).toInt(), true);
    });
    connect(m_showRef, &QCheckBox::toggled, m_multiples, &SmallMultiples::setShowReference);
    connect(m_metricsTable, &QTableView::clicked, this, [this](const QModelIndex &i) {
        if (m_state)
            m_state->setSelectedRank(i.data(RankMetricsModel::RankRole).toInt());
    });
    connect(m_metricsTable, &QTableView::doubleClicked, this,
            [this](const QModelIndex &i) { setReferenceRank(i.data(RankMetricsModel::RankRole).toInt()); });
    const auto diffCombo = [this] {
        if (!m_updatingCombos)
            setDiffRanks(m_aCombo->currentData().toInt(), m_bCombo->currentData().toInt());
    };
    connect(m_aCombo, &QComboBox::currentIndexChanged, this, diffCombo);
    connect(m_bCombo, &QComboBox::currentIndexChanged, this, diffCombo);
    connect(swap, &QToolButton::clicked, this, [this] { setDiffRanks(m_diffB, m_diffA); });
    connect(m_completedOnly, &QCheckBox::toggled, this, [this] {
        if (!m_updatingCombos && m_session && m_session->rank(m_diffA) && m_session->rank(m_diffB))
            requestDiff();
    });
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &t) {
        m_opsProxy->setTextFilter(t);
    });
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this] { m_opsProxy->setKindFilter(m_kind->currentData().toInt()); });
    connect(m_stepsTable, &QTableView::doubleClicked, this, [this](const QModelIndex &i) {
        const QModelIndex src = m_stepsProxy->mapToSource(i);
        if (!m_state || !src.isValid())
            return;
        const StepDiffRow &r = m_steps->rowAt(src.row());
        const RankId rank = r.startB ? m_diffB : m_diffA;
        const TimeNs start = (r.startB ? *r.startB : *r.startA) + m_state->clockOffset(rank);
        const TimeNs dur = std::max(r.a.value_or(0), r.b.value_or(0));
        m_state->setVisibleRange({start - dur / 20, start + dur + dur / 20});
        m_state->setSelectedRank(rank);
    });
}

TimeNs CompareView::origin() const
{
    if (m_state && m_state->fullRange().duration() > ViewState::kMinVisibleNs)
        return m_state->fullRange().begin;
    return m_session ? m_session->timeRange().begin : 0;
}

void CompareView::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_analysis.reset();
    m_totals.clear();
    if (m_tasks)
        m_tasks->end(std::exchange(m_diffTask, 0));
    m_jobs.cancel(); // what runs is for the old session: dropped (totals of another session are useless)
    m_reference = kNoRank;
    m_diffA = m_diffB = kNoRank;
    m_ops->clear();
    m_steps->clear();
    m_metrics->setAnalysis(nullptr, 0);
    m_multiples->setAnalysis(nullptr);
    m_multiples->setSession(m_session);
    // A thousand small multiples are a wall; a thousand thin rows fit the screen.
    if (m_rows && m_session)
        setRanksLayout(static_cast<int>(m_multiples->shownRanks().size()) >= kOverviewRanks ? RanksLayout::OverviewRows
                                                                                           : RanksLayout::SmallMultiples);
    fillRankCombos();
    pickDefaults();
}

void CompareView::setTimeline(TimelineView *timeline)
{
    if (m_rows || !timeline)
        return;
    m_rows = new RanksOverview(timeline, m_ranksPages);
    m_ranksPages->addWidget(m_rows);
    m_layoutBox->setEnabled(true);
}

void CompareView::setRanksLayout(RanksLayout layout)
{
    if (layout == RanksLayout::OverviewRows && !m_rows)
        layout = RanksLayout::SmallMultiples;
    m_layout = layout;
    m_ranksPages->setCurrentIndex(layout == RanksLayout::OverviewRows ? 1 : 0);
    m_layoutBox->setCurrentIndex(layout == RanksLayout::OverviewRows ? 1 : 0);
    // The reference curve belongs to the small multiples.
    m_showRef->setEnabled(layout == RanksLayout::SmallMultiples);
}

void CompareView::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_analysis = std::move(analysis);
    m_metrics->setAnalysis(m_analysis, origin());
    m_multiples->setAnalysis(m_analysis);
    pickDefaults();
    m_metricsTable->resizeColumnsToContents();
}

void CompareView::fillRankCombos()
{
    m_updatingCombos = true;
    for (QComboBox *c : {m_refCombo, m_aCombo, m_bCombo}) {
        c->clear();
        if (m_session)
            for (const Rank &r : m_session->ranks())
                c->addItem(tr("rank %1").arg(r.id), r.id);
    }
    m_updatingCombos = false;
}

void CompareView::pickDefaults()
{
    if (!m_session || m_session->ranks().empty())
        return;
    RankId ref = m_analysis ? ReferenceRank::pick(m_analysis->metrics) : kNoRank;
    if (!m_session->rank(ref))
        ref = m_session->ranks().front().id;
    applyReference(ref, true);
    m_refNote->setText(m_analysis ? tr("(median rank: %1)").arg(ref) : tr("(waiting for the analysis)"));
    // B: the most divergent rank, else one that ran out of memory, else the next rank.
    RankId b = kNoRank;
    if (m_analysis) {
        for (const Divergence &d : m_analysis->divergent)
            if (d.rank != ref && m_session->rank(d.rank)) {
                b = d.rank;
                break;
            }
        if (b == kNoRank)
            for (const RankMetrics &m : m_analysis->metrics)
                if (m.oom && m.rank != ref) {
                    b = m.rank;
                    break;
                }
    }
    if (b == kNoRank)
        for (const Rank &r : m_session->ranks())
            if (r.id != ref) {
                b = r.id;
                break;
            }
    if (b == kNoRank)
        b = ref;
    setDiffRanks(ref, b);
}

void CompareView::applyReference(RankId rank, bool emitSignal)
{
    if (!m_session || !m_session->rank(rank))
        return;
    const bool changed = rank != m_reference;
    m_reference = rank;
    m_metrics->setReferenceRank(rank);
    m_multiples->setReferenceRank(rank);
    m_updatingCombos = true;
    m_refCombo->setCurrentIndex(m_refCombo->findData(rank));
    m_updatingCombos = false;
    if (changed && emitSignal)
        Q_EMIT referenceRankChanged(rank);
}

void CompareView::setReferenceRank(RankId rank)
{
    applyReference(rank, true);
}

void CompareView::showDiff(bool diff)
{
    m_tabs->setCurrentIndex(diff ? 1 : 0);
}

std::shared_ptr<const RankOpTotals> CompareView::cachedTotals(RankId rank) const
{
    const auto it = m_totals.find(rank);
    return it == m_totals.end() ? nullptr : it->second;
}

void CompareView::setDiffRanks(RankId a, RankId b)
{
    if (!m_session || !m_session->rank(a) || !m_session->rank(b))
        return;
    if (a == m_diffA && b == m_diffB && (m_jobs.isPending() || m_ops->rankA() == a) && m_ops->rankB() == b)
        return;
    m_diffA = a;
    m_diffB = b;
    m_updatingCombos = true;
    m_aCombo->setCurrentIndex(m_aCombo->findData(a));
    m_bCombo->setCurrentIndex(m_bCombo->findData(b));
    // When a rank stopped inside a step, a diff of everything is led by what it never reached.
    m_completedOnly->setChecked(RankDiff::anyIncomplete(*m_session, a, b));
    m_updatingCombos = false;
    requestDiff();
}

bool CompareView::completedStepsOnly() const
{
    return m_completedOnly->isChecked();
}

void CompareView::setCompletedStepsOnly(bool only)
{
    m_completedOnly->setChecked(only);
}

void CompareView::requestDiff()
{
    m_diffStatus->setText(tr("computing op totals\u2026"));
    // One task in the status bar per request: Cancel there drops it and says so here.
    if (m_tasks) {
        m_tasks->end(m_diffTask);
        m_diffTask = m_tasks->begin(tr("Comparing rank %1 with rank %2: op totals\u2026").arg(m_diffA).arg(m_diffB), [this] {
            m_jobs.cancel();
            m_diffStatus->setText(tr("op totals stopped; pick the ranks again to compute them"));
        });
    }
    // Totals stay valid for their session even when the request was overtaken.
    auto keepTotals = [this](const DiffOutcome &out) {
        if (out.session == m_session && !out.scoped) {
            m_totals[out.a] = out.totalsA;
            m_totals[out.b] = out.totalsB;
        }
    };
    auto show = [this, keepTotals](DiffOutcome out) {
        if (m_tasks)
            m_tasks->end(std::exchange(m_diffTask, 0));
        keepTotals(out);
        if (out.session != m_session)
            return;
        m_ops->setDiff(out.session, std::move(out.ops), out.a, out.b);
        m_steps->setSteps(std::move(out.steps), out.a, out.b);
        m_opsTable->resizeColumnsToContents();
        m_opsTable->horizontalHeader()->resizeSection(OpDiffModel::NameColumn,
                                                      std::min(420, m_opsTable->horizontalHeader()->sectionSize(OpDiffModel::NameColumn)));
        m_stepsTable->resizeColumnsToContents();
        m_diffStatus->setText(tr("%1%2 \u00b7 %3 ms")
                                  .arg(countOf(m_ops->rowCount(), tr("name"), tr("names")),
                                       out.scoped ? tr(" in %1 both completed").arg(countOf(qint64(out.steps.size()), tr("step"), tr("steps")))
                                                  : QString())
                                  .arg(out.elapsedMs));
        Q_EMIT diffReady(out.a, out.b);
    };
    auto work = [session = m_session, a = m_diffA, b = m_diffB, ta = cachedTotals(m_diffA), tb = cachedTotals(m_diffB),
                 scoped = m_completedOnly->isChecked()]() {
        QElapsedTimer timer;
        timer.start();
        DiffOutcome out;
        out.session = session;
        out.a = a;
        out.b = b;
        out.scoped = scoped;
        out.steps = RankDiff::steps(*session, a, b);
        if (scoped) {
            std::erase_if(out.steps, [](const StepDiffRow &r) { return !r.completedByBoth(); });
            std::vector<std::int64_t> numbers;
            for (const StepDiffRow &r : out.steps)
                numbers.push_back(r.number);
            out.totalsA = std::make_shared<const RankOpTotals>(OpTotals::compute(*session, a, numbers));
            out.totalsB = a == b ? out.totalsA : std::make_shared<const RankOpTotals>(OpTotals::compute(*session, b, numbers));
        } else {
            out.totalsA = ta ? ta : std::make_shared<const RankOpTotals>(OpTotals::compute(*session, a));
            out.totalsB = a == b ? out.totalsA : tb ? tb : std::make_shared<const RankOpTotals>(OpTotals::compute(*session, b));
        }
        out.ops = RankDiff::ops(*session, *out.totalsA, *out.totalsB);
        out.elapsedMs = timer.elapsed();
        return out;
    };
    m_jobs.run(std::move(work), show, keepTotals);
}

void CompareView::setTaskMonitor(TaskMonitor *tasks)
{
    m_tasks = tasks;
}

void CompareView::syncSelectedRank(RankId rank)
{
    const int row = m_metrics->rowOf(rank);
    if (row < 0) {
        m_metricsTable->clearSelection();
        return;
    }
    const QModelIndex proxy = m_metricsProxy->mapFromSource(m_metrics->index(row, 0));
    if (proxy.isValid())
        m_metricsTable->selectRow(proxy.row());
}

} // namespace rs
