#include "importlogmodel.h"

#include "plural.h"

#include <QColor>
#include <QFileInfo>

#include <algorithm>

namespace rs {

namespace {

std::int64_t totalCount(const SourceCounts &c)
{
    return c.spans + c.instants + c.memoryEvents + c.counterSamples + c.steps + c.collectives + c.logLines
        + c.warnings + c.memorySummaries + c.oomMessages + c.gpuSamples + c.segments + c.traceEntries;
}

} // namespace

ImportLogModel::ImportLogModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ImportLogModel::setSession(SessionPtr session)
{
    beginResetModel();
    m_session = std::move(session);
    endResetModel();
}

QString ImportLogModel::ranksText(const Source &source)
{
    std::vector<RankId> ranks = source.ranks;
    std::sort(ranks.begin(), ranks.end());
    QStringList runs;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        runs << (j == i ? QString::number(ranks[i])
                        : QStringLiteral("%1–%2").arg(ranks[i]).arg(ranks[j]));
        i = j + 1;
    }
    if (runs.isEmpty())
        return tr("none");
    return QStringLiteral("%1 (%2)").arg(runs.join(QStringLiteral(", ")),
                                        QString::fromLatin1(rankOriginName(source.rankOrigin)));
}

QString ImportLogModel::countsText(const SourceCounts &c, int limit)
{
    const std::pair<std::int64_t, const char *> items[] = {
        {c.spans, QT_TR_NOOP("spans")}, {c.instants, QT_TR_NOOP("instants")}, {c.memoryEvents, QT_TR_NOOP("memory events")},
        {c.counterSamples, QT_TR_NOOP("counter samples")}, {c.steps, QT_TR_NOOP("steps")}, {c.collectives, QT_TR_NOOP("collectives")},
        {c.logLines, QT_TR_NOOP("log lines")}, {c.warnings, QT_TR_NOOP("NCCL warnings")}, {c.memorySummaries, QT_TR_NOOP("memory summaries")},
        {c.oomMessages, QT_TR_NOOP("OOM messages")}, {c.gpuSamples, QT_TR_NOOP("GPU samples")}, {c.segments, QT_TR_NOOP("segments")},
        {c.traceEntries, QT_TR_NOOP("trace entries")},
    };
    QStringList parts;
    for (const auto &[n, name] : items) {
        if (n == 0)
            continue;
        if (limit > 0 && parts.size() == limit) {
            parts << QStringLiteral("…");
            break;
        }
        parts << QStringLiteral("%L1 %2").arg(n).arg(tr(name));
    }
    return parts.isEmpty() ? tr("nothing read") : parts.join(QStringLiteral(" · "));
}

ImportLogModel::Status ImportLogModel::status(const Source &source)
{
    if (source.format.empty())
        return Unrecognised;
    if (source.hasErrors())
        return Errors;
    return source.diagnostics.empty() ? Ok : Warnings;
}

int ImportLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_session ? 0 : static_cast<int>(m_session->sources().size());
}

int ImportLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ImportLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_session)
        return {};
    const Source &s = m_session->sources()[static_cast<std::size_t>(index.row())];
    const int errors = static_cast<int>(s.errorCount());
    const int warnings = static_cast<int>(s.warningCount());
    const Status st = status(s);
    const QString path = QString::fromStdString(s.path);

    switch (role) {
    case SourceIdRole: return static_cast<uint>(index.row());
    case PathRole: return path;
    case StatusRole: return static_cast<int>(st);
    case ErrorCountRole: return errors;
    case WarningCountRole: return warnings;
    default: break;
    }

    const auto column = static_cast<Column>(index.column());
    if (role == Qt::DisplayRole || role == SortRole || role == Qt::ToolTipRole) {
        switch (column) {
        case FileColumn:
            return role == Qt::ToolTipRole ? path : QFileInfo(path).fileName();
        case FormatColumn:
            return s.format.empty() ? tr("unrecognised") : QString::fromStdString(s.format);
        case CompressionColumn:
            return QString::fromLatin1(compressionName(s.compression));
        case RanksColumn:
            if (role == SortRole)
                return s.ranks.empty() ? -1 : *std::min_element(s.ranks.begin(), s.ranks.end());
            return ranksText(s);
        case CountsColumn:
            if (role == SortRole)
                return static_cast<qlonglong>(totalCount(s.counts));
            return countsText(s.counts, role == Qt::ToolTipRole ? 0 : 3);
        case StatusColumn: {
            if (role == SortRole)
                return static_cast<int>(st) * 1000000 + errors * 1000 + warnings;
            QStringList parts;
            if (st == Unrecognised)
                parts << tr("not recognised");
            if (errors)
                parts << countOf(errors, tr("error"), tr("errors"));
            if (warnings)
                parts << countOf(warnings, tr("warning"), tr("warnings"));
            return parts.isEmpty() ? tr("OK") : parts.join(QStringLiteral(" · "));
        }
        case ColumnCount: break;
        }
        return {};
    }
    if (role == Qt::DecorationRole && column == StatusColumn) {
        switch (st) {
        case Ok: return QColor(0x2f, 0x8a, 0x5f);
        case Warnings: return QColor(0xd9, 0x8b, 0x1c);
        case Errors:
        case Unrecognised: return QColor(0xc9, 0x2a, 0x2a);
        }
    }
    if (role == Qt::ForegroundRole && column == StatusColumn && (st == Errors || st == Unrecognised))
        return QColor(0xb4, 0x23, 0x18);
    return {};
}

QVariant ImportLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case FileColumn: return tr("File");
    case FormatColumn: return tr("Format");
    case CompressionColumn: return tr("Compression");
    case RanksColumn: return tr("Rank(s)");
    case CountsColumn: return tr("Read");
    case StatusColumn: return tr("Status");
    case ColumnCount: break;
    }
    return {};
}

} // namespace rs
