#include "trackfindermodel.h"

#include "evidenceindex.h"
#include "lanekind.h"

#include <QRegularExpression>

namespace rs {

namespace {

struct Token {
    int rank = -1; // >= 0: a rank named by "r2", "rank 2" or "rank2"
    QString word;  // else: a word to find
};

std::vector<Token> tokenize(const QString &query)
{
    static const QRegularExpression space(QStringLiteral("\\s+"));
    static const QRegularExpression rankWord(QStringLiteral("^(?:r|rank)(\\d+)$"));
    const QStringList words = query.toLower().split(space, Qt::SkipEmptyParts);
    std::vector<Token> tokens;
    for (qsizetype i = 0; i < words.size(); ++i) {
        bool number = false;
        if (words[i] == QLatin1String("rank") && i + 1 < words.size()) {
            const int n = words[i + 1].toInt(&number);
            if (number) {
                tokens.push_back({n, {}});
                ++i;
                continue;
            }
        }
        const QRegularExpressionMatch m = rankWord.match(words[i]);
        if (m.hasMatch())
            tokens.push_back({m.captured(1).toInt(), {}});
        else
            tokens.push_back({-1, words[i]});
    }
    return tokens;
}

bool matchesAtWordStart(const QString &text, const QString &word)
{
    for (qsizetype at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1))
        if (at == 0 || !text[at - 1].isLetterOrNumber())
            return true;
    return false;
}

} // namespace

TrackFinderModel::TrackFinderModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

void TrackFinderModel::setSession(const Session *session, const EvidenceIndex *evidence)
{
    beginResetModel();
    m_entries.clear();
    if (session) {
        LaneLayout layout;
        for (const Rank &rank : session->ranks()) {
            // The lanes of the expanded group: a collapsed or hidden rank is expanded when chosen.
            layout.build(*session, rank, false, evidence && !evidence->logs(rank.id).empty());
            std::vector<TrackId> listed;
            for (const Lane &lane : layout.lanes()) {
                // Words the row's name leaves out but a user may type: the kind, a thread's id.
                const QString words = lane.kind->finderWords(lane, *session);
                if (words.isEmpty())
                    continue; // header, summary, findings row: not lanes one goes to
                // A thread with spans and instants has two lanes; one row finds both.
                if (lane.track != kNoTrack) {
                    if (std::find(listed.begin(), listed.end(), lane.track) != listed.end())
                        continue;
                    listed.push_back(lane.track);
                }
                QString name = lane.track != kNoTrack
                                   ? LaneLayout::trackTitle(*session, session->tracks()[lane.track])
                                   : lane.title;
                if (lane.badge == QLatin1String("CPU") || lane.badge == QLatin1String("GPU"))
                    name = lane.badge + QLatin1Char(' ') + name;
                Entry e;
                e.rank = rank.id;
                e.track = lane.track;
                e.kind = QString::fromLatin1(lane.kind->id().data(), static_cast<qsizetype>(lane.kind->id().size()));
                e.text = tr("Rank %1 · %2").arg(rank.id).arg(name);
                e.search = (e.text + QLatin1Char(' ') + words).toLower();
                m_entries.push_back(std::move(e));
            }
        }
    }
    endResetModel();
}

int TrackFinderModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

QVariant TrackFinderModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: return e.text;
    case RankRole: return e.rank;
    case TrackRole: return e.track;
    case LaneKindRole: return e.kind;
    case SearchTextRole: return e.search;
    default: return {};
    }
}

QHash<int, QByteArray> TrackFinderModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names[RankRole] = "rank";
    names[TrackRole] = "track";
    names[LaneKindRole] = "laneKind";
    names[SearchTextRole] = "searchText";
    return names;
}

TrackFinderFilter::TrackFinderFilter(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setDynamicSortFilter(true);
    sort(0);
}

void TrackFinderFilter::setQuery(const QString &query)
{
    if (query == m_query)
        return;
    m_query = query;
    invalidate(); // both the filter and the order depend on the query
}

int TrackFinderFilter::score(const QString &query, RankId rank, const QString &search)
{
    // Tiers: a rank-number match outweighs any number of word matches, a word-start match any
    // number of mid-word ones, so the order is the one the header promises.
    constexpr int kRankMatch = 10000, kPrefix = 100, kSubstring = 1;
    int total = 0;
    for (const Token &t : tokenize(query)) {
        if (t.rank >= 0) {
            if (t.rank != rank)
                return -1;
            total += kRankMatch;
            continue;
        }
        bool number = false;
        const int n = t.word.toInt(&number);
        if (number && n == rank)
            total += kRankMatch;
        else if (matchesAtWordStart(search, t.word))
            total += kPrefix;
        else if (search.contains(t.word))
            total += kSubstring;
        else
            return -1;
    }
    return total;
}

int TrackFinderFilter::rowScore(int sourceRow) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, 0);
    return score(m_query, i.data(TrackFinderModel::RankRole).toInt(), i.data(TrackFinderModel::SearchTextRole).toString());
}

bool TrackFinderFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    return !sourceParent.isValid() && rowScore(sourceRow) >= 0;
}

bool TrackFinderFilter::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const int l = rowScore(left.row()), r = rowScore(right.row());
    if (l != r)
        return l > r; // best first
    return left.row() < right.row();
}

} // namespace rs
