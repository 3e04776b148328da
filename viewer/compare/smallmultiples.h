#pragma once
// Every rank's memory and steps as small multiples on the one aligned time axis: a row per shown
// rank with its allocated memory (filled) and reserved memory (line) on a y scale shared by all rows
// so heights compare, the reference rank's allocated curve drawn faintly in every row, the rank's
// steps underneath coloured by how long they took against the reference's median step, and its
// out-of-memory moments in red. A crosshair follows the mouse through all rows at the same aligned
// time. Ctrl+wheel (or the wheel, when every row is in view) zooms, dragging pans, a click selects
// the rank; all of it goes through ViewState, so the timeline follows.
//
// Painting is plain QPainter and works on any paint device: render() draws the figure into a
// rectangle for the exporter. Curves are reduced to min/max per pixel column (analysis/lod.h)
// before drawing, so a one-sample spike is never lost and a million samples draw like a thousand.

#include "analysisresult.h"
#include "lod.h"
#include "session.h"
#include "timeline/evidenceindex.h"
#include "viewstate.h"

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
    static constexpr int kLabelWidth = 128;  ///< the rank label column
    static constexpr int kAxisHeight = 22;   ///< the time axis under the rows
    static constexpr int kStripHeight = 10;  ///< the step strip of a row
    static constexpr int kMinRowHeight = 44; ///< rows never get lower than this
    static constexpr int kRowHeight = 64;    ///< preferred row height

    explicit SmallMultiples(ViewState *state, QWidget *parent = nullptr);

    void setSession(SessionPtr session);
    /// Metrics (reference median step) and OOM placements; may be null.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    /// The rank whose allocated curve is drawn in every row and whose median step colours steps.
    void setReferenceRank(RankId rank);
    RankId referenceRank() const { return m_reference; }
    /// Draw the reference's allocated curve in the other rows (on by default).
    void setShowReference(bool show);
    bool showReference() const { return m_showReference; }

    /// Ranks with a row, top to bottom: the session's ranks that ViewState does not hide.
    std::vector<RankId> shownRanks() const;
    /// The plot area of `rank`'s row in a figure drawn into `rect` (empty when it has no row).
    QRect plotRect(RankId rank, const QRect &rect) const;
    /// The step strip of `rank`'s row in a figure drawn into `rect`.
    QRect stripRect(RankId rank, const QRect &rect) const;
    /// Draws the whole figure into `rect` of `painter` (no hover crosshair).
    void render(QPainter &painter, const QRect &rect) const;
    /// Bytes at the top of every row's scale.
    double valueMax() const { return m_valueMax; }

    /// The red of out-of-memory markers.
    static QColor oomColor();
    /// The colour of the reference rank's curve in the other rows.
    static QColor referenceColor();
    /// Fill of a step of `duration` against the reference median step `reference` (0: unknown).
    static QColor stepColor(TimeNs duration, TimeNs reference);

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
    struct RowData {
        RankId rank = kNoRank;
        const Track *allocated = nullptr;
        const Track *reserved = nullptr;
        const Rank *info = nullptr;
        double peak = 0;
    };
    struct Geometry {
        QRect labels;   // the label column (all rows)
        QRect plots;    // the plot column (all rows)
        QRect axis;     // the time axis under the plots
        int rowHeight = 0;
        int rows = 0;
    };

    void rebuildRows();
    Geometry geometry(const QRect &rect) const;
    int rowAt(const Geometry &g, int y) const;
    TimeNs timeAt(const Geometry &g, int x) const;
    void paintFigure(QPainter &p, const QRect &rect, bool interactive) const;
    void paintRow(QPainter &p, const Geometry &g, int index, bool interactive) const;
    void paintCurve(QPainter &p, const QRect &area, const CounterSeries &series, TimeNs offset, const QPen &pen,
                    const QColor &fill) const;
    void paintAxis(QPainter &p, const Geometry &g) const;
    QString hoverText(const RowData &row, TimeNs viewTime) const;
    TimeNs referenceStep() const;

    QPointer<ViewState> m_state;
    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    EvidenceIndex m_evidence;
    std::vector<RowData> m_rows;
    RankId m_reference = kNoRank;
    bool m_showReference = true;
    double m_valueMax = 0;
    mutable std::vector<CounterColumn> m_columns;
    // Interaction.
    QPoint m_pressPos;
    TimeRange m_pressRange;
    bool m_dragging = false;
    bool m_pressed = false;
    int m_hoverX = -1;
};

} // namespace rs
