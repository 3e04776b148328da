#include "findingsmodel.h"

#include "palette.h"

#include <cmath>

#include "annotations/annotation.h"
#include "findingstyle.h"
#include "incidentstory.h"
#include "timeformat.h"

#include <QPainter>
#include <QPixmap>

#include <algorithm>

namespace rs {

namespace {

// Children carry their parent's top-level row + 1 as internal id; top-level rows carry 0.
constexpr quintptr kTopLevel = 0;

QString fromStd(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

FindingsModel::FindingsModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void FindingsModel::setResult(std::shared_ptr<const AnalysisResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    // The analyzer already orders them, but the panel promises the order, so it holds it: the same
    // order the findings' numbers count in, so row + 1 is the number.
    m_order = m_result ? findingOrder(*m_result) : std::vector<int>();
    m_story = !m_result                           ? IncidentSummary()
        : m_result->summary.roles.size() == m_result->findings.size() && !m_result->summary.headline.empty()
        ? m_result->summary
        : IncidentStory::build(*m_result);
    endResetModel();
}

int FindingsModel::numberOf(int findingIndex) const
{
    const auto it = std::find(m_order.begin(), m_order.end(), findingIndex);
    return it == m_order.end() ? 0 : static_cast<int>(it - m_order.begin()) + 1;
}

void FindingsModel::setOrigin(TimeNs origin)
{
    if (origin == m_origin)
        return;
    m_origin = origin;
    if (!m_order.empty())
        Q_EMIT dataChanged(index(0, TimeColumn), index(static_cast<int>(m_order.size()) - 1, TimeColumn), {Qt::DisplayRole});
}

const Finding *FindingsModel::finding(int row) const
{
    return row >= 0 && row < static_cast<int>(m_order.size()) ? &m_result->findings[m_order[row]] : nullptr;
}

QModelIndex FindingsModel::indexOfFinding(int findingIndex, int column) const
{
    const auto it = std::find(m_order.begin(), m_order.end(), findingIndex);
    return it == m_order.end() ? QModelIndex() : index(static_cast<int>(it - m_order.begin()), column);
}

QString FindingsModel::shortRanksText(const std::vector<RankId> &ranks)
{
    if (ranks.empty())
        return tr("job");
    QStringList parts;
    for (RankId r : ranks)
        parts << QString::number(r);
    return QLatin1Char('r') + parts.join(QLatin1Char(','));
}

QString FindingsModel::shortTime(TimeNs relative)
{
    const double s = static_cast<double>(relative) / 1e9;
    return (relative < 0 ? QStringLiteral("−%1 s") : QStringLiteral("+%1 s")).arg(std::abs(s), 0, 'f', 1);
}

QString FindingsModel::ranksText(const std::vector<RankId> &ranks)
{
    if (ranks.empty())
        return tr("job");
    QStringList parts;
    for (RankId r : ranks)
        parts << QString::number(r);
    return (ranks.size() == 1 ? tr("rank %1") : tr("ranks %1")).arg(parts.join(QStringLiteral(", ")));
}

QIcon FindingsModel::severityIcon(Severity s) const
{
    QIcon &icon = m_icons[static_cast<std::size_t>(s)];
    if (icon.isNull()) {
        QPixmap pm(12, 12);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(FindingStyle::severityColor(s));
        // Shapes as well as colours, so severity survives colour blindness: diamond, circle, ring.
        if (s == Severity::High) {
            p.drawPolygon(QPolygonF({{6, 0.5}, {11.5, 6}, {6, 11.5}, {0.5, 6}}));
        } else if (s == Severity::Info) {
            p.setPen(QPen(FindingStyle::severityColor(s), 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(QRectF(2, 2, 8, 8));
        } else {
            p.drawEllipse(QRectF(1.5, 1.5, 9, 9));
        }
        icon = QIcon(pm);
    }
    return icon;
}

QModelIndex FindingsModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kTopLevel);
    return createIndex(row, column, static_cast<quintptr>(parent.row() + 1));
}

QModelIndex FindingsModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kTopLevel);
}

int FindingsModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_order.size());
    if (parent.internalId() != kTopLevel || parent.column() != 0)
        return 0;
    const Finding *f = finding(parent.row());
    return f ? static_cast<int>(f->evidence.size()) + (f->fix.empty() ? 0 : 1) : 0;
}

int FindingsModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NumberColumn: return tr("#");
    case SeverityColumn: return tr("Severity");
    case TitleColumn: return tr("Finding");
    case RanksColumn: return tr("Ranks");
    case TimeColumn: return tr("Time");
    case IdColumn: return tr("Id");
    default: return {};
    }
}

QVariant FindingsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_result)
        return {};
    if (index.internalId() == kTopLevel)
        return findingData(index.row(), index.column(), role);
    return childData(static_cast<int>(index.internalId() - 1), index.row(), index.column(), role);
}

