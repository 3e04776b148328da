#pragma once
// What the memory chart and its gutter legend share: the curves of a rank's memory tracks with their
// names, colours and pens (allocated as an area in the rank's colour, reserved as a line,
// nvidia-smi used dashed, allocator-snapshot totals dotted, the GPU capacity as a rule), and the
// legend in the lane's gutter with each curve's peak. The chart itself is one implementation, the
// QCustomPlot chart (charts/memoryplot.h), on screen and in figures (timeline/memorychart.h).

#include "analysisresult.h"
#include "session.h"
#include "viewstate.h"

#include <QColor>
#include <QCoreApplication>
#include <QRect>
#include <QString>

#include <vector>

class QPainter;

namespace rs {

class Palette;
struct TimelineContext;

class MemoryLanePainter
{
    Q_DECLARE_TR_FUNCTIONS(MemoryLanePainter)

public:
    /// How a curve is drawn (the same styles as the screen's memory chart).
    enum class Style : std::uint8_t { Area, Line, Dashed, Dotted };

    /// One curve of the lane.
    struct Curve {
        TrackId track = kNoTrack; ///< the counter track drawn
        QString name;             ///< legend name ("allocated", "used (nvidia-smi)")
        QColor color;             ///< line colour
        Style style = Style::Line;///< line style
    };

    /// The curves of `rank`'s memory tracks, areas first so lines stay visible on top; named and
    /// styled like the screen's memory chart.
    static std::vector<Curve> curvesOf(const Session &session, const std::vector<TrackId> &tracks, RankId rank,
                                       const Palette &colors);
    /// nvidia-smi's used memory: a neutral curve, dark on paper and light on a dark screen.
    static QColor nvidiaSmiColor(const Palette &colors);

    /// Draws the legend with `painter`, peaks from `context`.
    MemoryLanePainter(QPainter &painter, TimelineContext &context);

    /// The gutter legend below the lane title, starting at row `top`, `width` pixels wide, at most
    /// down to `bottom`: one row per curve with its swatch and peak, then the capacity.
    void legend(int left, int top, int width, int bottom, const std::vector<Curve> &curves, double capacity);

    /// The pen a curve of `style` is drawn with (the legends draw the same).
    static QPen pen(Style style, const QColor &color);
    /// The pen of the capacity rule.
    static QPen capacityPen();

private:
    QPainter &m_p;
    TimelineContext &m_ctx;
};

} // namespace rs
