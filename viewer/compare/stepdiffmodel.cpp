#include "stepdiffmodel.h"

#include "opdiffmodel.h"
#include "palette.h"
#include "timeformat.h"

#include <QColor>

namespace rs {

StepDiffModel::StepDiffModel(QObject *parent) : QAbstractTableModel(parent) {}

void StepDiffModel::setSteps(std::vector<StepDiffRow> rows, RankId a, RankId b)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_a = a;
    m_b = b;
    endResetModel();
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void StepDiffModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

int StepDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int StepDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StepDiffModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const StepDiffRow &r = m_rows[std::size_t(index.row())];
    const int col = index.column();
    // A cut-off step has a length but no pace: no change is computed against it.
    const bool cut = r.incompleteA || r.incompleteB;
    std::optional<TimeNs> delta;
    if (!cut)
        delta = r.delta();
    const auto duration = [](const std::optional<TimeNs> &d, bool incomplete) {
        if (!d)
            return QStringLiteral("\u2014");
        return incomplete ? tr("%1 (cut off)").arg(TimeFormat::duration(*d)) : TimeFormat::duration(*d);
    };
    std::optional<double> ratio;
    if (delta && r.a && *r.a > 0)
        ratio = double(*delta) / double(*r.a);
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case StepColumn: return QString::number(r.number);
        case DurationAColumn: return duration(r.a, r.incompleteA);
        case DurationBColumn: return duration(r.b, r.incompleteB);
        case DeltaColumn:
            if (!delta)
                return QStringLiteral("\u2014");
            return *delta > 0 ? QStringLiteral("+") + TimeFormat::duration(*delta)
                               : *delta < 0 ? QStringLiteral("\u2212") + TimeFormat::duration(-*delta) : TimeFormat::duration(0);
        case RelativeColumn:
            return ratio ? QStringLiteral("%1%2 %").arg(*ratio > 0 ? QStringLiteral("+") : QString()).arg(*ratio * 100, 0, 'f', 1)
                         : QStringLiteral("\u2014");
        default: return {};
        }
    case SortRole:
        switch (col) {
        case StepColumn: return qint64(r.number);
        case DurationAColumn: return r.a ? QVariant(qint64(*r.a)) : QVariant();
        case DurationBColumn: return r.b ? QVariant(qint64(*r.b)) : QVariant();
        case DeltaColumn: return delta ? QVariant(qint64(*delta)) : QVariant();
        case RelativeColumn: return ratio ? QVariant(*ratio) : QVariant();
        default: return {};
        }
    case StepNumberRole: return qint64(r.number);
    case Qt::ForegroundRole:
        if ((col == DeltaColumn || col == RelativeColumn) && delta)
            return deltaColor(double(*delta));
        if ((col == DurationAColumn && (!r.a || r.incompleteA)) || (col == DurationBColumn && (!r.b || r.incompleteB)))
            return Palette::screen().color(Palette::Role::AxisLine);
        return {};
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (cut)
            return tr("rank %1 stopped inside step %2 (it crashed or its trace ended): the step is cut off, not fast")
                .arg(r.incompleteA ? m_a : m_b)
                .arg(r.number);
        if (!r.a || !r.b)
            return tr("step %1 ran on rank %2 only").arg(r.number).arg(r.a ? m_a : m_b);
        return {};
    default: return {};
    }
}

QVariant StepDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StepColumn: return tr("Step");
    case DurationAColumn: return tr("Rank %1").arg(m_a);
    case DurationBColumn: return tr("Rank %1").arg(m_b);
    case DeltaColumn: return tr("\u0394");
    case RelativeColumn: return tr("\u0394 %");
    default: return {};
    }
}

} // namespace rs
