#include "annotationmodel.h"

#include "timeformat.h"

#include <QColor>

namespace rs {

AnnotationModel::AnnotationModel(AnnotationStore *store, QObject *parent)
    : QAbstractTableModel(parent)
    , m_store(store)
    , m_rows(store->visibleAnnotations())
{
    connect(store, &AnnotationStore::changed, this, &AnnotationModel::storeChanged);
}

QString AnnotationModel::kindName(Annotation::Kind kind)
{
    switch (kind) {
    case Annotation::Kind::Note: return tr("Note");
    case Annotation::Kind::Arrow: return tr("Arrow");
    case Annotation::Kind::Range: return tr("Range");
    }
    return {};
}

void AnnotationModel::storeChanged()
{
    std::vector<Annotation> next = m_store->visibleAnnotations();
    const bool sameRows = next.size() == m_rows.size()
        && std::equal(next.begin(), next.end(), m_rows.begin(), [](const Annotation &a, const Annotation &b) { return a.id == b.id; });
    if (!sameRows) {
        // Rows came or went: a reset is simplest, and the list is short.
        beginResetModel();
        m_rows = std::move(next);
        endResetModel();
        return;
    }
    // Same rows (an edit or a drag): announce just the changed ones, so views keep their selection
    // and an open editor survives.
    for (std::size_t i = 0; i < next.size(); ++i) {
        if (next[i] == m_rows[i])
            continue;
        m_rows[i] = std::move(next[i]);
        const int row = static_cast<int>(i);
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

void AnnotationModel::setTimeOrigin(TimeNs origin)
{
    if (origin == m_origin)
        return;
    m_origin = origin;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, TimeColumn), index(rowCount() - 1, TimeColumn));
}

const Annotation *AnnotationModel::annotationAt(int row) const
{
    return row >= 0 && row < rowCount() ? &m_rows[static_cast<std::size_t>(row)] : nullptr;
}

int AnnotationModel::rowOf(std::uint64_t id) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return static_cast<int>(i);
    return -1;
}

int AnnotationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AnnotationModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString AnnotationModel::timeText(const Annotation &a) const
{
    const QString start = TimeFormat::precise(a.time - m_origin);
    switch (a.kind) {
    case Annotation::Kind::Note: return start;
    case Annotation::Kind::Arrow:
        return a.endTime == a.time ? start : QStringLiteral("%1 → %2").arg(start, TimeFormat::precise(a.endTime - m_origin));
    case Annotation::Kind::Range: return QStringLiteral("%1 (%2)").arg(start, TimeFormat::duration(a.endTime - a.time));
    }
    return start;
}

QVariant AnnotationModel::data(const QModelIndex &index, int role) const
{
    const Annotation *a = index.isValid() ? annotationAt(index.row()) : nullptr;
    if (!a || index.column() >= ColumnCount)
        return {};
    switch (role) {
    case IdRole: return QVariant::fromValue<quint64>(a->id);
    case KindRole: return static_cast<int>(a->kind);
    case RankRole: return static_cast<int>(a->rank);
    case TimeRole: return QVariant::fromValue<qint64>(a->time);
    case EndTimeRole: return QVariant::fromValue<qint64>(a->endTime);
    case OriginRole: return static_cast<int>(a->origin);
    default: break;
    }
    const auto column = static_cast<Column>(index.column());
    if (role == SortRole) {
        switch (column) {
        case RankColumn: return static_cast<int>(a->rank);
        case TimeColumn: return QVariant::fromValue<qint64>(a->time);
        case KindColumn: return static_cast<int>(a->kind);
        case OriginColumn: return static_cast<int>(a->origin);
        default: return a->text;
        }
    }
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (column) {
        case KindColumn: return kindName(a->kind);
        case RankColumn:
            if (a->kind == Annotation::Kind::Arrow && a->endRank != a->rank)
                return QStringLiteral("%1 → %2").arg(a->rank == kNoRank ? tr("all") : QString::number(a->rank),
                                                     a->endRank == kNoRank ? tr("all") : QString::number(a->endRank));
            return a->rank == kNoRank ? tr("all") : QString::number(a->rank);
        case TimeColumn: return timeText(*a);
        case TextColumn:
            // The list shows one line; the editor gets the whole text.
            return role == Qt::EditRole ? a->text : QString(a->text).replace(QLatin1Char('\n'), QStringLiteral(" ⏎ "));
        case OriginColumn: return a->origin == Annotation::Origin::Finding ? tr("Finding") : tr("User");
        case ColumnCount: break;
        }
    }
    if (role == Qt::DecorationRole && column == KindColumn)
        return a->effectiveColor();
    if (role == Qt::ToolTipRole && column == TextColumn && !a->text.isEmpty())
        return a->text;
    if (role == Qt::ToolTipRole && column == TimeColumn)
        return TimeFormat::wallClock(a->time);
    if (role == Qt::TextAlignmentRole && (column == RankColumn || column == TimeColumn))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && column == OriginColumn && a->origin == Annotation::Origin::Finding)
        return a->effectiveColor();
    return {};
}

QVariant AnnotationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case KindColumn: return tr("Kind");
    case RankColumn: return tr("Rank");
    case TimeColumn: return tr("Time");
    case TextColumn: return tr("Text");
    case OriginColumn: return tr("Origin");
    default: return {};
    }
}

Qt::ItemFlags AnnotationModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == TextColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

bool AnnotationModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    const Annotation *a = index.isValid() ? annotationAt(index.row()) : nullptr;
    if (!a || role != Qt::EditRole || index.column() != TextColumn)
        return false;
    Annotation edited = *a;
    edited.text = value.toString();
    if (edited.text == a->text)
        return true;
    // The store announces the change back (changed() → dataChanged), one undo step.
    return m_store->update(edited);
}

QHash<int, QByteArray> AnnotationModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names[IdRole] = "annotationId";
    names[KindRole] = "kind";
    names[RankRole] = "rank";
    names[TimeRole] = "time";
    names[EndTimeRole] = "endTime";
    names[OriginRole] = "origin";
    names[SortRole] = "sort";
    return names;
}

} // namespace rs
