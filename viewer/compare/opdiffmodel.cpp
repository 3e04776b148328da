#include "opdiffmodel.h"

#include "palette.h"
#include "timeformat.h"

#include <QColor>
#include <QFont>
#include <QLocale>

namespace rs {

namespace {

QString signedText(qint64 v, const QString &text)
{
    return v > 0 ? QStringLiteral("+") + text : text;
}

QString bytesText(std::int64_t v)
{
    return v < 0 ? QStringLiteral("\u2212") + TimeFormat::bytes(double(-v)) : TimeFormat::bytes(double(v));
}

QString durationText(TimeNs v)
{
    return v < 0 ? QStringLiteral("\u2212") + TimeFormat::duration(-v) : TimeFormat::duration(v);
}

} // namespace

QColor deltaColor(double delta)
{
    if (delta > 0)
        return QColor(0xb4, 0x23, 0x18);
    if (delta < 0)
        return QColor(0x1e, 0x7b, 0x3a);
    return QColor(0x8a, 0x90, 0x96);
}

OpDiffModel::OpDiffModel(QObject *parent) : QAbstractTableModel(parent) {}

void OpDiffModel::setDiff(SessionPtr session, std::vector<OpDiffRow> rows, RankId a, RankId b)
{
    beginResetModel();
    m_session = std::move(session);
    m_rows = std::move(rows);
    m_a = a;
    m_b = b;
    endResetModel();
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void OpDiffModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_session.reset();
    endResetModel();
}

int OpDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int OpDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpDiffModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount || !m_session)
        return {};
    const OpDiffRow &r = m_rows[std::size_t(index.row())];
    const int col = index.column();
    const auto number = [&]() -> qint64 {
        switch (col) {
        case CountAColumn: return r.a.count;
        case CountBColumn: return r.b.count;
        case CountDeltaColumn: return r.countDelta();
        case TimeAColumn: return r.a.time;
        case TimeBColumn: return r.b.time;
        case TimeDeltaColumn: return r.timeDelta();
        case BytesAColumn: return r.a.bytes;
        case BytesBColumn: return r.b.bytes;
        case BytesDeltaColumn: return r.bytesDelta();
        default: return 0;
        }
    };
    const auto name = [&] {
        const std::string_view s = m_session->str(r.name);
        return QString::fromUtf8(s.data(), qsizetype(s.size()));
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case NameColumn: return name();
        case KindColumn: return QString::fromLatin1(opKindName(r.kind));
        case CountAColumn:
        case CountBColumn: return QLocale().toString(number());
        case CountDeltaColumn: return signedText(number(), QLocale().toString(number()));
        case TimeAColumn:
        case TimeBColumn: return TimeFormat::duration(number());
        case TimeDeltaColumn: return signedText(number(), durationText(number()));
        case BytesAColumn:
        case BytesBColumn: return r.kind == OpKind::CpuOp ? TimeFormat::bytes(double(number())) : QStringLiteral("\u2014");
        case BytesDeltaColumn: return r.kind == OpKind::CpuOp ? signedText(number(), bytesText(number())) : QStringLiteral("\u2014");
        default: return {};
        }
    case SortRole:
        if (col == NameColumn)
            return name();
        if (col == KindColumn)
            return QString::fromLatin1(opKindName(r.kind));
        if ((col == BytesAColumn || col == BytesBColumn || col == BytesDeltaColumn) && r.kind != OpKind::CpuOp)
            return {}; // kernels allocate nothing themselves: no value, sorted last
        return number();
    case KindRole: return int(r.kind);
    case OneSidedRole: return r.oneSided();
    case NameIdRole: return uint(r.name);
    case Qt::ForegroundRole:
        if (col == CountDeltaColumn || col == TimeDeltaColumn || (col == BytesDeltaColumn && r.kind == OpKind::CpuOp))
            return deltaColor(double(number()));
        if ((col == CountAColumn || col == TimeAColumn) && r.a.count == 0)
            return Palette::screen().color(Palette::Role::AxisLine);
        if ((col == CountBColumn || col == TimeBColumn) && r.b.count == 0)
            return Palette::screen().color(Palette::Role::AxisLine);
        return {};
    case Qt::FontRole:
        if (r.oneSided() && col == NameColumn) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        return col <= KindColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (col == NameColumn) {
            QString tip = name();
            if (r.oneSided())
                tip += QLatin1Char('\n') + tr("only on rank %1").arg(r.a.count ? m_a : m_b);
            return tip;
        }
        return {};
    default: return {};
    }
}

QVariant OpDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    const QString a = tr("r%1").arg(m_a), b = tr("r%1").arg(m_b);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn: return tr("Name");
        case KindColumn: return tr("Kind");
        case CountAColumn: return tr("Calls %1").arg(a);
        case CountBColumn: return tr("Calls %1").arg(b);
        case CountDeltaColumn: return tr("\u0394 calls");
        case TimeAColumn: return tr("Time %1").arg(a);
        case TimeBColumn: return tr("Time %1").arg(b);
        case TimeDeltaColumn: return tr("\u0394 time");
        case BytesAColumn: return tr("Alloc %1").arg(a);
        case BytesBColumn: return tr("Alloc %1").arg(b);
        case BytesDeltaColumn: return tr("\u0394 alloc");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (section == CountDeltaColumn || section == TimeDeltaColumn || section == BytesDeltaColumn)
            return tr("rank %1 minus rank %2").arg(m_b).arg(m_a);
        if (section == TimeAColumn || section == TimeBColumn)
            return tr("Total inclusive time (sum of durations)");
        if (section == BytesAColumn || section == BytesBColumn)
            return tr("Device memory allocated while the op was the innermost one running (profiler [memory] events)");
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace rs
