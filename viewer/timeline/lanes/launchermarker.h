#pragma once
// The launcher lane's marker: a red diamond for a failed worker, a brown one for the end of the
// job or step (cancel, node failure, host OOM kill, launcher signalled). The lane and the figure's
// legend draw it with this one function.

#include <QColor>
#include <QPainter>
#include <QPointF>

namespace rs::LauncherMarker {

inline constexpr double kRadius = 5.5;

inline QColor color(bool failure)
{
    return failure ? QColor(0xc9, 0x1d, 0x2e) : QColor(0x9a, 0x5b, 0x13);
}

inline void paint(QPainter &p, QPointF c, bool failure, double r = kRadius)
{
    const QColor fill = color(failure);
    const QPointF diamond[4] = {{c.x(), c.y() - r}, {c.x() + r, c.y()}, {c.x(), c.y() + r}, {c.x() - r, c.y()}};
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(fill.darker(130), 1));
    p.setBrush(fill);
    p.drawPolygon(diamond, 4);
    p.restore();
}

} // namespace rs::LauncherMarker
