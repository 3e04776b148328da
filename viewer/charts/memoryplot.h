#pragma once
// The memory lane of a rank: PyTorch's allocated and reserved bytes, the allocator snapshot's
// replayed totals and nvidia-smi's device-wide used memory, as step curves on the timeline's time
// axis, with the GPU's capacity (a rule, named in the lane's legend) and the rank's out-of-memory
// moments marked. The series are
// decimated to min/max columns before QCustomPlot sees them, so a million allocator events plot as
// fast as a thousand, and a one-event spike still shows. The chart is a picture only: the timeline
// handles the mouse.

#include "timeline/memorychart.h"
#include "qcustomplotinclude.h"

#include "lod.h"

#include <QColor>
#include <QPicture>
#include <QSharedPointer>
#include <QString>

#include <vector>

namespace rs {

class ColumnFill;
class Palette;
class TimeAxisTicker;

class MemoryPlot : public QCustomPlot
{
    Q_OBJECT
public:
    /// How a curve is drawn; each evidence source has its own so they never read as one another:
    /// Area (filled under a 1 px line, profiler allocated), Line (profiler reserved), Dashed
    /// (nvidia-smi used: the whole device, not just PyTorch), Dotted (allocator snapshot totals).
    using Style = MemoryChart::Style;
    /// One curve.
    using Series = MemoryChart::Series;
    /// A moment the rank ran out of memory.
    using OomMark = rs::OomMark;

    /// A large rise of allocated memory the analysis found: shaded, with its size as label.
    using SpikeMark = rs::SpikeMark;

    explicit MemoryPlot(QWidget *parent = nullptr);

    /// Shows `chart`: its curves, value scale, capacity, OOM and spike marks and highlight.
    void setChart(const MemoryChart &chart);
    /// Draws the chart as `view` sees it at `size` into a picture, without showing the widget: how
    /// figures and pinned lanes draw the same chart the screen shows.
    QPicture picture(const MemoryChart &chart, const ChartView &view, QSize size);

    /// Replaces the curves; they are drawn in order, so areas should come before lines.
    void setSeries(const std::vector<Series> &series);
    const std::vector<Series> &series() const { return m_series; }
    /// Background, grid and label colours from `palette` (the screen's, as the theme goes).
    void applyColors(const Palette &palette);
    /// The line of series `i` (nullptr out of range).
    QCPGraph *line(int i) const;
    /// The fill under series `i`, nullptr when it is not an area.
    const ColumnFill *fill(int i) const;
    /// Top of the value axis in bytes (shared by all ranks so their charts compare at a glance).
    void setValueMax(double bytes);
    /// The GPU's memory in bytes, drawn as a horizontal rule when it lies within the axis; 0: none.
    void setCapacity(double bytes);
    double capacity() const { return m_capacity; }
    /// The pen of the capacity rule (the gutter legend draws the same).
    static QPen capacityPen();
    /// Out-of-memory moments: a red vertical line with a marker and a label each.
    void setOomMarks(std::vector<OomMark> marks);
    const std::vector<OomMark> &oomMarks() const { return m_ooms; }
    /// Allocation spikes: an amber band over each rise with its size on top.
    void setSpikeMarks(std::vector<SpikeMark> marks);
    const std::vector<SpikeMark> &spikeMarks() const { return m_spikes; }
    /// Spike labels drawn at the last rebuild (labels that would print over two others are left out).
    int spikeLabelCount() const { return m_spikeLabels; }
    /// The spike and OOM labels drawn at the last rebuild, in widget coordinates.
    const std::vector<ChartLabel> &labels() const { return m_labels; }
    /// A view-time window to shade (the selected finding's), or an empty range for none.
    void setHighlightRange(TimeRange viewRange);
    /// The pen a curve of `style` in `color` is drawn with (the gutter legend draws the same).
    static QPen pen(Style style, const QColor &color);
    /// Aligns the vertical grid with the ruler: its step and sub-tick count.
    void setTimeGrid(TimeNs step, int subdivisions);
    /// Shows view time `visible`; keys are ns since `origin`, and the data is shown `offset` ns
    /// later than recorded (the rank's clock offset). Replots now when on screen, else on next paint.
    void setView(TimeRange visible, TimeNs origin, TimeNs offset);
    /// Points handed to QCustomPlot for curve `i` at the last rebuild (after decimation).
    int pointCount(int i) const;

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuild();
    void rebuildItems(TimeNs shift);

    std::vector<Series> m_series;
    std::vector<QCPGraph *> m_lines;  // per series: its line
    std::vector<ColumnFill *> m_fills; // per series: its fill under the line (Area), else nullptr
    std::vector<OomMark> m_ooms;
    std::vector<SpikeMark> m_spikes;
    int m_spikeLabels = 0;
    std::vector<ChartLabel> m_labels;
    TimeRange m_highlight;
    double m_capacity = 0;
    double m_valueMax = 0;
    QSharedPointer<TimeAxisTicker> m_ticker;
    TimeRange m_visible;
    TimeNs m_origin = 0;
    TimeNs m_offset = 0;
    bool m_dirty = true;
    std::vector<CounterColumn> m_columns;
    QVector<QCPGraphData> m_points;
    QVector<QPointF> m_envelope; // an area fill's steps: each column's highest, then its last value
};

} // namespace rs
