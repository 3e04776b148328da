#pragma once
// The Ranks Overview dock: every rank as one thin row on the timeline's time axis, coloured by a
// metric the user picks (RanksOverviewPainter), so a job of a thousand ranks fits one screen and
// the odd rank stands out. Clicking a row selects the rank, which scrolls the timeline to its
// lanes; hovering says the rank and the value. Follows the timeline's window, clock offsets,
// hidden ranks and selected rank through the shared ViewState.

#include "ranksoverviewpainter.h"

#include <QWidget>

class QComboBox;

namespace rs {

class TimelineView;
class ViewState;

class RanksOverview : public QWidget
{
    Q_OBJECT
public:
    explicit RanksOverview(TimelineView *timeline, QWidget *parent = nullptr);

    RanksOverviewPainter::Metric metric() const { return m_metric; }
    void setMetric(RanksOverviewPainter::Metric metric);
    /// The frame painted now (tests read rows and values from it).
    RanksOverviewPainter::Frame frame() const;
    /// The rows' rectangle in this widget.
    QRect rowsRect() const;

    QSize sizeHint() const override { return {900, 260}; }

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    TimelineView *m_timeline;
    ViewState *m_state;
    QComboBox *m_metricBox;
    RanksOverviewPainter::Metric m_metric = RanksOverviewPainter::Metric::MemoryShare;
};

} // namespace rs
