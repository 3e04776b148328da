#pragma once
// The main timeline: every rank as a group of lanes on one shared time axis, a ruler pinned on top,
// vertical scrolling of the groups. The selected rank (ViewState::selectedRank) is scrolled to and
// framed. Owns navigation (keys and wheel per DESIGN.md §5) and applies it to the shared ViewState;
// the groups paint and hit-test.
//
// Virtualized: the groups are a model (GroupStack, in the context) stacked on one canvas as tall as
// all of them; only the groups that meet the viewport (and half a page around it) have a
// RankGroupWidget, taken from a small pool and rebound as the view scrolls. A frame costs what is
// in sight, whether the job has 8 ranks or 1,024.

#include "analysisresult.h"
#include "groupstack.h"
#include "session.h"
#include "timescale.h"
#include "viewstate.h"

#include <QScrollArea>
#include <QTimer>

#include <memory>
#include <optional>
#include <set>
#include <vector>

class QLabel;

namespace rs {

class AnnotationOverlay;
class AnnotationStore;
class FindingMarkerLayer;
class FindingsStrip;
class PinnedLanes;
class RankGroupWidget;
class StickyHeader;
class TimeRuler;
class TrackFinder;
struct TimelineContext;

class TimelineView : public QScrollArea
{
    Q_OBJECT
public:
    /// Zoom factor of one W/S press or one wheel notch.
    static constexpr double kZoomStep = 0.8;
    /// Fraction of the window one A/D press or wheel notch pans.
    static constexpr double kPanStep = 0.15;

    explicit TimelineView(ViewState *state, QWidget *parent = nullptr);
    ~TimelineView() override;

