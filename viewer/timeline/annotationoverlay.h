#pragma once
// The annotation editor: draws the annotations of an AnnotationStore over the whole timeline viewport, across rank groups
// and over their memory charts (a QCustomPlot child would otherwise cover the memory lane), and
// handles the mouse for them: it watches the rank groups' events and takes only the ones that are
// about annotations (a press on one, Shift+drag, placing an arrow, the context menu), so panning,
// selecting and the ruler cursor work as before everywhere else.
//
// Findings of the analysis are drawn as numbered badges (the number of findingNumbers(): the
// findings panel's "#", the exported figure's) in rows kept free for them, as the exported figure
// does: a rank's in the Findings lane under its group's header (LaneLayout, LaneId::Findings),
// job-wide ones in the strip pinned under the ruler (TimelineView::jobFindingsStrip), so they cover
// neither the header's summary and divergence text nor the curves and spans they are about; ranges
// keep their shading and dashed edges. TimelineView::syncFindingRows() gives those rows to exactly the ranks (and
// the job) that have visible numbered finding annotations, so they come and go with Edit ▸ Show
// Finding Annotations and with each analysis. A collapsed group gets no lane (it stays two rows):
// its badges sit on its summary strip. Hovering a badge tells the finding's severity and full title,
// a click selects the finding as the findings panel does (ViewState::setSelectedFinding), a drag
// moves it (the rows are resynced when the drag ends, so the layout never shifts under the mouse).
// A finding annotation whose text the user edited stays a badge too (its number keeps
// matching the panel and the figure); the edited text is in its tooltip and the Annotations dock.
// User annotations (and finding annotations the analysis no longer has) keep their callouts.

#include "annotations/annotationpainter.h"

#include <memory>
#include <vector>

#include <QPointer>
#include <QWidget>

#include <cstdint>
#include <optional>

class QContextMenuEvent;
class QPainter;
class QKeyEvent;
class QMouseEvent;

namespace rs {

class AnnotationStore;
class RankGroupWidget;
class TimelineView;

class AnnotationOverlay : public QWidget
{
    Q_OBJECT
public:
    /// Lives on `view`, which keeps it covering the viewport and the job-wide findings strip above
    /// it, and on top. It paints and hit-tests in viewport coordinates: the strip is at y < 0.
    explicit AnnotationOverlay(TimelineView *view);

    /// The annotations shown and edited (null: none). Not owned.
    void setStore(AnnotationStore *store);
    AnnotationStore *store() const { return m_store; }
    /// Starts handling the mouse of `group` (the view calls this for each group it makes).
    void watch(RankGroupWidget *group);
    /// Where things are on this widget (viewport coordinates), for painting and hit-testing.
    AnnotationGeometry geometryForPainting() const;
    /// How annotations are drawn here: findings as the timeline's numbered markers
    /// (TimelineView::findingMarkers()).
    AnnotationStyle style() const;
    /// The tooltip of annotation `id`: a finding marker's (FindingMarkerLayer::toolTip); empty for
    /// anything else.
    QString toolTipFor(std::uint64_t id) const;
    /// The annotation under the mouse, 0 for none.
    std::uint64_t hoveredId() const { return m_hovered; }
    /// True while an arrow is being placed: waiting for the click on its tail (Edit ▸ Add Arrow)
    /// or on its head ("Add arrow from here", or after the tail's click).
    bool isPlacingArrow() const { return m_mode == Mode::PlaceArrow || m_mode == Mode::PickArrowTail; }
    /// What the user should do next while placing something ("Click where the arrow ends…"),
    /// painted beside the mouse; empty when nothing is being placed.
    QString placementHint() const;
    /// Keys of the timeline that concern annotations: Delete (and Backspace) removes the selected
    /// one, Return edits it, Escape cancels placing an arrow. False when the key is not taken.
    bool handleKey(QKeyEvent *event);

    /// Adds a note at `time` on `rank`, asking for its text first; returns its id (0: cancelled).
    std::uint64_t addNoteInteractive(RankId rank, TimeNs time);
    /// Starts placing an arrow whose tail is at (`rank`, `time`); the next click on the data area
    /// puts its head.
    void beginArrow(RankId rank, TimeNs time);
    /// Starts placing an arrow between any two points: the next click puts its tail (on any
    /// rank, at any time), the one after its head.
    void beginArrowAnywhere();

    /// Opens the editor on annotation `id`; true when it was changed.
    bool editInteractive(std::uint64_t id);

Q_SIGNALS:
    /// placementHint() changed (the main window repeats it in the status bar).
    void placementHintChanged(const QString &hint);

protected:
    void paintEvent(QPaintEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    enum class Mode : std::uint8_t { Idle, Drag, CreateRange, PickArrowTail, PlaceArrow };

    // `source` is a rank group or the job-wide findings strip.
    bool mousePress(QWidget *source, QMouseEvent *event);
    bool mouseMove(QWidget *source, QMouseEvent *event);
    bool mouseRelease(QMouseEvent *event);
    bool mouseDoubleClick(QWidget *source, QMouseEvent *event);
    bool contextMenu(QWidget *source, QContextMenuEvent *event);
    /// `pos` of `source` in viewport coordinates.
    QPointF toViewport(const QWidget *source, QPointF pos) const;
    /// The annotation (and part) under `pos` (viewport coordinates), as painted.
    std::pair<std::uint64_t, AnnotationPainter::Part> hitAt(const QPointF &pos) const;
    /// The viewport's rectangle and, when shown, the job-wide strip's, in viewport coordinates.
    QRectF viewportArea() const;
    std::optional<QRectF> jobStripArea() const;
    /// The rank whose group is at viewport row `y`, or kNoRank.
    RankId rankAt(double y) const;
    TimeNs timeAt(double x) const;
    std::optional<Annotation> preview() const;
    void setMode(Mode mode);
    void paintHint(QPainter &painter) const;
    void setHovered(std::uint64_t id);
    void updateCursor(QWidget *source, AnnotationPainter::Part part);
    /// The finding of the view's analysis `a` was made from, and its index; {nullptr, -1} if none.
    std::pair<const Finding *, int> findingOf(const Annotation &a) const;

    TimelineView *m_view;
    QPointer<AnnotationStore> m_store;
    Mode m_mode = Mode::Idle;
    std::uint64_t m_hovered = 0;
    AnnotationPainter::Part m_dragPart = AnnotationPainter::Part::None;
    Annotation m_dragOrigin;      // Drag: the annotation as it was at the press
    QPointF m_pressPos;           // viewport coordinates of the press
    QPointF m_mousePos;           // viewport coordinates of the mouse now
    RankId m_startRank = kNoRank; // CreateRange, PlaceArrow: rank where it started
    TimeNs m_startTime = 0;       // CreateRange, PlaceArrow: time where it started
    bool m_moved = false;         // Drag: the mouse went past the drag threshold
    bool m_swallowRelease = false; // the release after a press we took
};

} // namespace rs
