#pragma once
// Draws the annotations of an AnnotationStore over the whole timeline viewport, across rank groups
// and over their memory charts (a QCustomPlot child would otherwise cover the memory lane), and
// handles the mouse for them: it watches the rank groups' events and takes only the ones that are
// about annotations (a press on one, Shift+drag, placing an arrow, the context menu), so panning,
// selecting and the ruler cursor work as before everywhere else.
//
// Findings of the analysis are drawn as numbered badges (the number of findingNumbers(): the
// findings panel's "#", the exported figure's) on their rank group's header row, job-wide ones on
// the first header row in view, so they cover none of the curves and spans they are about; ranges
// keep their shading and dashed edges. Hovering a badge tells the finding's severity and full title,
// a click selects the finding as the findings panel does (ViewState::setSelectedFinding), a drag
// moves it. A finding annotation whose text the user edited stays a badge too (its number keeps
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
    /// Lives on `view`'s viewport; the view keeps it covering the viewport and on top.
    explicit AnnotationOverlay(TimelineView *view);

    /// The annotations shown and edited (null: none). Not owned.
    void setStore(AnnotationStore *store);
    AnnotationStore *store() const { return m_store; }
    /// Starts handling the mouse of `group` (the view calls this for each group it makes).
    void watch(RankGroupWidget *group);
    /// Where things are on this widget (viewport coordinates), for painting and hit-testing.
    AnnotationGeometry geometryForPainting() const;
    /// How annotations are drawn here: findings of the view's analysis as numbered markers.
    AnnotationStyle style() const;
    /// The number of the finding `a` was made from (findingNumber()), 0 when it has none.
    int findingNumberOf(const Annotation &a) const;
    /// The tooltip of annotation `id`: a finding marker's number, severity and full title (and the
    /// user's text when it was edited); empty for anything else.
    QString toolTipFor(std::uint64_t id) const;
    /// The annotation under the mouse, 0 for none.
    std::uint64_t hoveredId() const { return m_hovered; }
    /// True while "Add arrow from here" waits for the click on the arrow's head.
    bool isPlacingArrow() const { return m_mode == Mode::PlaceArrow; }
    /// Keys of the timeline that concern annotations: Delete (and Backspace) removes the selected
    /// one, Return edits it, Escape cancels placing an arrow. False when the key is not taken.
    bool handleKey(QKeyEvent *event);

    /// Adds a note at `time` on `rank`, asking for its text first; returns its id (0: cancelled).
    std::uint64_t addNoteInteractive(RankId rank, TimeNs time);
    /// Starts placing an arrow whose tail is at (`rank`, `time`); the next click on the data area
    /// puts its head.
    void beginArrow(RankId rank, TimeNs time);
    /// Opens the editor on annotation `id`; true when it was changed.
    bool editInteractive(std::uint64_t id);

protected:
    void paintEvent(QPaintEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    enum class Mode : std::uint8_t { Idle, Drag, CreateRange, PlaceArrow };

    bool mousePress(RankGroupWidget *group, QMouseEvent *event);
    bool mouseMove(RankGroupWidget *group, QMouseEvent *event);
    bool mouseRelease(QMouseEvent *event);
    bool mouseDoubleClick(RankGroupWidget *group, QMouseEvent *event);
    bool contextMenu(RankGroupWidget *group, QContextMenuEvent *event);
    /// The rank whose group is at viewport row `y`, or kNoRank.
    RankId rankAt(double y) const;
    TimeNs timeAt(double x) const;
    std::optional<Annotation> preview() const;
    void setHovered(std::uint64_t id);
    void updateCursor(RankGroupWidget *group, AnnotationPainter::Part part);
    /// The finding of the view's analysis `a` was made from, and its index; {nullptr, -1} if none.
    std::pair<const Finding *, int> findingOf(const Annotation &a) const;

    // The numbering of the view's analysis, rebuilt when the view gets another one.
    struct Numbering {
        std::shared_ptr<const AnalysisResult> analysis; // held, so a new result never reuses its address
        FindingNumbers numbers;
        std::vector<int> order; // number - 1 → index into analysis->findings
    };
    const Numbering &numbering() const;

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
    mutable Numbering m_numbering;
};

} // namespace rs
