#include "gutterpainter.h"

#include "counterformat.h"
#include "logstyle.h"
#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "timelinecontext.h"

#include <QLocale>
#include <QPainter>

#include <algorithm>

namespace rs {

namespace {

const QColor kCpuBadge(0x3d, 0x6f, 0xb6);
const QColor kGpuBadge(0x2f, 0x8a, 0x5f);
const QColor kLogBadge(0x9a, 0x5b, 0x13);

} // namespace

GutterPainter::GutterPainter(QPainter &painter, TimelineContext &context, int groupWidth, const QFont &font)
    : m_p(painter)
    , m_ctx(context)
    , m_width(groupWidth)
    , m_font(font)
{
}

void GutterPainter::header(const Lane &lane, RankId rank, bool collapsed, bool selected, const QString &summary,
                           const QStringList &alerts, bool disclosure)
{
    const QRect r(0, lane.top, m_width, lane.height);
    m_p.fillRect(r, m_ctx.colors->color(Palette::Role::Base));
    m_p.fillRect(r, RankColors::tint(rank, selected ? 90 : 30));
    m_p.setPen(m_ctx.colors->color(Palette::Role::GutterBorder));
    m_p.drawLine(0, r.top(), m_width, r.top());

    m_p.setRenderHint(QPainter::Antialiasing, true);
    m_p.setPen(Qt::NoPen);
    // Without the triangle the colour square and the name take its place.
    const int shift = disclosure ? 0 : 16;
    if (disclosure) {
        // Disclosure triangle: pointing down when expanded, right when collapsed.
        const QPointF c(kStripe + 13, r.center().y() + 0.5);
        QPolygonF tri;
        if (collapsed)
            tri << QPointF(c.x() - 3, c.y() - 5) << QPointF(c.x() + 4, c.y()) << QPointF(c.x() - 3, c.y() + 5);
        else
            tri << QPointF(c.x() - 5, c.y() - 3) << QPointF(c.x() + 5, c.y() - 3) << QPointF(c.x(), c.y() + 4);
        m_p.setBrush(m_ctx.colors->color(Palette::Role::Muted));
        m_p.drawPolygon(tri);
    }
    m_p.setBrush(RankColors::color(rank));
    m_p.drawRoundedRect(QRectF(kStripe + 24 - shift, r.center().y() - 5, 10, 10), 2, 2);
    m_p.setRenderHint(QPainter::Antialiasing, false);

    QFont bold = m_font;
    bold.setPixelSize(13);
    bold.setWeight(QFont::Bold);
    m_p.setFont(bold);
    m_p.setPen(RankColors::textColor(rank, *m_ctx.colors));
    QRect nameRect;
    m_p.drawText(QRect(kStripe + 40 - shift, r.top(), m_ctx.gutterWidth - kStripe - 46 + shift, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
                 lane.title, &nameRect);

    // Alerts right after the name: the ranks that failed stand out while scrolling past 64 groups.
    QFont badgeFont = m_font;
    badgeFont.setPixelSize(10);
    badgeFont.setWeight(QFont::Bold);
    const QFontMetrics bfm(badgeFont);
    m_p.setFont(badgeFont);
    int x = nameRect.right() + 8;
    m_p.setRenderHint(QPainter::Antialiasing, true);
    for (const QString &alert : alerts) {
        const int w = bfm.horizontalAdvance(alert) + 10;
        if (x + w > m_ctx.gutterWidth - 6)
            break;
        const QRectF badge(x, r.center().y() - 7.5, w, 15);
        m_p.setPen(Qt::NoPen);
        m_p.setBrush(QColor(0xc9, 0x1d, 0x2e));
        m_p.drawRoundedRect(badge, 7.5, 7.5);
        m_p.setPen(Qt::white);
        m_p.drawText(badge, Qt::AlignCenter, alert);
        x += w + 4;
    }
    m_p.setRenderHint(QPainter::Antialiasing, false);

    QFont small = m_font;
    small.setPixelSize(11);
    m_p.setFont(small);
    m_p.setPen(m_ctx.colors->color(Palette::Role::Muted));
    const QRect text(m_ctx.gutterWidth + 8, r.top(), m_width - m_ctx.gutterWidth - 16, r.height());
    m_p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, m_p.fontMetrics().elidedText(summary, Qt::ElideRight, text.width()));
}

GutterPainter::Cell GutterPainter::lane(const Lane &lane, bool spanRows, bool muted)
{
    const int g = m_ctx.gutterWidth;
    m_p.fillRect(QRect(0, lane.top, g, lane.height), m_ctx.colors->color(Palette::Role::Gutter));
    m_p.setPen(m_ctx.colors->color(Palette::Role::GutterBorder));
    m_p.drawLine(g - 1, lane.top, g - 1, lane.top + lane.height - 1);

    QFont small = m_font;
    small.setPixelSize(11);
    m_p.setFont(small);
    const QFontMetrics fm(small);
    Cell cell;
    cell.x = kStripe + 10;
    // Text sits on the first row of the lane, where the outermost spans are.
    cell.rowTop = spanRows ? lane.top + LaneLayout::kLanePadding : lane.top + 1;
    cell.rowHeight = spanRows ? LaneLayout::kRowHeight : std::min(lane.height - 2, LaneLayout::kRowHeight);

    if (!lane.badge.isEmpty()) {
        QFont badgeFont = small;
        badgeFont.setPixelSize(9);
        badgeFont.setWeight(QFont::Bold);
        const QFontMetrics bfm(badgeFont);
        const int bw = bfm.horizontalAdvance(lane.badge) + 8;
        const QColor bc = lane.badge == QLatin1String("GPU") ? kGpuBadge : lane.badge == QLatin1String("CPU") ? kCpuBadge : kLogBadge;
        const QRect badge(cell.x, cell.rowTop + (cell.rowHeight - 13) / 2, bw, 13);
        m_p.setRenderHint(QPainter::Antialiasing, true);
        m_p.setPen(Qt::NoPen);
        m_p.setBrush(bc);
        m_p.drawRoundedRect(badge, 3, 3);
        m_p.setRenderHint(QPainter::Antialiasing, false);
        m_p.setFont(badgeFont);
        m_p.setPen(Qt::white);
        m_p.drawText(badge, Qt::AlignCenter, lane.badge);
        m_p.setFont(small);
        cell.x += bw + 6;
    }

    m_p.setPen(muted ? m_ctx.colors->color(Palette::Role::Muted) : m_ctx.colors->color(Palette::Role::Title));
    const QRect titleRect(cell.x, cell.rowTop, g - cell.x - 8, cell.rowHeight);
    m_p.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(lane.title, Qt::ElideMiddle, titleRect.width()));
    return cell;
}

QColor GutterPainter::mutedColor()
{
    return Palette::paper().color(Palette::Role::Muted);
}

QColor GutterPainter::gutterColor()
{
    return Palette::paper().color(Palette::Role::Gutter);
}

} // namespace rs
