#pragma once
// The small multiples of the compare view as a plain painter, with no widget behind it: a row per
// rank with its allocated memory (filled) and reserved memory (dashed line) on a y scale shared by
// all rows so heights compare, the reference rank's allocated curve drawn faintly in every other
// row, the rank's steps underneath coloured by how long they took against the reference's median
// step (a cut-off step hatched grey, never a deviation), its out-of-memory moments in red, and the
// time axis under the rows.
//
// The SmallMultiples widget feeds it from ViewState and adds the mouse; the compare figure of the
// exporter (export/comparefigure.h) feeds it from FigureOptions and paints it onto a QImage, SVG or
// PDF device, so `rankscope export --view compare` needs no QWidget. Curves are reduced to min/max
// per pixel column (analysis/lod.h) before drawing, so a one-sample spike is never lost and a
// million samples draw like a thousand.

#include "palette.h"
#include "analysisresult.h"
#include "lod.h"
#include "session.h"
#include "timeline/evidenceindex.h"
#include "viewstate.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QRect>

#include <map>
#include <memory>
#include <vector>

class QPainter;
class QPen;

namespace rs {

class SmallMultiplesPainter
{
    Q_DECLARE_TR_FUNCTIONS(SmallMultiples)

public:
    static constexpr int kLabelWidth = 128;  ///< default width of the rank label column
    static constexpr int kAxisHeight = 22;   ///< the time axis under the rows
    static constexpr int kStripHeight = 10;  ///< the step strip of a row
    static constexpr int kMinRowHeight = 44; ///< rows never get lower than this
    static constexpr int kRowHeight = 64;    ///< preferred row height on screen

    /// What is drawn where, from the time axis' point of view: the window and its t = 0.
    struct View {
        TimeRange visible;    ///< aligned ns across the plot column
        TimeNs origin = 0;    ///< aligned ns of t = 0 on the axis labels (the session start)
        RankId selected = kNoRank; ///< row tinted in its rank colour (the selected rank on screen)
        Highlight highlight;  ///< rows shaded amber, its window shaded in them (the selected finding)
    };

    /// Drops all rows; `session` (may be null) provides them through setRanks().
    void setSession(SessionPtr session);
    /// Metrics (the reference's median step) and OOM placements; may be null.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    /// The rows, top to bottom (ranks unknown to the session are skipped). The shared y scale is
    /// the largest allocated or reserved value of these rows.
    void setRanks(const std::vector<RankId> &ranks);
    /// The rank whose allocated curve is drawn in the other rows and whose median step colours
    /// steps; kNoRank: none (steps stay neutral).
    void setReferenceRank(RankId rank) { m_reference = rank; }
    RankId referenceRank() const { return m_reference; }
    /// Draw the reference's allocated curve in the other rows (on by default).
    void setShowReference(bool show) { m_showReference = show; }
    bool showReference() const { return m_showReference; }
    /// Per-rank clock offsets added to the rank's own times (missing ranks: 0).
    void setClockOffsets(std::map<RankId, TimeNs> offsets) { m_offsets = std::move(offsets); }
    void setView(const View &view) { m_view = view; }
    const View &view() const { return m_view; }
    /// Font of the labels; badges, axis and second label lines use a smaller one derived from it.
    void setFont(const QFont &font) { m_font = font; }
    /// Neutral colours (background, captions, axis, rules); paper unless told. The screen passes
    /// Palette::screen(), so the Compare tab follows the desktop's theme; figures stay on paper.
    void setColors(const Palette &colors) { m_colors = &colors; }
    /// Width of the rank label column (kLabelWidth by default).
    void setLabelWidth(int width) { m_labelWidth = width; }
    /// Text of the reference rank's badge ("ref" on screen, where the tooltip says the rest).
    void setReferenceBadge(const QString &text) { m_referenceBadge = text; }

    /// The rows drawn, top to bottom.
    std::vector<RankId> ranks() const;
    /// Bytes at the top of every row's scale.
    double valueMax() const { return m_valueMax; }
    /// The plot area of `rank`'s row in a figure drawn into `rect` (empty when it has no row).
    QRect plotRect(RankId rank, const QRect &rect) const;
    /// The step strip of `rank`'s row in a figure drawn into `rect`.
    QRect stripRect(RankId rank, const QRect &rect) const;
    /// The plot column (all rows) of a figure drawn into `rect`.
    QRect plotsRect(const QRect &rect) const;
    /// Index of the row under figure y `y`, or -1.
    int rowAt(const QRect &rect, int y) const;
    /// The rank of row `index`.
    RankId rankAt(int index) const { return m_rows[std::size_t(index)].rank; }
    /// The aligned time under figure x `x`.
    TimeNs timeAt(const QRect &rect, int x) const;
    /// Tooltip (rich text) of row `index` at aligned time `viewTime`.
    QString hoverText(int index, TimeNs viewTime) const;
    /// The reference's median step duration (the analysis' or counted from its steps; 0: none).
    TimeNs referenceStep() const;

    /// Draws every row and the axis into `rect` (white background).
    void paint(QPainter &painter, const QRect &rect) const;

    /// The red of out-of-memory markers.
    static QColor oomColor();
    /// The colour of the reference rank's curve in the other rows.
    static QColor referenceColor(const Palette &colors = Palette::paper());
    /// Fill of a step of `duration` against the reference median step `reference` (0: unknown).
    static QColor stepColor(TimeNs duration, TimeNs reference);
    /// Fill of a cut-off step (Step::incomplete), hatched over: never a fast or slow step.
    static QColor incompleteStepColor();
    /// The pen of a rank's reserved curve.
    static QPen reservedPen(RankId rank, const Palette &colors = Palette::paper());
    /// The smaller font of badges and second lines, for a label font `font` (point or pixel sized).
    static QFont smallFont(const QFont &font);

private:
    struct RowData {
        RankId rank = kNoRank;
        const Track *allocated = nullptr;
        const Track *reserved = nullptr;
        const Rank *info = nullptr;
        double peak = 0;
    };
    struct Geometry {
        QRect labels; // the label column (all rows)
        QRect plots;  // the plot column (all rows)
        QRect axis;   // the time axis under the plots
        int rowHeight = 0;
        int rows = 0;
    };

    Geometry geometry(const QRect &rect) const;
    TimeNs offsetOf(RankId rank) const;
    void paintRow(QPainter &p, const Geometry &g, int index) const;
    void paintLabel(QPainter &p, const RowData &row, const QRect &full) const;
    void paintCurve(QPainter &p, const QRect &area, const CounterSeries &series, TimeNs offset, const QPen &pen,
                    const QColor &fill) const;
    void paintAxis(QPainter &p, const Geometry &g) const;

    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    EvidenceIndex m_evidence;
    std::vector<RowData> m_rows;
    std::map<RankId, TimeNs> m_offsets;
    View m_view;
    QFont m_font;
    const Palette *m_colors = &Palette::paper();
    QString m_referenceBadge = tr("ref");
    RankId m_reference = kNoRank;
    bool m_showReference = true;
    int m_labelWidth = kLabelWidth;
    double m_valueMax = 0;
    mutable std::vector<CounterColumn> m_columns; // scratch of paintCurve
};

} // namespace rs
