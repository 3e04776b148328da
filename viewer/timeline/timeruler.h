#pragma once
// The time axis above the lanes, Tracy style: a top row of major labels giving the full time since
// the session start, and a bottom row of minor labels giving the offset from the major tick before
// them ("+20 µs"), so labels stay short at every zoom. The major label left of the window is pinned
// to the left edge, so the context is never scrolled away. The gutter shows the wall-clock time of
// t = 0. Dragging across the ruler zooms to the dragged interval.

#include "rulerticks.h"
#include "timescale.h"

#include <QString>
#include <QWidget>

#include <vector>

namespace rs {

class ViewState;

class TimeRuler : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kHeight = RulerTicks::kHeight;
    static constexpr int kMinTickSpacingPx = RulerTicks::kMinTickSpacingPx;

    TimeRuler(ViewState *state, QWidget *parent = nullptr);

    /// The ticks of `visible` drawn `widthPx` wide, with times labelled relative to `origin`.
    static RulerTicks computeTicks(TimeRange visible, TimeNs origin, double widthPx,
                                   int minSpacingPx = kMinTickSpacingPx)
    {
        return RulerTicks::compute(visible, origin, widthPx, minSpacingPx);
    }

    /// Width of the left gutter (lane names); the axis starts right of it.
    void setGutterWidth(int width);
    /// The current ticks (recomputed when the range or the width changes).
    const RulerTicks &ticks() const { return m_ticks; }
    /// Pixel-time mapping of the axis, in this widget's coordinates.
    TimeScale scale() const;
    /// Shows a cursor line with the exact time at x (in this widget's coordinates); x < 0 hides it.
    void setCursorX(int x);

    QSize sizeHint() const override;

Q_SIGNALS:
    /// The ticks changed; lanes and charts align their grid to them.
    void ticksChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    void recompute();

    ViewState *m_state;
    RulerTicks m_ticks;
    int m_gutter = 0;
    int m_cursorX = -1;
    int m_dragFrom = -1;
    int m_dragTo = -1;
};

} // namespace rs