QVariant FindingsModel::findingData(int row, int column, int role) const
{
    const Finding *f = finding(row);
    if (!f)
        return {};
    const FindingStory story = m_story.roleOf(m_order[static_cast<std::size_t>(row)]);
    const bool consequence = story.role == StoryRole::Consequence && story.relatedTo >= 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NumberColumn: return QString::number(row + 1);
        case SeverityColumn: return FindingStyle::severityShortLabel(f->severity);
        // A consequence hangs off its cause, as the reader should think of it.
        case TitleColumn: return consequence ? QStringLiteral("↳ ") + fromStd(f->title) : fromStd(f->title);
        case RanksColumn: return shortRanksText(f->ranks);
        case TimeColumn: return f->timeNs ? shortTime(*f->timeNs - m_origin) : QStringLiteral("—");
        case IdColumn: return fromStd(f->id);
        default: return {};
        }
    case Qt::DecorationRole:
        return column == SeverityColumn ? QVariant(severityIcon(f->severity)) : QVariant();
    case Qt::ForegroundRole:
        return column == SeverityColumn ? QVariant(FindingStyle::severityColor(f->severity)) : QVariant();
    case Qt::ToolTipRole:
        switch (column) {
        case NumberColumn: return tr("Finding %1: its marker on the timeline and its badge in exported figures carry this number").arg(row + 1);
        case SeverityColumn: return FindingStyle::severityLabel(f->severity);
        case TitleColumn:
            if (consequence)
                return tr("%1\n\nConsequence of #%2: fixing that fixes this.").arg(fromStd(f->title)).arg(numberOf(story.relatedTo));
            if (story.role == StoryRole::Contributing && story.relatedTo >= 0)
                return tr("%1\n\nLed to #%2.").arg(fromStd(f->title)).arg(numberOf(story.relatedTo));
            return fromStd(f->title);
        case RanksColumn: return ranksText(f->ranks);
        case TimeColumn: return f->timeNs ? TimeFormat::precise(*f->timeNs - m_origin) : QVariant();
        default: return {};
        }
    case RowKindRole: return static_cast<int>(RowKind::Finding);
    case FindingIndexRole: return m_order[static_cast<std::size_t>(row)];
    case EvidenceIndexRole: return -1;
    case SeverityRole: return static_cast<int>(f->severity);
    case IdRole: return fromStd(f->id);
    case RanksRole: {
        QList<int> ranks(f->ranks.begin(), f->ranks.end());
        return QVariant::fromValue(ranks);
    }
    case TimeRole: return f->timeNs ? QVariant(static_cast<qlonglong>(*f->timeNs)) : QVariant();
    case EndRole: return f->endNs ? QVariant(static_cast<qlonglong>(*f->endNs)) : QVariant();
    case PathRole: return QString();
    case LineRole: return qlonglong(-1);
    case TextRole: return fromStd(f->title);
    case NumberRole: return row + 1;
    case StoryRoleRole: return static_cast<int>(story.role);
    case RelatedNumberRole: return story.relatedTo >= 0 ? numberOf(story.relatedTo) : 0;
    default: return {};
    }
}

QVariant FindingsModel::childData(int parentRow, int row, int column, int role) const
{
    const Finding *f = finding(parentRow);
    if (!f || row < 0)
        return {};
    const bool isFix = row >= static_cast<int>(f->evidence.size());
    const Evidence *e = isFix ? nullptr : &f->evidence[static_cast<std::size_t>(row)];
    const QString text = isFix ? fromStd(f->fix) : fromStd(e->text);
    const bool jumpable = e && (e->timeNs || e->line > 0);
    switch (role) {
    case Qt::DisplayRole:
        // The panel spans child rows over every column; the text lives in the first.
        if (column != NumberColumn)
            return {};
        return isFix ? tr("Fix: %1").arg(text) : text;
    case Qt::ToolTipRole:
        return isFix ? tr("Fix: %1").arg(text) : text + (jumpable ? tr("\n\nDouble-click to jump to it.") : QString());
    case Qt::ForegroundRole:
        if (isFix)
            return Palette::screen().color(Palette::Role::FixText);
        return Palette::screen().color(jumpable ? Palette::Role::Link : Palette::Role::Title);
    case RowKindRole: return static_cast<int>(isFix ? RowKind::Fix : RowKind::Evidence);
    case FindingIndexRole: return m_order[static_cast<std::size_t>(parentRow)];
    case EvidenceIndexRole: return isFix ? -1 : row;
    case SeverityRole: return static_cast<int>(f->severity);
    case IdRole: return fromStd(f->id);
    case RanksRole: {
        QList<int> ranks;
        if (e && e->rank >= 0)
            ranks << e->rank;
        return QVariant::fromValue(ranks);
    }
    case TimeRole: return e && e->timeNs ? QVariant(static_cast<qlonglong>(*e->timeNs)) : QVariant();
    case EndRole: return {};
    case PathRole: return e ? fromStd(e->path) : QString();
    case LineRole: return e ? static_cast<qlonglong>(e->line) : qlonglong(-1);
    case TextRole: return text;
    case NumberRole: return parentRow + 1;
    default: return {};
    }
}

} // namespace rs
