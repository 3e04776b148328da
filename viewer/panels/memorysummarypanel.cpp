#include "memorysummarypanel.h"

#include "palette.h"

#include "models/memorysummarymodel.h"
#include "plural.h"
#include "rankcolors.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace rs {

namespace {

// Frames the selected rank's column in the rank's colour. A selection highlight would hide the
// deviation colours, which are the point of the table.
class RankColumnDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    RankId selected = kNoRank;

    void paint(QPainter *p, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::paint(p, option, index);
        if (selected == kNoRank || index.data(MemorySummaryModel::RankRole).toInt() != selected)
            return;
        p->save();
        p->setPen(QPen(RankColors::color(selected), 2));
        const QRect r = option.rect;
        p->drawLine(r.topLeft() + QPoint(1, 0), r.bottomLeft() + QPoint(1, 1));
        p->drawLine(r.topRight(), r.bottomRight() + QPoint(0, 1));
        if (index.row() == 0)
            p->drawLine(r.topLeft(), r.topRight());
        if (index.row() == index.model()->rowCount() - 1)
            p->drawLine(r.bottomLeft(), r.bottomRight());
        p->restore();
    }
};

QString swatch(const QColor &c)
{
    return QStringLiteral("<span style='background:%1; border:1px solid #c8ccd3;'>&nbsp;&nbsp;&nbsp;&nbsp;</span>").arg(c.name());
}

} // namespace

MemorySummaryPanel::MemorySummaryPanel(ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_state(state)
    , m_model(new MemorySummaryModel(this))
{
    m_statistic = new QComboBox;
    m_statistic->addItem(tr("Current usage"), static_cast<int>(MemorySummaryModel::Statistic::Current));
    m_statistic->addItem(tr("Peak usage"), static_cast<int>(MemorySummaryModel::Statistic::Peak));
    m_statistic->addItem(tr("Total allocated"), static_cast<int>(MemorySummaryModel::Statistic::TotalAllocated));
    m_statistic->addItem(tr("Total freed"), static_cast<int>(MemorySummaryModel::Statistic::TotalFreed));
    m_statistic->setToolTip(tr("Which column of the printed tables the metric rows compare"));
    m_caption = new QLabel;
    m_caption->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));

    m_view = new QTableView;
    m_view->setModel(m_model);
    m_view->setSelectionMode(QAbstractItemView::NoSelection);
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(false);
    m_view->setShowGrid(true);
    m_view->setStyleSheet(QStringLiteral("QTableView { gridline-color: #eceef1; }"));
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->horizontalHeader()->setDefaultSectionSize(96);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setSectionsClickable(true);
    m_view->horizontalHeader()->setCursor(Qt::PointingHandCursor);
    auto *delegate = new RankColumnDelegate(m_view);
    m_view->setItemDelegate(delegate);
    connect(m_view->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int section) {
        const RankId rank = m_model->headerData(section, Qt::Horizontal, MemorySummaryModel::RankRole).toInt();
        // A second click on the selected rank clears the selection.
        m_state->setSelectedRank(m_state->selectedRank() == rank ? kNoRank : rank);
    });
    connect(m_statistic, &QComboBox::currentIndexChanged, this, [this] {
        m_model->setStatistic(static_cast<MemorySummaryModel::Statistic>(m_statistic->currentData().toInt()));
    });
    connect(m_state, &ViewState::selectedRankChanged, this, &MemorySummaryPanel::followSelectedRank);

    m_legend = new QLabel(tr("Cells compare each rank with the median of the ranks: %1 below &nbsp; %2 near (±5 %) &nbsp; "
                             "%3 above — deeper colour, further off (full at ±50 %). Hover a cell for exact bytes.")
                              .arg(swatch(MemorySummaryModel::deviationColor(-0.5)), swatch(Qt::white),
                                   swatch(MemorySummaryModel::deviationColor(0.5))));
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    m_legend->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));

    auto *empty = new QLabel(tr("No memory_summary() tables in this session. Print torch.cuda.memory_summary() "
                                "from the training script (for example when it catches an OOM) and add that output "
                                "to compare the allocator's state across ranks."));
    empty->setWordWrap(true);
    empty->setAlignment(Qt::AlignCenter);
    empty->setStyleSheet(QStringLiteral("color: %1; padding: 16px;").arg(Palette::screen().css(Palette::Role::Muted)));
    auto *tablePage = new QWidget;
    auto *tableLayout = new QVBoxLayout(tablePage);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_view, 1);
    tableLayout->addWidget(m_legend);
    m_stack = new QStackedWidget;
    m_stack->addWidget(empty);
    m_stack->addWidget(tablePage);

    auto *top = new QHBoxLayout;
    top->addWidget(m_caption, 1);
    top->addWidget(new QLabel(tr("Compare:")));
    top->addWidget(m_statistic);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);
    setSession(nullptr);
}

void MemorySummaryPanel::setSession(SessionPtr session)
{
    m_model->setSession(std::move(session));
    m_model->setSelectedRank(m_state->selectedRank());
    static_cast<RankColumnDelegate *>(m_view->itemDelegate())->selected = m_state->selectedRank();
    m_stack->setCurrentIndex(m_model->columnCount() > 0 ? 1 : 0);
    m_view->resizeColumnsToContents();
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_view->setColumnWidth(c, std::max(m_view->columnWidth(c) + 12, 92));
    updateCaption();
}

void MemorySummaryPanel::updateCaption()
{
    const int ranks = m_model->columnCount();
    m_caption->setText(ranks == 0 ? QString()
                                  : tr("Latest memory_summary() of %1").arg(countOf(ranks, tr("rank"), tr("ranks"))));
}

void MemorySummaryPanel::followSelectedRank(RankId rank)
{
    m_model->setSelectedRank(rank);
    static_cast<RankColumnDelegate *>(m_view->itemDelegate())->selected = rank;
    const int column = m_model->columnOf(rank);
    if (column >= 0)
        m_view->scrollTo(m_model->index(0, column), QAbstractItemView::EnsureVisible);
    m_view->viewport()->update();
}

void MemorySummaryPanel::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_model->setAnalysis(std::move(analysis));
}

} // namespace rs
