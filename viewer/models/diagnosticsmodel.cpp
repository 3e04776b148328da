#include "diagnosticsmodel.h"

#include <QColor>
#include <QFileInfo>

namespace rs {

DiagnosticsModel::DiagnosticsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void DiagnosticsModel::setSession(SessionPtr session)
{
    beginResetModel();
    m_session = std::move(session);
    m_filter.reset();
    m_later.clear();
    rebuild();
    endResetModel();
}

void DiagnosticsModel::setLaterDiagnostics(std::vector<std::pair<SourceId, Diagnostic>> later)
{
    beginResetModel();
    m_later = std::move(later);
    rebuild();
    endResetModel();
}

const Diagnostic &DiagnosticsModel::diagnostic(const Row &row) const
{
    return row.later ? m_later[row.index].second : m_session->sources()[row.source].diagnostics[row.index];
}

void DiagnosticsModel::setSourceFilter(std::optional<SourceId> source)
{
    if (source == m_filter)
        return;
    beginResetModel();
    m_filter = source;
    rebuild();
    endResetModel();
}

void DiagnosticsModel::rebuild()
{
    m_rows.clear();
    if (!m_session)
        return;
    const auto &sources = m_session->sources();
    for (SourceId s = 0; s < sources.size(); ++s) {
        if (m_filter && *m_filter != s)
            continue;
        for (std::uint32_t i = 0; i < sources[s].diagnostics.size(); ++i)
            m_rows.push_back({s, i, false});
        for (std::uint32_t i = 0; i < m_later.size(); ++i)
            if (m_later[i].first == s)
                m_rows.push_back({s, i, true});
    }
}

int DiagnosticsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DiagnosticsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_session)
        return {};
    const Row &row = m_rows[static_cast<std::size_t>(index.row())];
    const SourceId sourceId = row.source;
    const Source &source = m_session->sources()[sourceId];
    const Diagnostic &d = diagnostic(row);
    switch (role) {
    case SourceIdRole: return static_cast<uint>(sourceId);
    case SeverityRole: return static_cast<int>(d.severity);
    case LineRole: return static_cast<qlonglong>(d.line);
    case OffsetRole: return static_cast<qlonglong>(d.offset);
    default: break;
    }
    const auto column = static_cast<Column>(index.column());
    if (role == Qt::DisplayRole || role == SortRole || role == Qt::ToolTipRole) {
        switch (column) {
        case SeverityColumn:
            if (role == SortRole)
                return d.isError() ? 0 : 1; // errors first when sorted ascending
            return d.isError() ? tr("error") : tr("warning");
        case FileColumn: {
            const QString path = QString::fromStdString(source.path);
            return role == Qt::ToolTipRole ? path : QFileInfo(path).fileName();
        }
        case LineColumn:
            if (role == SortRole)
                return static_cast<qlonglong>(d.line);
            return d.line >= 0 ? QVariant(static_cast<qlonglong>(d.line)) : QVariant(QString());
        case OffsetColumn:
            if (role == SortRole)
                return static_cast<qlonglong>(d.offset);
            // In a .gz/.zst file the offset counts decompressed bytes: the tooltip says so.
            if (role == Qt::ToolTipRole && d.offset >= 0)
                return source.compression == Compression::None ? tr("byte %1 of the file").arg(d.offset)
                                                               : tr("decompressed offset %1 (%2 file)")
                                                                     .arg(d.offset)
                                                                     .arg(QString::fromLatin1(compressionName(source.compression)));
            return d.offset >= 0 ? QVariant(static_cast<qlonglong>(d.offset)) : QVariant(QString());
        case CodeColumn:
            return QString::fromStdString(d.code);
        case CountColumn:
            if (role == SortRole)
                return static_cast<qlonglong>(d.count);
            return static_cast<qlonglong>(d.count);
        case MessageColumn: {
            if (role != Qt::ToolTipRole || d.examples.empty())
                return QString::fromStdString(d.message);
            // The tooltip lists the further occurrences the importer kept, with their locations.
            QStringList lines{QString::fromStdString(d.message)};
            for (const Diagnostic::Example &e : d.examples)
                lines << (e.line >= 0                                   ? tr("line %1: ").arg(e.line)
                          : source.compression == Compression::None ? tr("byte %1: ").arg(e.offset)
                                                                    : tr("decompressed offset %1: ").arg(e.offset))
                        + QString::fromStdString(e.message);
            if (d.count > qint64(d.examples.size()) + 1)
                lines << tr("… %1 more").arg(d.count - qint64(d.examples.size()) - 1);
            return lines.join(QLatin1Char('\n'));
        }
        case ColumnCount: break;
        }
        return {};
    }
    if (role == Qt::ForegroundRole && column == SeverityColumn)
        return d.isError() ? QColor(0xb4, 0x23, 0x18) : QColor(0x9a, 0x5b, 0x13);
    if (role == Qt::TextAlignmentRole && (column == LineColumn || column == OffsetColumn || column == CountColumn))
        return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case SeverityColumn: return tr("Severity");
    case FileColumn: return tr("File");
    case LineColumn: return tr("Line");
    case OffsetColumn: return tr("Offset");
    case CodeColumn: return tr("Code");
    case CountColumn: return tr("Count");
    case MessageColumn: return tr("Message");
    case ColumnCount: break;
    }
    return {};
}

} // namespace rs
