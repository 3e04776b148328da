#include "clockoffsetspanel.h"

#include "palette.h"

#include "rankcolors.h"
#include "timeformat.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStyle>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace rs {

namespace {

constexpr double kNsPerUs = 1000.0;
// ±1000 s: far beyond any clock skew worth correcting, small enough to type.
constexpr double kMaxOffsetUs = 1.0e9;

QColor methodColor(AlignmentMethod m)
{
    switch (m) {
    case AlignmentMethod::Collectives: return {0x1f, 0x7a, 0x3f};
    case AlignmentMethod::Steps: return {0x9a, 0x6b, 0x00};
    case AlignmentMethod::WallClock:
    case AlignmentMethod::Anchor: return {0x4b, 0x55, 0x63};
    case AlignmentMethod::User: return {0x1f, 0x4e, 0x8c};
    case AlignmentMethod::None: return {0xc9, 0x1d, 0x2e};
    }
    return {};
}

// Amber: an estimate to check, not an error.
QColor lowConfidenceColor()
{
    return {0xb4, 0x53, 0x09};
}

QIcon rankIcon(RankId rank)
{
    QPixmap pm(10, 10);
    pm.fill(RankColors::color(rank));
    return QIcon(pm);
}

} // namespace

ClockOffsetsPanel::ClockOffsetsPanel(QWidget *parent)
    : QWidget(parent)
{
    qRegisterMetaType<std::map<RankId, TimeNs>>();
    m_note = new QLabel(tr("An offset is added to every time of its rank to place it on the common axis. "
                           "Type one in µs to correct the alignment; the timeline moves at once and the analysis reruns."));
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("color: %1;").arg(Palette::screen().css(Palette::Role::Muted)));
    m_resetAll = new QPushButton(tr("Reset All"));
    m_resetAll->setToolTip(tr("Back to the estimated offsets of every rank"));
    connect(m_resetAll, &QPushButton::clicked, this, &ClockOffsetsPanel::resetAll);
    auto *top = new QHBoxLayout;
    top->setContentsMargins(8, 6, 8, 6);
    top->addWidget(m_note, 1);
    top->addWidget(m_resetAll);

    m_table = new QTableWidget(0, ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("Rank"), tr("Offset"), tr("Method"), tr("Residual"), tr("Anchors"), QString()});
    m_table->verticalHeader()->hide();
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setShowGrid(false);
    m_table->setAlternatingRowColors(true);
    QHeaderView *h = m_table->horizontalHeader();
    h->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    h->setSectionResizeMode(QHeaderView::Interactive);
    h->resizeSection(RankColumn, 80);
    h->resizeSection(OffsetColumn, 170);
    h->resizeSection(MethodColumn, 110);
    h->resizeSection(ResidualColumn, 100);
    h->resizeSection(AnchorsColumn, 80);
    h->setStretchLastSection(true);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);
    rebuild();
}

QString ClockOffsetsPanel::methodText(AlignmentMethod m)
{
    switch (m) {
    case AlignmentMethod::Collectives: return tr("collectives");
    case AlignmentMethod::Steps: return tr("steps");
    case AlignmentMethod::WallClock: return tr("wall clock");
    case AlignmentMethod::Anchor: return tr("anchor");
    case AlignmentMethod::User: return tr("user");
    case AlignmentMethod::None: return tr("none");
    }
    return {};
}

void ClockOffsetsPanel::setResult(std::shared_ptr<const AnalysisResult> result)
{
    m_result = std::move(result);
    if (m_result)
        for (const RankAlignment &a : m_result->alignment)
            if (a.method != AlignmentMethod::User)
                m_estimates[a.rank] = a.offsetNs;
    rebuild();
}

void ClockOffsetsPanel::clear()
{
    m_overrides.clear();
    m_estimates.clear();
    m_result.reset();
    rebuild();
}

std::optional<TimeNs> ClockOffsetsPanel::estimate(RankId rank) const
{
    const auto it = m_estimates.find(rank);
    return it == m_estimates.end() ? std::nullopt : std::optional<TimeNs>(it->second);
}

QHash<RankId, TimeNs> ClockOffsetsPanel::effectiveOffsets() const
{
    QHash<RankId, TimeNs> out;
    if (m_result)
        for (const RankAlignment &a : m_result->alignment)
            out.insert(a.rank, a.offsetNs);
    for (const auto &[rank, ns] : m_estimates)
        if (!m_overrides.count(rank))
            out.insert(rank, ns);
    for (const auto &[rank, ns] : m_overrides)
        out.insert(rank, ns);
    return out;
}

int ClockOffsetsPanel::rowOf(RankId rank) const
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (m_table->item(row, RankColumn) && m_table->item(row, RankColumn)->data(Qt::UserRole).toInt() == rank)
            return row;
    return -1;
}

QDoubleSpinBox *ClockOffsetsPanel::offsetEditor(RankId rank) const
{
    const int row = rowOf(rank);
    return row < 0 ? nullptr : qobject_cast<QDoubleSpinBox *>(m_table->cellWidget(row, OffsetColumn));
}

