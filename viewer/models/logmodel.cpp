#include "logmodel.h"

#include "palette.h"

#include "placements.h"

#include "logstyle.h"
#include "timeformat.h"
#include "viewstate.h"

#include <QColor>
#include <QFileInfo>
#include <QFontDatabase>

#include <algorithm>

namespace rs {

LogModel::LogModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void LogModel::setSession(SessionPtr session)
{
    beginResetModel();
    m_session = std::move(session);
    m_firstTime = 0;
    if (m_session) {
        TimeNs first = std::numeric_limits<TimeNs>::max();
        for (const LogRecord &r : m_session->logs().records)
            if (r.time != kNoTime)
                first = std::min(first, r.time);
        m_firstTime = first == std::numeric_limits<TimeNs>::max() ? 0 : first;
    }
    endResetModel();
}

void LogModel::setViewState(const ViewState *state)
{
    m_state = state;
    refreshTimes();
}

void LogModel::refreshTimes()
{
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, TimeColumn), index(rowCount() - 1, TimeColumn), {Qt::DisplayRole, Qt::ToolTipRole, Qt::FontRole});
}

TimeNs LogModel::origin() const
{
    return m_state ? m_state->fullRange().begin : m_firstTime;
}

TimeNs LogModel::offset(RankId rank) const
{
    return m_state && rank >= 0 ? m_state->clockOffset(rank) : 0;
}

void LogModel::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_analysis = std::move(analysis);
    refreshTimes();
}

QModelIndex LogModel::indexOfRecord(std::uint32_t record, int column) const
{
    return static_cast<int>(record) < rowCount() ? index(static_cast<int>(record), column) : QModelIndex();
}

int LogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_session ? 0 : static_cast<int>(m_session->logs().records.size());
}

int LogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_session)
        return {};
    const auto row = static_cast<std::uint32_t>(index.row());
    const LogRecord &r = m_session->logs().records[row];
    auto sourcePath = [&]() -> QString {
        return r.source < m_session->sources().size() ? QString::fromStdString(m_session->sources()[r.source].path) : QString();
    };
    switch (role) {
    case RecordIndexRole: return row;
    case TimeRole: return r.time == kNoTime ? QVariant() : QVariant(static_cast<qlonglong>(r.time));
    case RankRole: return r.rank;
    case LevelRole: return static_cast<int>(r.level);
    case MarkRole: return static_cast<int>(LogStyle::mark(r));
    case KindRole: return static_cast<int>(r.kind);
    case FlagsRole: return static_cast<int>(r.flags);
    case SourceRole: return sourcePath();
    case LineRole: return static_cast<qlonglong>(r.line);
    case TextRole: return LogStyle::message(m_session->logs(), r);
    default: break;
    }

    const auto column = static_cast<Column>(index.column());
    if (role == SortRole) {
        switch (column) {
        case TimeColumn: return static_cast<qlonglong>(r.time); // kNoTime is the smallest value
        case RankColumn: return r.rank;
        case LevelColumn: return static_cast<int>(LogStyle::mark(r));
        case KindColumn: return static_cast<int>(r.kind);
        case SourceColumn: return static_cast<qlonglong>(row); // source order
        case MessageColumn: return LogStyle::message(m_session->logs(), r);
        case ColumnCount: break;
        }
        return {};
    }
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (column) {
        case TimeColumn:
            if (r.time == kNoTime && m_analysis)
                if (const Placement *p = findLogPlacement(*m_session, m_analysis.get(), static_cast<std::uint32_t>(index.row())))
                    return role == Qt::DisplayRole
                        ? QStringLiteral("≈ %1").arg(TimeFormat::precise(placedDataTime(*m_analysis, *p) + offset(r.rank) - origin()))
                        : tr("The line has no time stamp of its own; %1").arg(placedByText(*p));
            if (r.time == kNoTime)
                return role == Qt::DisplayRole ? QStringLiteral("—") : tr("The line has no usable time stamp");
            if (role == Qt::ToolTipRole)
                return TimeFormat::wallClock(r.time);
            return TimeFormat::precise(r.time + offset(r.rank) - origin());
        case RankColumn:
            return r.rank >= 0 ? QString::number(r.rank) : LogStyle::rankName(r.rank);
        case LevelColumn:
            if (role == Qt::ToolTipRole)
                return r.flags ? LogStyle::flagNames(r.flags) : LogStyle::levelName(r.level);
            // An OOM says so whatever level its writer gave it.
            return LogStyle::mark(r) == LogStyle::Mark::Oom ? QStringLiteral("OOM") : LogStyle::levelName(r.level);
        case KindColumn:
            return LogStyle::kindName(r.kind);
        case SourceColumn: {
            const QString path = sourcePath();
            if (path.isEmpty())
                return tr("line %1").arg(r.line);
            return QStringLiteral("%1:%2").arg(role == Qt::ToolTipRole ? path : QFileInfo(path).fileName()).arg(r.line);
        }
        case MessageColumn: {
            const QString text = LogStyle::message(m_session->logs(), r);
            return role == Qt::ToolTipRole && text.size() > 2000 ? text.left(2000) + QStringLiteral("…") : text;
        }
        case ColumnCount: break;
        }
        return {};
    }
    const LogStyle::Mark mark = LogStyle::mark(r);
    if (role == Qt::ForegroundRole)
        return mark == LogStyle::Mark::Oom ? LogStyle::textColor(LogLevel::Error) : LogStyle::textColor(r.level);
    if (role == Qt::BackgroundRole) {
        // A faint band behind the rows that matter, strong enough to catch the eye while scrolling.
        switch (mark) {
        case LogStyle::Mark::Warning: return Palette::screen().color(Palette::Role::WarningRow);
        case LogStyle::Mark::Error: return Palette::screen().color(Palette::Role::ErrorRow);
        case LogStyle::Mark::Oom: return Palette::screen().color(Palette::Role::OomRow);
        case LogStyle::Mark::Info: break;
        }
        return {};
    }
    if (role == Qt::DecorationRole && column == LevelColumn)
    {
        QIcon &icon = m_icons[static_cast<std::size_t>(mark)];
        if (icon.isNull())
            icon = LogStyle::markerIcon(mark);
        return icon;
    }
    if (role == Qt::FontRole && column == TimeColumn && r.time == kNoTime && m_analysis
        && findLogPlacement(*m_session, m_analysis.get(), static_cast<std::uint32_t>(index.row()))) {
        QFont f;
        f.setItalic(true);
        return f;
    }
    if (role == Qt::FontRole && column == MessageColumn)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role == Qt::FontRole && column == LevelColumn && mark != LogStyle::Mark::Info) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::TextAlignmentRole && (column == TimeColumn || column == RankColumn))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant LogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == TimeColumn)
        return tr("Time since the session start, as on the timeline ruler; — when the line had no usable time stamp");
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(section)) {
    case TimeColumn: return tr("Time");
    case RankColumn: return tr("Rank");
    case LevelColumn: return tr("Level");
    case KindColumn: return tr("Kind");
    case SourceColumn: return tr("Source");
    case MessageColumn: return tr("Message");
    case ColumnCount: break;
    }
    return {};
}

} // namespace rs
