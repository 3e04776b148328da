#include "figureruler.h"

#include "figurechrome.h"
#include "timeformat.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <climits>
#include <cmath>

namespace rs {

namespace {

const QColor kText = FigureChrome::textColor();
const QColor kMuted = FigureChrome::mutedColor();
const QColor kBorder = FigureChrome::borderColor();
const QColor kRulerBackground = FigureRuler::backgroundColor();
const QColor kTick(0x9a, 0xa0, 0xab);

TimeNs floorDiv(TimeNs a, TimeNs b)
{
    const TimeNs q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

} // namespace

void FigureRuler::paint(QPainter &p, const QRect &r, int g, const TimeScale &sc, const RulerTicks &ticks, TimeNs origin,
                        const QFont &font, const QTimeZone &zone)
{
    p.save();
    p.translate(r.topLeft());
    const int w = r.width();
    const int h = r.height();
    p.fillRect(QRect(0, 0, w, h), kRulerBackground);
    QFont small = font;
    small.setPixelSize(11);
    QFont bold = small;
    bold.setWeight(QFont::DemiBold);
    const QFontMetrics fmBold(bold);
    const int rowSplit = 18;

    p.setPen(kMuted);
    p.setFont(small);
    const QRect gutter(8, 0, g - 14, h);
    p.drawText(gutter.adjusted(0, 3, 0, 0), Qt::AlignLeft | Qt::AlignTop,
               TimeFormat::isWallClock(origin)
                   ? tr("t = 0 at %1 %2").arg(FigureChrome::wallClock(origin, zone), FigureChrome::zoneName(origin, zone))
                   : tr("t = 0: first record (no wall clock)"));
    p.drawText(gutter.adjusted(0, 0, 0, -4), Qt::AlignLeft | Qt::AlignBottom, tr("window %1").arg(TimeFormat::duration(sc.range.duration())));

    p.setClipRect(QRect(g, 0, w - g, h));
    if (ticks.step > 0) {
        p.setPen(kTick);
        const TimeNs sub = std::max<TimeNs>(1, ticks.step / ticks.subdivisions);
        if (sc.width / (static_cast<double>(sc.range.duration()) / static_cast<double>(sub)) >= 4) {
            for (TimeNs t = origin + floorDiv(sc.range.begin - origin, sub) * sub; t < sc.range.end; t += sub) {
                const int x = static_cast<int>(std::floor(sc.toX(t)));
                p.drawLine(x, h - 4, x, h - 1);
            }
        }
        for (const RulerTick &tick : ticks.minor) {
            const int x = static_cast<int>(std::floor(sc.toX(tick.time)));
            p.setPen(kTick);
            p.drawLine(x, rowSplit + 4, x, h - 1);
            p.setPen(kMuted);
            p.drawText(x + 4, h - 7, tick.label);
        }
        p.setFont(bold);
        const int contextRight = g + 6 + fmBold.horizontalAdvance(ticks.context.label);
        const int firstMajorX = ticks.major.empty() ? INT_MAX : static_cast<int>(std::floor(sc.toX(ticks.major.front().time)));
        const bool contextIsFirstMajor = firstMajorX <= g + 1;
        if (!contextIsFirstMajor) {
            p.setPen(kText);
            p.drawText(g + 6, 13, ticks.context.label);
        }
        for (const RulerTick &tick : ticks.major) {
            const int x = static_cast<int>(std::floor(sc.toX(tick.time)));
            p.setPen(kText);
            p.drawLine(x, 0, x, h - 1);
            if (!contextIsFirstMajor && x < contextRight + 8)
                continue;
            p.drawText(x + 4, 13, tick.label);
        }
    }
    p.setClipping(false);
    p.setPen(kBorder);
    p.drawLine(0, h - 1, w, h - 1);
    p.drawLine(0, 0, w, 0);
    p.drawLine(g - 1, 0, g - 1, h);
    p.restore();
}

} // namespace rs