void ClockOffsetsPanel::rebuild()
{
    m_filling = true;
    m_table->setRowCount(0);
    const int rows = m_result ? static_cast<int>(m_result->alignment.size()) : 0;
    m_table->setRowCount(rows);
    for (int row = 0; row < rows; ++row) {
        const RankAlignment &a = m_result->alignment[static_cast<std::size_t>(row)];
        auto *rank = new QTableWidgetItem(rankIcon(a.rank), tr("Rank %1").arg(a.rank));
        rank->setData(Qt::UserRole, a.rank);
        // Ranks of one host share its clock: alignment keeps them together.
        if (!a.host.empty())
            rank->setToolTip(tr("Rank %1 on host %2").arg(a.rank).arg(QString::fromStdString(a.host)));
        m_table->setItem(row, RankColumn, rank);

        auto *spin = new QDoubleSpinBox;
        spin->setRange(-kMaxOffsetUs, kMaxOffsetUs);
        spin->setDecimals(3);
        spin->setSuffix(tr(" µs"));
        spin->setSingleStep(10);
        spin->setAccelerated(true);
        spin->setFrame(false);
        // Typing commits on Enter or focus-out; the arrows commit each step. Either way one
        // re-analysis per change, not one per keystroke.
        spin->setKeyboardTracking(false);
        const RankId id = a.rank;
        connect(spin, &QDoubleSpinBox::valueChanged, this, [this, id](double us) {
            if (!m_filling)
                setOffset(id, static_cast<TimeNs>(std::llround(us * kNsPerUs)));
        });
        m_table->setCellWidget(row, OffsetColumn, spin);

        m_table->setItem(row, MethodColumn, new QTableWidgetItem);
        m_table->setItem(row, ResidualColumn, new QTableWidgetItem);
        m_table->setItem(row, AnchorsColumn, new QTableWidgetItem);

        auto *reset = new QToolButton;
        reset->setText(tr("Reset"));
        reset->setAutoRaise(true);
        connect(reset, &QToolButton::clicked, this, [this, id] { resetOffset(id); });
        m_table->setCellWidget(row, ResetColumn, reset);
        updateRow(row);
    }
    m_resetAll->setEnabled(!m_overrides.empty());
    m_filling = false;
}

void ClockOffsetsPanel::updateRow(int row)
{
    const RankAlignment &a = m_result->alignment[static_cast<std::size_t>(row)];
    const bool overridden = m_overrides.count(a.rank) > 0;
    const TimeNs offset = overridden ? m_overrides.at(a.rank) : estimate(a.rank).value_or(a.offsetNs);
    const bool filling = m_filling;
    m_filling = true;
    auto *spin = qobject_cast<QDoubleSpinBox *>(m_table->cellWidget(row, OffsetColumn));
    spin->setValue(static_cast<double>(offset) / kNsPerUs);
    spin->setToolTip(tr("%1 (%2 ns)").arg(TimeFormat::duration(offset)).arg(offset));
    m_filling = filling;

    // Until the re-analysis returns, an edited rank already reads as the user's.
    const AlignmentMethod method = overridden ? AlignmentMethod::User : a.method;
    QTableWidgetItem *m = m_table->item(row, MethodColumn);
    m->setText(methodText(method));
    m->setForeground(methodColor(method));
    QString tip;
    if (const auto e = estimate(a.rank); e && overridden)
        tip = tr("Estimated: %1").arg(TimeFormat::duration(*e));
    else if (a.method != AlignmentMethod::None && a.rank != a.reference)
        tip = tr("Aligned to rank %1").arg(a.reference);
    else if (a.rank == a.reference)
        tip = tr("The reference rank");
    // An estimate that may be wrong says so where it is read: a warning icon and colour, the reason
    // in the tooltip. The user's own offset is not judged.
    const bool low = !overridden && a.confidence == RankAlignment::Confidence::Low;
    m->setIcon(low ? style()->standardIcon(QStyle::SP_MessageBoxWarning) : QIcon());
    m->setData(Qt::UserRole, low);
    if (low) {
        m->setForeground(lowConfidenceColor());
        tip = (tip.isEmpty() ? QString() : tip + QLatin1Char('\n'))
            + tr("Low confidence: %1").arg(QString::fromStdString(a.confidenceReason));
    }
    m->setToolTip(tip);
    m_table->item(row, ResidualColumn)->setText(a.residualNs && !overridden ? QStringLiteral("± %1").arg(TimeFormat::duration(*a.residualNs))
                                                                            : QStringLiteral("—"));
    m_table->item(row, AnchorsColumn)->setText(overridden || a.anchors == 0 ? QStringLiteral("—") : QString::number(a.anchors));
    if (auto *reset = m_table->cellWidget(row, ResetColumn))
        reset->setEnabled(overridden || a.method == AlignmentMethod::User);
}

void ClockOffsetsPanel::setOffset(RankId rank, TimeNs offsetNs)
{
    const auto it = m_overrides.find(rank);
    if (it != m_overrides.end() && it->second == offsetNs)
        return;
    if (it == m_overrides.end() && estimate(rank) == offsetNs)
        return;
    m_overrides[rank] = offsetNs;
    if (const int row = rowOf(rank); row >= 0)
        updateRow(row);
    m_resetAll->setEnabled(true);
    Q_EMIT clockOffsetsEdited(m_overrides);
}

void ClockOffsetsPanel::resetOffset(RankId rank)
{
    if (!m_overrides.erase(rank))
        return;
    // Shows the estimate now; the re-analysis confirms it.
    if (const int row = rowOf(rank); row >= 0)
        updateRow(row);
    m_resetAll->setEnabled(!m_overrides.empty());
    Q_EMIT clockOffsetsEdited(m_overrides);
}

void ClockOffsetsPanel::setOverrides(const std::map<RankId, TimeNs> &overrides)
{
    if (overrides == m_overrides)
        return;
    m_overrides = overrides;
    rebuild();
    m_resetAll->setEnabled(!m_overrides.empty());
    Q_EMIT clockOffsetsEdited(m_overrides);
}

void ClockOffsetsPanel::resetAll()
{
    if (m_overrides.empty())
        return;
    m_overrides.clear();
    rebuild();
    Q_EMIT clockOffsetsEdited(m_overrides);
}

} // namespace rs
