#pragma once
// The time ruler of the exported timeline figure (FigureRenderer), between the title block and the
// rank groups: in the gutter, t = 0 as wall clock and the window's duration; across the data area
// the ticks RulerTicks::compute() chose (sub-ticks, labelled minor and major ticks, the bold
// context label), so the figure's axis reads like the screen's. Plain QPainter: no widget involved.

#include "timeline/rulerticks.h"
#include "timeline/timescale.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QRect>
#include <QTimeZone>

class QPainter;

namespace rs {

class FigureRuler
{
    // FigureRenderer's context: the ruler's texts were translated there before it had a class.
    Q_DECLARE_TR_FUNCTIONS(FigureRenderer)

public:
    /// The ruler's background, also that of the gutter of the finding marker strips.
    static QColor backgroundColor() { return {0xf6, 0xf7, 0xf9}; }

    /// Paints the ruler filling `r` (RulerTicks::kHeight tall): the gutter `gutterWidth` wide on the
    /// left, `scale` (in r's coordinates, its range the window drawn) placing `ticks` to its right.
    /// `origin` is t = 0, written as wall clock in `zone`; `font` is the figure's base font.
    static void paint(QPainter &p, const QRect &r, int gutterWidth, const TimeScale &scale, const RulerTicks &ticks,
                      TimeNs origin, const QFont &font, const QTimeZone &zone);
};

} // namespace rs
