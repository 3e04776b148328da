#include "slicesearchmodel.h"

#include "timeformat.h"

#include <QRegularExpression>

#include <algorithm>

namespace rs {

SliceSearchModel::SliceSearchModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SliceSearchModel::setSession(SessionPtr session)
{
    cancelSearch();
    beginResetModel();
    m_session = std::move(session);
    m_matches.clear();
    m_truncated = false;
    m_error.clear();
    endResetModel();
}

void SliceSearchModel::setTimeBase(TimeNs origin, std::function<TimeNs(RankId)> offsetOf)
{
    m_origin = origin;
    m_offsetOf = std::move(offsetOf);
    if (!m_matches.empty())
        Q_EMIT dataChanged(index(0, StartColumn), index(rowCount() - 1, StartColumn), {Qt::DisplayRole});
}

SliceSearchModel::Result SliceSearchModel::find(const Session *session, const QString &pattern, bool regex, bool inArgs,
                                                const std::atomic<bool> &stop)
{
    Result r;
    QRegularExpression re;
    if (regex) {
        re = QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid())
            r.error = tr("Invalid expression: %1").arg(re.errorString());
    }
    if (!session || pattern.isEmpty() || !r.error.isEmpty())
        return r;
    auto matches = [&](const QString &text) { return regex ? re.match(text).hasMatch() : text.contains(pattern, Qt::CaseInsensitive); };
    // Each distinct name is tested once; spans then compare ids.
    const StringPool &pool = session->strings();
    std::vector<char> nameMatches(pool.size(), 0);
    for (StringId id = 0; id < pool.size(); ++id) {
        const std::string_view v = pool.view(id);
        nameMatches[id] = matches(QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()))) ? 1 : 0;
    }
    for (TrackId t = 0; t < session->tracks().size() && !r.truncated && !stop.load(std::memory_order_relaxed); ++t) {
        const Track &track = session->tracks()[t];
        for (std::uint32_t i = 0; i < track.spans.size(); ++i) {
            const Span &s = track.spans[i];
            bool hit = s.name < nameMatches.size() && nameMatches[s.name];
            if (!hit && inArgs && s.args != kNoArgs) {
                const std::string_view a = session->args(t, s.args);
                hit = !a.empty() && matches(QString::fromUtf8(a.data(), static_cast<qsizetype>(a.size())));
            }
            if (!hit)
                continue;
            if (r.matches.size() == kMaxMatches) {
                r.truncated = true;
                break;
            }
            r.matches.push_back({t, i});
        }
    }
    // Found in time order, whatever track they are on: Enter walks them as they happened.
    const auto start = [session](const Match &m) { return session->tracks()[m.track].spans[m.index].start; };
    std::stable_sort(r.matches.begin(), r.matches.end(), [&](const Match &a, const Match &b) { return start(a) < start(b); });
    return r;
}

void SliceSearchModel::show(Result result)
{
    beginResetModel();
    m_matches = std::move(result.matches);
    m_truncated = result.truncated;
    m_error = std::move(result.error);
    endResetModel();
}

void SliceSearchModel::search(const QString &pattern, bool regex, bool inArgs)
{
    cancelSearch();
    const std::atomic<bool> never{false};
    show(find(m_session.get(), pattern, regex, inArgs, never));
}

void SliceSearchModel::searchAsync(const QString &pattern, bool regex, bool inArgs)
{
    cancelSearch(); // the one running stops early: its result would be dropped anyway
    m_stop = std::make_shared<std::atomic<bool>>(false);
    // The job owns what it reads: the frozen session and its stop flag.
    m_jobs.run([session = m_session, pattern, regex, inArgs, stop = m_stop] { return find(session.get(), pattern, regex, inArgs, *stop); },
               [this](Result result) {
                   m_stop.reset();
                   show(std::move(result));
                   Q_EMIT searchFinished();
               });
}

void SliceSearchModel::cancelSearch()
{
    if (m_stop)
        m_stop->store(true);
    m_stop.reset();
    m_jobs.cancel();
}

EventRef SliceSearchModel::eventAt(int row) const
{
    if (row < 0 || static_cast<std::size_t>(row) >= m_matches.size())
        return {};
    return EventRef::span(m_matches[static_cast<std::size_t>(row)].track, m_matches[static_cast<std::size_t>(row)].index);
}

int SliceSearchModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_matches.size());
}

int SliceSearchModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SliceSearchModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_session || static_cast<std::size_t>(index.row()) >= m_matches.size())
        return {};
    const Match &m = m_matches[static_cast<std::size_t>(index.row())];
    const Span &s = spanOf(m);
    const Track &t = m_session->tracks()[m.track];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(std::string(m_session->str(s.name)));
        case RankColumn: return t.rank == kNoRank ? QStringLiteral("–") : QString::number(t.rank);
        case StartColumn: {
            const TimeNs aligned = s.start + (m_offsetOf ? m_offsetOf(t.rank) : 0);
            return QString(TimeFormat::precise(aligned - m_origin));
        }
        case DurationColumn: return TimeFormat::duration(s.duration);
        default: return {};
        }
    case Qt::ToolTipRole:
        return tr("%1 on %2").arg(QString::fromStdString(std::string(m_session->str(s.name))).toHtmlEscaped(),
                                  QString::fromStdString(std::string(m_session->str(t.name))).toHtmlEscaped());
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case EventRole: return QVariant::fromValue(eventAt(index.row()));
    case StartRole: return static_cast<qint64>(s.start);
    case DurationRole: return static_cast<qint64>(s.duration);
    case RankRole: return t.rank;
    default: return {};
    }
}

QVariant SliceSearchModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case RankColumn: return tr("Rank");
    case StartColumn: return tr("Start");
    case DurationColumn: return tr("Duration");
    default: return {};
    }
}

} // namespace rs
