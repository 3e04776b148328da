#include "memorylanepainter.h"

#include "palette.h"

#include "rankcolors.h"
#include "timeformat.h"
#include "timeline/timelinecontext.h"

#include <QPainter>


namespace rs {

std::vector<MemoryLanePainter::Curve> MemoryLanePainter::curvesOf(const Session &s, const std::vector<TrackId> &tracks,
                                                                      RankId rank, const Palette &colors)
{
    std::vector<Curve> areas, lines;
    if (tracks.empty())
        return areas;
    const int device = s.tracks()[tracks.front()].device;
    for (TrackId id : tracks) {
        const Track &t = s.tracks()[id];
        const QString suffix = t.device != device ? tr(" (GPU %1)").arg(t.device) : QString();
        // The same reading as the screen: snapshot totals dotted in the rank's colours (the same
        // allocator), nvidia-smi dashed and neutral (the whole device, not just PyTorch).
        const bool snapshot = t.source < s.sources().size() && s.sources()[t.source].contentFormat() == "memory-snapshot";
        switch (t.kind) {
        case TrackKind::MemoryAllocated:
            if (snapshot)
                lines.push_back({id, tr("snapshot allocated") + suffix, RankColors::color(rank), Style::Dotted});
            else
                areas.push_back({id, tr("allocated") + suffix, RankColors::color(rank), Style::Area});
            break;
        case TrackKind::MemoryReserved:
            lines.push_back({id, (snapshot ? tr("snapshot reserved") : tr("reserved")) + suffix, RankColors::textColor(rank, colors),
                             snapshot ? Style::Dotted : Style::Line});
            break;
        default:
            lines.push_back({id, tr("used (nvidia-smi)") + suffix, nvidiaSmiColor(colors), Style::Dashed});
            break;
        }
    }
    areas.insert(areas.end(), lines.begin(), lines.end());
    return areas;
}

QColor MemoryLanePainter::nvidiaSmiColor(const Palette &colors)
{
    // Neutral, the strongest of the theme: the whole device, not one rank's allocator.
    return colors.isDark() ? QColor(0xc3, 0xc9, 0xd3) : QColor(0x37, 0x41, 0x51);
}

QPen MemoryLanePainter::pen(Style style, const QColor &color)
{
    switch (style) {
    case Style::Area:
    case Style::Line: return QPen(color, 1);
    case Style::Dashed: {
        QPen p(color, 1.5);
        p.setDashPattern({4, 3});
        return p;
    }
    case Style::Dotted: {
        QPen p(color, 1.5);
        p.setDashPattern({1, 2});
        return p;
    }
    }
    return QPen(color);
}

QPen MemoryLanePainter::capacityPen()
{
    return QPen(QColor(0xc9, 0x1d, 0x2e, 170), 1, Qt::DashDotLine);
}

MemoryLanePainter::MemoryLanePainter(QPainter &painter, TimelineContext &context)
    : m_p(painter)
    , m_ctx(context)
{
}

void MemoryLanePainter::legend(int left, int top, int width, int bottom, const std::vector<Curve> &curves, double capacity)
{
    QFont small = m_p.font();
    small.setPixelSize(11);
    m_p.save();
    m_p.setFont(small);
    const int row = 15;
    int y = top;
    auto swatch = [&](const Curve &c) {
        if (c.style == Style::Area) {
            QColor f = c.color;
            f.setAlpha(140);
            m_p.fillRect(QRect(left + 2, y + 5, 14, 6), f);
        } else {
            m_p.setPen(pen(c.style, c.color));
            m_p.drawLine(QPointF(left + 2, y + 8), QPointF(left + 17, y + 8));
        }
    };
    for (const Curve &c : curves) {
        if (y + row > bottom)
            break;
        swatch(c);
        const double peak = c.track < m_ctx.counterMax.size() ? m_ctx.counterMax[c.track] : 0;
        m_p.setPen(m_ctx.colors->color(Palette::Role::Muted));
        m_p.drawText(QRect(left + 20, y, width - 20, row), Qt::AlignLeft | Qt::AlignVCenter, c.name);
        m_p.setPen(m_ctx.colors->color(Palette::Role::Title));
        m_p.drawText(QRect(left + 20, y, width - 20, row), Qt::AlignRight | Qt::AlignVCenter,
                     tr("peak %1").arg(TimeFormat::bytes(peak)));
        y += row;
    }
    if (capacity > 0 && y + row <= bottom) {
        m_p.setPen(capacityPen());
        m_p.drawLine(QPointF(left + 2, y + 8), QPointF(left + 17, y + 8));
        m_p.setPen(m_ctx.colors->color(Palette::Role::Muted));
        m_p.drawText(QRect(left + 20, y, width - 20, row), Qt::AlignLeft | Qt::AlignVCenter, tr("GPU capacity"));
        m_p.setPen(m_ctx.colors->color(Palette::Role::Title));
        m_p.drawText(QRect(left + 20, y, width - 20, row), Qt::AlignRight | Qt::AlignVCenter, TimeFormat::bytes(capacity));
    }
    m_p.restore();
}

} // namespace rs
