#pragma once
// One rank's block of the timeline: a header (name, colour, collapse toggle, summary, OOM and error
// badges), the memory chart, the step bands, the log lane and one lane per CPU thread, GPU stream
// and counter, with lane names in a fixed gutter on the left. OOM moments are drawn across all of it. Handles the mouse for its own pixels: hover, click-to-select, drag-to-pan.
// Wheel and keys are left to TimelineView, which owns navigation.

#include "lanekind.h"
#include "lanelayout.h"
#include "timescale.h"
#include "viewstate.h"

#include <QPoint>
#include <QStringList>
#include <QWidget>

class QMenu;

namespace rs {

class MemoryPlot;
struct TimelineContext;

class RankGroupWidget : public QWidget
{
    Q_OBJECT
public:
    RankGroupWidget(TimelineContext &context, RankId rank, QWidget *parent = nullptr);

    RankId rank() const { return m_rank; }
    const LaneLayout &layout() const { return m_layout; }
    /// Re-reads the collapsed state and lays the lanes out again.
    void relayout();
    /// Whether the group keeps a Findings lane under its header for finding badges (the
    /// AnnotationOverlay decides: the rank has visible finding annotations); relayouts on a change.
    void setFindingsLane(bool on);
    bool hasFindingsLane() const { return m_findingsLane; }
    /// The visible range, ticks or clock offsets changed: refresh the chart and repaint.
    void viewChanged();
    /// The analysis (TimelineContext::analysis) changed: refresh spikes and the divergence badge.
    void analysisChanged();
    /// The highlight changed: repaint when this rank is or was part of it.
    void highlightChanged();
    /// Repaints just where `event` is drawn (hover and selection changes).
    void updateEvent(const EventRef &event);

    /// View time → x in this widget (the same mapping as the ruler).
    TimeScale viewScale() const;
    /// The full-width rectangle of the lane showing `track`; empty when it has none.
    QRect laneRect(TrackId track) const;
    /// Where span `index` of `track` is drawn now (unclipped); empty when its lane is not shown.
    QRectF spanRect(TrackId track, std::uint32_t index) const;
    /// The event drawn at `pos`: a span (nearest within 3 px), an instant (within 4 px), the
    /// ProfilerStep span of a step band, a log record (the most severe marker within its radius),
    /// an OOM line of the memory chart (within 4 px), or nothing.
    EventRef hitTest(QPoint pos) const;
    /// Whether `pos` is on the memory lane's bottom edge (a drag there resizes every memory lane).
    bool onMemoryEdge(QPoint pos) const;
    /// The gutter's menu at `pos`: hide the lane there, show the rank's (or every rank's) hidden
    /// lanes. The caller owns it (the context menu shows it).
    QMenu *laneMenu(QPoint pos, QWidget *parent = nullptr);
    /// The id of `lane`'s kind, as ViewState's hidden lanes name it.
    static QString laneKindId(const Lane &lane);
    /// The memory chart, or nullptr when the rank has no device memory data, is collapsed, or is
    /// not chart-resident.
    MemoryPlot *memoryPlot() const { return m_plot; }
    /// Whether the group holds a chart widget for its memory lane. TimelineView keeps only the groups
    /// near the viewport resident, so a job of a thousand ranks has a few charts, not a thousand;
    /// the others paint the lane with MemoryLanePainter.
    void setChartResident(bool resident);
    /// Paints just the header row, `width` wide, at (0, 0) of `painter` (the sticky header).
    void paintHeader(QPainter &painter, int width) const;
    bool isChartResident() const { return m_chartResident; }

    QSize sizeHint() const override;

Q_SIGNALS:
    /// The mouse is at x (widget coordinates, equal to the viewport's); -1 when it left.
    void cursorMoved(int x);
    /// A drag moved vertically by `dy` pixels; the view scrolls by as much.
    void verticalDragged(int dy);
    /// Double-click on an event or a step: zoom to `range` (view time).
    void zoomRequested(rs::TimeRange range);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    const Rank &rankData() const;
    TimeNs offset() const;
    void buildChart();
    void placeChart();
    /// The group as its lane kinds see it now (no painter: hit-tests and tooltips).
    LaneFrame frame() const;

    TimelineContext &m_ctx;
    RankId m_rank;
    LaneLayout m_layout;
    MemoryPlot *m_plot = nullptr;
    GroupHeader m_header; // summary, OOM and error badges, divergence badge
    QPoint m_pressPos;
    TimeRange m_pressRange;
    int m_lastDragY = 0;
    bool m_pressed = false;
    bool m_dragging = false;
    bool m_swallowRelease = false;
    bool m_findingsLane = false;
    bool m_chartResident = false;
    int m_resizeFrom = 0; // > 0 while the memory lane's edge is dragged: its height at the press
};

} // namespace rs
