#pragma once
// The widget of one rank group while that group meets the viewport: a header (name, colour, collapse
// toggle, summary, OOM and error badges), the memory chart, the step bands, the log lane and one lane
// per CPU thread, GPU stream and counter, with lane names in a fixed gutter on the left. OOM moments
// are drawn across all of it. The group's lanes and header live in the view's GroupStack; TimelineView
// binds a few of these widgets to the groups in sight and rebinds them as the view scrolls, so a job
// of a thousand ranks has a handful of widgets and charts. Handles the mouse for its own pixels:
// hover, click-to-select, drag-to-pan. Wheel and keys are left to TimelineView, which owns navigation.

#include "groupstack.h"
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
    /// A widget for the group of `rank` (kNoRank: bound to none yet) of `context.groups`.
    explicit RankGroupWidget(TimelineContext &context, RankId rank = kNoRank, QWidget *parent = nullptr);

    RankId rank() const { return m_rank; }
    /// Shows the group of `rank` from now on (kNoRank: none); the chart follows the new rank.
    void bind(RankId rank);
    /// The group's lanes (its GroupStack entry's).
    const LaneLayout &layout() const { return entry().layout; }
    /// The group's entry was laid out again: the chart follows, the group repaints. The view sets
    /// the geometry.
    void relayout();
    bool hasFindingsLane() const { return layout().findingsLane() != nullptr; }
    /// The visible range, ticks or clock offsets changed: refresh the chart and repaint.
    void viewChanged();
    /// The analysis (TimelineContext::analysis) changed: refresh spikes and the divergence badge.
    void analysisChanged();
    /// The highlight changed: repaint when this rank is or was part of it.
    void highlightChanged();
    /// The theme changed (TimelineContext::colors): the chart takes the new colours and curves.
    void colorsChanged();
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
    /// The memory chart, or nullptr when the rank has no device memory data or is collapsed.
    MemoryPlot *memoryPlot() const { return m_plot; }
    /// Paints just the header row of `entry`, `width` wide, at (0, 0) of `painter` (the sticky
    /// header: no widget needed).
    static void paintHeader(TimelineContext &ctx, const GroupEntry &entry, QPainter &painter, int width);

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
    const GroupEntry &entry() const;
    TimeNs offset() const;
    void buildChart();
    /// Hides the chart and keeps it for the next rank or unfold.
    void parkChart();
    void placeChart();
    /// The group as its lane kinds see it now (no painter: hit-tests and tooltips).
    LaneFrame frame() const;

    TimelineContext &m_ctx;
    RankId m_rank = kNoRank;
    MemoryPlot *m_plot = nullptr;        // the chart over the memory lane, when shown
    MemoryPlot *m_parkedChart = nullptr; // hidden, kept for reuse
    QPoint m_pressPos;
    TimeRange m_pressRange;
    int m_lastDragY = 0;
    bool m_pressed = false;
    bool m_dragging = false;
    bool m_swallowRelease = false;
    int m_resizeFrom = 0; // > 0 while the memory lane's edge is dragged: its height at the press
};

} // namespace rs
