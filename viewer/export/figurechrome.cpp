#include "figurechrome.h"

#include "figurefindings.h"
#include "plural.h"
#include "timeformat.h"
#include "viewstate.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFontMetrics>
#include <QPainter>
#include <QStringList>

#include <algorithm>

namespace rs {

QFont FigureChrome::baseFont()
{
    QFont f;
    f.setFamily(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setPixelSize(11);
    return f;
}

QString FigureChrome::wallClock(TimeNs t, const QTimeZone &zone, bool withDate)
{
    const TimeNs ms = t >= 0 ? t / 1000000 : -((-t + 999999) / 1000000);
    const QDateTime dt = QDateTime::fromMSecsSinceEpoch(ms, zone);
    return dt.toString(withDate ? QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz") : QStringLiteral("HH:mm:ss.zzz"));
}

QString FigureChrome::zoneName(TimeNs t, const QTimeZone &zone)
{
    if (zone == QTimeZone::utc())
        return QStringLiteral("UTC");
    const QString abbr = zone.abbreviation(QDateTime::fromMSecsSinceEpoch(t / 1000000, zone));
    return abbr.isEmpty() ? QString::fromUtf8(zone.id()) : abbr;
}

QString FigureChrome::rangeText(TimeRange range, const QTimeZone &z)
{
    if (!TimeFormat::isWallClock(range.begin))
        return tr("no wall clock · %1").arg(TimeFormat::duration(range.duration()));
    // The date once when both ends fall on the same day.
    const bool sameDay = QDateTime::fromMSecsSinceEpoch(range.begin / 1000000, z).date()
        == QDateTime::fromMSecsSinceEpoch(range.end / 1000000, z).date();
    return QStringLiteral("%1 – %2 %3 · %4")
        .arg(wallClock(range.begin, z), wallClock(range.end, z, !sameDay), zoneName(range.begin, z),
             TimeFormat::duration(range.duration()));
}

TimeRange FigureChrome::window(TimeRange requested, TimeRange full)
{
    TimeRange r = requested.isEmpty() ? full : TimeRange{std::max(requested.begin, full.begin), std::min(requested.end, full.end)};
    if (r.duration() < ViewState::kMinVisibleNs)
        r = requested.isEmpty() ? full : requested;
    if (r.duration() < ViewState::kMinVisibleNs)
        r.end = r.begin + ViewState::kMinVisibleNs;
    return r;
}

QString FigureChrome::defaultTitle(const Session *session, const AnalysisResult *analysis, const QString &fallback)
{
    // The incident's story names the culprit and what happened in its first sentence.
    if (analysis && !analysis->findings.empty() && !analysis->summary.headline.empty())
        return QString::fromStdString(analysis->summary.firstSentence());
    if (analysis && !analysis->findings.empty()) {
        const Finding *top = &analysis->findings.front();
        for (const Finding &f : analysis->findings)
            if (f.severity > top->severity)
                top = &f;
        return QString::fromStdString(top->title);
    }
    if (session && !session->sources().empty())
        return tr("RankScope · %1").arg(QFileInfo(QString::fromStdString(session->sources().front().path)).dir().dirName());
    return fallback;
}

QString FigureChrome::shownLine(const Session *session, const AnalysisResult *analysis, const std::vector<RankId> &ranks)
{
    const std::size_t total = session ? session->ranks().size() : 0;
    QString line = ranks.size() == total
        ? tr("%1: %2").arg(countOf(static_cast<qint64>(total), tr("rank"), tr("ranks")), foldedRanks(ranks))
        : tr("ranks %1 (%2 of %3)").arg(foldedRanks(ranks)).arg(ranks.size()).arg(total);
    if (session)
        line += QStringLiteral("  ·  ") + countOf(static_cast<qint64>(session->sources().size()), tr("input file"), tr("input files"));
    if (analysis && !analysis->findings.empty())
        line += QStringLiteral("  ·  ") + countOf(static_cast<qint64>(analysis->findings.size()), tr("finding"), tr("findings"));
    return line;
}

void FigureChrome::paintTitle(QPainter &p, const QRect &r, const QFont &base, const QString &titleText, const QString &range,
                              const QString &info)
{
    QFont title = base;
    title.setPixelSize(20);
    title.setWeight(QFont::Bold);
    QFont sub = base;
    sub.setPixelSize(13);
    QFont small = base;
    small.setPixelSize(11);

    p.setFont(small);
    const QString brand = tr("RankScope %1").arg(QStringLiteral(RANKSCOPE_VIEWER_VERSION));
    const int brandWidth = QFontMetrics(small).horizontalAdvance(brand) + 8;
    p.setPen(mutedColor());
    p.drawText(QRect(r.left(), r.top() + 4, r.width(), 20), Qt::AlignRight | Qt::AlignVCenter, brand);

    p.setFont(title);
    p.setPen(textColor());
    const QFontMetrics tfm(title);
    p.drawText(QRect(r.left(), r.top(), r.width() - brandWidth, 28), Qt::AlignLeft | Qt::AlignVCenter,
               tfm.elidedText(titleText, Qt::ElideRight, r.width() - brandWidth));

    p.setFont(sub);
    p.setPen(textColor());
    p.drawText(QRect(r.left(), r.top() + 30, r.width(), 18), Qt::AlignLeft | Qt::AlignVCenter, range);

    p.setFont(small);
    p.setPen(mutedColor());
    p.drawText(QRect(r.left(), r.top() + 50, r.width(), 16), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(small).elidedText(info, Qt::ElideRight, r.width()));
}

void FigureChrome::paintFooter(QPainter &p, const QRect &r, const QFont &base, TimeNs origin, const QTimeZone &zone,
                               const std::vector<RankId> &ranks, const std::map<RankId, TimeNs> &offsets)
{
    QFont small = base;
    small.setPixelSize(10);
    p.setFont(small);
    p.setPen(borderColor());
    p.drawLine(r.left(), r.top(), r.right(), r.top());
    p.setPen(mutedColor());
    QStringList shifted;
    for (RankId rank : ranks) {
        const auto it = offsets.find(rank);
        if (const TimeNs off = it != offsets.end() ? it->second : 0; off != 0)
            shifted << tr("rank %1 %2%3").arg(rank).arg(off > 0 ? QStringLiteral("+") : QString(), TimeFormat::duration(off));
    }
    QString left = TimeFormat::isWallClock(origin)
        ? tr("Times on the aligned clock; t = 0 at %1 %2.").arg(wallClock(origin, zone), zoneName(origin, zone))
        : tr("No source carries a wall clock: times count from the first record.");
    if (!shifted.isEmpty()) {
        const qsizetype shown = std::min<qsizetype>(shifted.size(), 6);
        left += tr(" Clock offsets: %1%2.").arg(shifted.mid(0, shown).join(QStringLiteral(", ")),
                                                shifted.size() > shown ? tr(" and %1 more").arg(shifted.size() - shown) : QString());
    }
    const QString right = tr("Made with RankScope %1 · local analysis, nothing uploaded").arg(QStringLiteral(RANKSCOPE_VIEWER_VERSION));
    const QFontMetrics fm(small);
    const int rw = fm.horizontalAdvance(right) + 12;
    p.drawText(QRect(r.left(), r.top() + 4, r.width() - rw, r.height() - 4), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(left, Qt::ElideRight, r.width() - rw));
    p.drawText(QRect(r.left(), r.top() + 4, r.width(), r.height() - 4), Qt::AlignRight | Qt::AlignVCenter, right);
}

std::map<RankId, TimeNs> FigureChrome::offsets(const Session &session, const AnalysisResult *analysis,
                                               const FigureOptions &options)
{
    std::map<RankId, TimeNs> out;
    for (const Rank &r : session.ranks()) {
        const auto it = options.clockOffsets.find(r.id);
        out[r.id] = it != options.clockOffsets.end() ? it->second : analysis ? analysis->offsetOf(r.id) : 0;
    }
    return out;
}

std::vector<RankId> FigureChrome::rankOrder(const Session &session, const FigureOptions &options)
{
    std::vector<RankId> order;
    if (options.ranks.empty()) {
        for (const Rank &r : session.ranks())
            order.push_back(r.id);
        return order;
    }
    for (RankId r : options.ranks)
        if (session.rank(r) && std::find(order.begin(), order.end(), r) == order.end())
            order.push_back(r);
    return order;
}

} // namespace rs
