#pragma once
// The compare view as an exportable figure: every rank against the reference rank. Under the title
// block shared with the timeline figure (FigureChrome): the small multiples of the chosen ranks
// over the chosen window (SmallMultiplesPainter: memory on one shared scale, the reference's curve
// faint in every row, steps coloured against its median step, OOMs in red) with a legend, then the
// per-rank metrics table drawn with QPainter — the columns, texts and deviation colours of
// RankMetricsModel, the reference's row marked — with the legend of the deviation colours, and the
// footer. Needs QtGui only (no widget), so `rankscope export --view compare` runs without a
// display; SVG and PDF keep text as text.

#include "compare/smallmultiplespainter.h"
#include "figure.h"

#include <QCoreApplication>
#include <QFont>

#include <map>
#include <vector>

namespace rs {

class CompareFigure : public Figure
{
    Q_DECLARE_TR_FUNCTIONS(CompareFigure)

public:
    /// Lays the figure out; `analysis` may be null (no offsets, metrics or reference then).
    CompareFigure(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis, FigureOptions options);

    QSize size() const override { return m_size; }
    QString title() const override { return m_title; }
    QString rangeText() const override;
    void paint(QPainter &painter) override;

    /// The aligned window drawn (the options' range clamped to the data, or all of it).
    TimeRange range() const { return m_range; }
    /// The ranks with a row, top to bottom (unknown ranks of the options dropped).
    const std::vector<RankId> &ranks() const { return m_rankOrder; }
    /// The reference rank: the options' when the session has it, else the median rank (kNoRank
    /// without metrics).
    RankId referenceRank() const { return m_reference; }
    /// True when the reference is the median rank rather than one the options chose.
    bool referenceIsMedian() const { return m_referenceIsMedian; }
    /// The metrics table's rows, top to bottom: the shown ranks with metrics, and the reference
    /// first when it has no row of its own above.
    const std::vector<const RankMetrics *> &tableRows() const { return m_tableRows; }

private:
    struct Layout {
        int contentWidth = 0; // logical width before m_scale
        int rowHeight = 0;    // one small-multiples row
        int multiplesTop = 0, multiplesHeight = 0, multiplesLegendTop = 0;
        int tableHeadingTop = 0, tableTop = 0, tableHeight = 0, tableLegendTop = 0;
        int footerTop = 0, contentHeight = 0;
    };

    Layout layoutFor(int contentWidth, int rowHeight) const;
    void layout();
    /// Natural widths of the table's columns (text plus padding).
    std::vector<int> columnWidths() const;
    int tableNaturalWidth() const;
    void paintHeading(QPainter &p, int top, const QString &text, const QString &note) const;
    int paintMultiplesLegend(QPainter &p, const QRect &r, bool draw) const;
    void paintTable(QPainter &p, const QRect &r) const;
    int paintDeviationLegend(QPainter &p, const QRect &r, bool draw) const;
    QString referenceText() const;
    bool hasMemory() const; // some shown rank has an allocator memory curve
    bool hasOom() const;    // some shown rank ran out of memory

    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    FigureOptions m_opt;
    SmallMultiplesPainter m_multiples;
    std::map<RankId, TimeNs> m_offsets;
    std::vector<RankId> m_rankOrder;
    std::vector<const RankMetrics *> m_tableRows;
    TimeRange m_full;
    TimeRange m_range;
    RankId m_reference = kNoRank;
    bool m_referenceIsMedian = true;
    QString m_title;
    QFont m_font;
    Layout m_layout;
    QSize m_size;
    double m_scale = 1.0; // < 1 when a fixed height is smaller than the content
};

} // namespace rs