    /// Shows `session` (null: nothing); resets the full range, history and selection.
    void setSession(SessionPtr session);
    /// Spikes and divergence badges of `analysis` (null: none), drawn on the groups.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    /// The analysis shown (null: none); its findings number the finding annotations' markers.
    std::shared_ptr<const AnalysisResult> analysis() const;
    SessionPtr session() const;
    /// Draws and edits the annotations of `store` (null: none) over every rank group and chart.
    /// Not owned; undo/redo actions come from store->undoStack().
    void setAnnotationStore(AnnotationStore *store);
    AnnotationStore *annotationStore() const;
    /// The widget that paints annotations over the viewport and handles the mouse for them.
    AnnotationOverlay *annotationOverlay() const { return m_annotations; }
    /// Which annotations are finding markers, their numbers, tooltips and rows.
    const FindingMarkerLayer &findingMarkers() const { return *m_markers; }
    /// The strip pinned under the ruler that holds the badges of job-wide finding annotations; shown
    /// (and the viewport moved down by its height) only while there are such badges.
    FindingsStrip *jobFindingsStrip() const { return m_jobFindings; }
    /// The pinned header of the rank whose lanes fill the viewport's top.
    StickyHeader *stickyHeader() const { return m_sticky; }
    /// The lanes pinned under the ruler (ViewState::pinnedLanes); hidden when none are.
    PinnedLanes *pinnedLanes() const { return m_pinned; }
    /// Shows or hides jobFindingsStrip() (the AnnotationOverlay decides).
    void setJobFindingsStrip(bool shown);
    ViewState *viewState() const { return m_state; }
    TimeRuler *ruler() const { return m_ruler; }
    /// The widget of `rank`'s group, bound now if the group had none (it is given back at the next
    /// scroll when out of sight); nullptr when the session has no such rank.
    RankGroupWidget *rankGroup(RankId rank);
    /// The widget of `rank`'s group when it has one (in or near the viewport), else nullptr.
    RankGroupWidget *residentGroup(RankId rank) const;
    /// The widgets bound to groups now: those in or near the viewport.
    const std::vector<RankGroupWidget *> &rankGroups() const { return m_groups; }
    /// Every group laid out and stacked, with or without a widget.
    const GroupStack &groupStack() const;
    /// Viewport row of the canvas' first row (≤ 0 once scrolled).
    int canvasTop() const;
    /// Viewport row of `group`'s top.
    int viewportY(const GroupEntry &group) const;
    /// Gives a Findings row to the rank groups with visible numbered finding annotations (the
    /// annotation store's finding-made markers the analysis numbers), and the job-wide strip when
    /// there are job-wide ones; takes them away from the rest. The annotation layer asks for it
    /// when annotations change (not in the middle of a drag).
    void syncFindingRows();
    /// False when nothing of the session has a time (its full range is then a placeholder).
    bool hasTimedData() const;
    /// Width of the lane-name gutter; the time axis starts right of it.
    int gutterWidth() const;
    /// What the rank groups share (session, evidence, scales); the ranks overview paints from it too.
    TimelineContext &context() const { return *m_ctx; }
    /// View time → x, in viewport (and group) coordinates.
    TimeScale viewScale() const;
    /// The view-time extent of `event` (its rank's clock offset applied); nullopt for none.
    std::optional<TimeRange> eventRange(const EventRef &event) const;
    /// Scrolls vertically so the lane of `track` is in view (expanding its rank if collapsed).
    void ensureTrackVisible(TrackId track);
    /// Scrolls so the lane `laneTop`..+`laneHeight` (canvas y) is wholly in view and clear of the
    /// pinned rank header: centred when it fits, its top shown when it does not.
    void ensureLaneVisible(int laneTop, int laneHeight);
    /// Scrolls vertically so `event` is in view: its lane, a log record's log lane, an OOM's memory
    /// chart (expanding the rank if collapsed).
    void ensureEventVisible(const EventRef &event);
    /// Scrolls so the group of `rank` starts at the top of the view (showing it if hidden).
    void ensureRankVisible(RankId rank);

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    void resetZoom();
    void goBack();
    void goForward();
    /// Zooms to the selected event with some margin (F).
    void focusSelection();
    /// Selects the next / previous event on the selected event's level ('.' / ',').
    void selectNextEvent();
    void selectPreviousEvent();
    void expandAll();
    void collapseAll();
    /// Opens the shortcut sheet ('?').
    void showShortcutSheet();
    /// Opens the find-a-track popup over the view (Ctrl+P): type to filter the session's lanes,
    /// Enter to scroll to one (see TrackFinder).
    void showTrackFinder();

Q_SIGNALS:
    /// A new session or analysis is shown (views that paint from context() repaint).
    void contentChanged();

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void keyReleaseEvent(QKeyEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    /// The stack's heights changed: the canvas height, the widgets' places, who is resident.
    void restack();
    /// Binds widgets to the groups in or near the viewport, gives the others back to the pool.
    void updateResidency();
    RankGroupWidget *bindWidget(RankId rank);
    void releaseWidget(RankGroupWidget *g);
    void placeWidget(RankGroupWidget *g);
    void placeStickyHeader();
    void placeRuler(); // and the pinned lanes, the job-wide findings strip and the annotation overlay
    /// Room above the viewport: the ruler, the pinned lanes, the job-wide findings strip.
    void updateTopMargin();
    void zoomAround(double factor, std::optional<int> x);
    void panByFraction(double fraction);
    void stepSelection(int direction);
    void moveSelectionTo(const EventRef &next);
    void setCursorX(int x);
    TimeNs anchorTime(std::optional<int> x) const;

    ViewState *m_state;
    std::unique_ptr<TimelineContext> m_ctx;
    TimeRuler *m_ruler;
    QWidget *m_container; // the canvas: as tall as every group; holds the bound widgets
    QLabel *m_untimed; // shown when no data has a time
    FindingsStrip *m_jobFindings;     // under the ruler, outside the viewport like it
    StickyHeader *m_sticky;           // the header of the rank being read, pinned at the viewport's top
    PinnedLanes *m_pinned;            // under the ruler, outside the viewport like it
    AnnotationOverlay *m_annotations; // on top of the groups, across all of them and the strip
    std::unique_ptr<FindingMarkerLayer> m_markers;
    std::vector<RankGroupWidget *> m_groups; // bound to a group, in no order
    std::vector<RankGroupWidget *> m_spare;  // idle, hidden, ready to bind
    TrackFinder *m_finder = nullptr; // made on the first Ctrl+P
    QTimer m_gestureEnd; // ends a wheel gesture once the wheel rests
    int m_cursorX = -1;
    bool m_residencyPending = false; // a restack asked for updateResidency() on the event loop
    EventRef m_paintedSelection; // what is outlined now, to repaint it when it changes
    EventRef m_paintedHover;
};

} // namespace rs
