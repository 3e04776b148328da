#pragma once
// Every rank's memory and steps as small multiples on the one aligned time axis (what is drawn:
// SmallMultiplesPainter). A crosshair follows the mouse through all rows at the same aligned time.
// Ctrl+wheel (or the wheel, when every row is in view) zooms, dragging pans, a click selects the
// rank; all of it goes through ViewState, so the timeline follows.
//
// The widget only feeds the painter from ViewState (window, offsets, hidden ranks, selection,
// highlight) and adds the mouse; render() draws the same picture into any painter.

#include "smallmultiplespainter.h"

#include <QColor>
#include <QPointer>
#include <QWidget>

#include <memory>
#include <vector>

namespace rs {

class SmallMultiples : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kLabelWidth = SmallMultiplesPainter::kLabelWidth;     ///< the rank label column
    static constexpr int kAxisHeight = SmallMultiplesPainter::kAxisHeight;     ///< the time axis under the rows
    static constexpr int kStripHeight = SmallMultiplesPainter::kStripHeight;   ///< the step strip of a row
    static constexpr int kMinRowHeight = SmallMultiplesPainter::kMinRowHeight; ///< rows never get lower than this
    static constexpr int kRowHeight = SmallMultiplesPainter::kRowHeight;       ///< preferred row height

    explicit SmallMultiples(ViewState *state, QWidget *parent = nullptr);

    void setSession(SessionPtr session);
    /// Metrics (reference median step) and OOM placements; may be null.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    /// The rank whose allocated curve is drawn in every row and whose median step colours steps.
    void setReferenceRank(RankId rank);
    RankId referenceRank() const { return m_painter.referenceRank(); }
    /// Draw the reference's allocated curve in the other rows (on by default).
    void setShowReference(bool show);
    bool showReference() const { return m_painter.showReference(); }

    /// Ranks with a row, top to bottom: the session's ranks that ViewState does not hide.
    std::vector<RankId> shownRanks() const { return m_painter.ranks(); }
    /// The plot area of `rank`'s row in a figure drawn into `rect` (empty when it has no row).
    QRect plotRect(RankId rank, const QRect &rect) const { return m_painter.plotRect(rank, rect); }
    /// The step strip of `rank`'s row in a figure drawn into `rect`.
    QRect stripRect(RankId rank, const QRect &rect) const { return m_painter.stripRect(rank, rect); }
    /// Draws the whole figure into `rect` of `painter` (no hover crosshair).
    void render(QPainter &painter, const QRect &rect) const;
    /// Bytes at the top of every row's scale.
    double valueMax() const { return m_painter.valueMax(); }

    /// The red of out-of-memory markers.
    static QColor oomColor() { return SmallMultiplesPainter::oomColor(); }
    /// The colour of the reference rank's curve in the other rows.
    static QColor referenceColor() { return SmallMultiplesPainter::referenceColor(Palette::screen()); }
    /// Fill of a step of `duration` against the reference median step `reference` (0: unknown).
    static QColor stepColor(TimeNs duration, TimeNs reference) { return SmallMultiplesPainter::stepColor(duration, reference); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    void rebuildRows();
    /// Copies what ViewState says now (window, offsets, selection, highlight) into the painter;
    /// false when there is no view state (nothing to draw then).
    bool syncView() const;
    int rowCount() const { return int(m_painter.ranks().size()); }

    QPointer<ViewState> m_state;
    SessionPtr m_session;
    mutable SmallMultiplesPainter m_painter; // synced from ViewState right before each use
    // Interaction.
    QPoint m_pressPos;
    TimeRange m_pressRange;
    bool m_dragging = false;
    bool m_pressed = false;
    int m_hoverX = -1;
};

} // namespace rs
