#include "columnfill.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rs {

ColumnFill::ColumnFill(QCPAxis *keyAxis, QCPAxis *valueAxis, const QBrush &brush)
    : QCPLayerable(keyAxis->parentPlot(), QString(), keyAxis->axisRect())
    , m_keyAxis(keyAxis)
    , m_valueAxis(valueAxis)
    , m_brush(brush)
{
}

void ColumnFill::setColumns(QVector<QPointF> columns)
{
    m_columns = std::move(columns);
}

void ColumnFill::applyDefaultAntialiasingHint(QCPPainter *painter) const
{
    painter->setAntialiasing(false); // whole-pixel rectangles
}

QRect ColumnFill::clipRect() const
{
    return m_keyAxis->axisRect()->rect();
}

void ColumnFill::draw(QCPPainter *painter)
{
    if (m_columns.isEmpty())
        return;
    const QRect area = clipRect();
    // Pixels are clamped to just outside the area before rounding: a value far off the scale (or a
    // key far outside a deep zoom) maps to a coordinate no int holds.
    const auto pixel = [](double v, int lo, int hi) {
        return std::isfinite(v) ? static_cast<int>(std::lround(std::clamp(v, double(lo), double(hi)))) : hi;
    };
    const int base = pixel(m_valueAxis->coordToPixel(0), area.top(), area.bottom()); // the zero row, filled
    // Steps are rounded to whole pixels; one narrower than a pixel lends its height to the next
    // drawn one, so a one-sample spike never vanishes and no pixel is blended twice.
    double carried = -std::numeric_limits<double>::infinity(); // highest of the steps squeezed out so far
    int x0 = pixel(m_keyAxis->coordToPixel(m_columns.front().x()), area.left() - 1, area.right() + 1);
    const auto fill = [&](int from, int to, double value) { // pixel columns [from, to)
        const int top = pixel(m_valueAxis->coordToPixel(value), area.top(), area.bottom() + 1);
        from = std::max(from, area.left());
        if (to > from && top <= base)
            painter->fillRect(QRect(QPoint(from, top), QPoint(to - 1, base)), m_brush);
    };
    for (qsizetype i = 0; i < m_columns.size(); ++i) {
        const double own = m_columns[i].y();
        // The last step ends where the line does, in the last sample's own pixel: after it nothing
        // is known (the sample after the window, when there is one, is a column of its own).
        const bool last = i + 1 == m_columns.size();
        const int x1 = last ? x0 + 1 : pixel(m_keyAxis->coordToPixel(m_columns[i + 1].x()), area.left() - 1, area.right() + 1);
        if (x1 <= x0) {
            carried = std::max(carried, own);
            continue;
        }
        // The run's first pixel also shows the steps squeezed into it; the rest its own value.
        if (carried > own) {
            fill(x0, x0 + 1, carried);
            fill(x0 + 1, x1, own);
        } else {
            fill(x0, x1, own);
        }
        carried = -std::numeric_limits<double>::infinity();
        x0 = x1;
    }
    if (carried > -std::numeric_limits<double>::infinity())
        fill(x0 - 1, x0, carried); // squeezed into the last pixel
}

} // namespace rs
