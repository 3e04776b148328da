#pragma once
// The area under a step curve, drawn in QCustomPlot as one rectangle per run of pixels. The memory
// chart's curves arrive as min/max columns (decimateCounter); filling under them as a polygon of
// thousands of vertices made the rasterizer the costliest part of a zoom on large traces. Steps
// are rounded to whole pixels and a pixel where several steps meet shows the highest, so the fill
// covers the pixels the line reaches at a fraction of the cost.
// It is a QCPLayerable on the plot's current layer, so it stacks, clips and exports with the plot.

#include "qcustomplotinclude.h"

#include <QBrush>
#include <QVector>

namespace rs {

class ColumnFill : public QCPLayerable
{
    Q_OBJECT
public:
    /// Fills under the curve of `keyAxis` × `valueAxis` with `brush`; drawn where it is created in
    /// the plot's layer order.
    ColumnFill(QCPAxis *keyAxis, QCPAxis *valueAxis, const QBrush &brush);

    /// The steps (key, value), ascending by key: each value holds until the next key, the last
    /// until the axis' end.
    void setColumns(QVector<QPointF> columns);
    const QVector<QPointF> &columns() const { return m_columns; }

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override;
    QRect clipRect() const override;
    void draw(QCPPainter *painter) override;

private:
    QCPAxis *m_keyAxis;
    QCPAxis *m_valueAxis;
    QBrush m_brush;
    QVector<QPointF> m_columns;
};

} // namespace rs
