#include "memoryplot.h"

#include "timeline/memorylanepainter.h"

#include "columnfill.h"
#include "palette.h"
#include "lod.h"
#include "byteaxisticker.h"
#include "timeaxisticker.h"
#include "timeformat.h"

#include <algorithm>
#include <cmath>

namespace rs {

MemoryPlot::MemoryPlot(QWidget *parent)
    : QCustomPlot(parent)
    , m_ticker(new TimeAxisTicker)
{
    setAttribute(Qt::WA_TransparentForMouseEvents);
    applyColors(Palette::screen());
    setNoAntialiasingOnDrag(true);
    // The curves are steps (axis-aligned, one column per pixel): antialiasing their fills and lines
    // changes no pixel worth seeing and made the rasterizer the most expensive part of a zoom.
    setNotAntialiasedElements(QCP::aeFills | QCP::aePlottables);
    setPlottingHint(QCP::phFastPolylines, true);

    // The axis rect fills the widget exactly, so key → pixel is the timeline's own mapping.
    plotLayout()->setMargins(QMargins());
    axisRect()->setAutoMargins(QCP::msNone);
    axisRect()->setMargins(QMargins());

    xAxis->setTicker(m_ticker);
    xAxis->setTicks(false);
    xAxis->setTickLabels(false);
    xAxis->setBasePen(Qt::NoPen);

    xAxis->grid()->setZeroLinePen(Qt::NoPen);

    QSharedPointer<ByteAxisTicker> bytes(new ByteAxisTicker);
    bytes->setTickCount(2);
    yAxis->setTicker(bytes);
    yAxis->setBasePen(Qt::NoPen);
    yAxis->setTickPen(Qt::NoPen);
    yAxis->setSubTickPen(Qt::NoPen);
    yAxis->setTickLabelSide(QCPAxis::lsInside);
    yAxis->setTickLabelPadding(4);

    QFont f = font();
    f.setPixelSize(10);
    yAxis->setTickLabelFont(f);

    yAxis->grid()->setZeroLinePen(Qt::NoPen);
    yAxis->setRange(0, 1);
}

void MemoryPlot::setSeries(const std::vector<Series> &series)
{
    clearGraphs();
    qDeleteAll(m_fills);
    m_lines.clear();
    m_fills.clear();
    m_series = series;
    for (const Series &s : m_series) {
        // An area's fill is drawn under its line by ColumnFill, a rectangle per pixel run (a
        // polygon under the min/max line was the costliest thing a zoom did).
        ColumnFill *fill = nullptr;
        if (s.style == Style::Area) {
            QColor color = s.color;
            color.setAlpha(70);
            fill = new ColumnFill(xAxis, yAxis, color);
        }
        QCPGraph *g = addGraph();
        g->setName(s.name);
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setAdaptiveSampling(false); // already decimated to pixel columns
        g->setPen(pen(s.style, s.color));
        m_lines.push_back(g);
        m_fills.push_back(fill);
    }
    m_dirty = true;
    update();
}

QPen MemoryPlot::pen(Style style, const QColor &color)
{
    return MemoryLanePainter::pen(style, color);
}

void MemoryPlot::setChart(const MemoryChart &chart)
{
    setSeries(chart.series);
    setValueMax(chart.valueMax);
    setCapacity(chart.capacity);
    setOomMarks(chart.ooms);
    setSpikeMarks(chart.spikes);
    setHighlightRange(chart.highlight);
}

QPicture MemoryPlot::picture(const MemoryChart &chart, const ChartView &view, QSize size)
{
    if (view.colors)
        applyColors(*view.colors);
    setChart(chart);
    setTimeGrid(view.gridStep, std::max(1, view.gridSubdivisions));
    // A hidden widget takes its new size at once (its resize event waits until it is shown), and
    // rebuild() decimates for that width.
    resize(size);
    m_visible = view.visible;
    m_origin = view.origin;
    m_offset = view.offset;
    rebuild();
    QPicture picture;
    QCPPainter painter(&picture);
    // No cached layer pixmaps, so SVG and PDF figures keep vectors. Not pmVectorized: it drops the
    // half-pixel shift QCustomPlot gives unantialiased shapes, and the figure would sit a pixel off
    // the screen's chart.
    painter.setMode(QCPPainter::pmNoCaching);
    toPainter(&painter, size.width(), size.height());
    painter.end();
    return picture;
}

QPen MemoryPlot::capacityPen()
{
    return MemoryLanePainter::capacityPen();
}

void MemoryPlot::setValueMax(double bytes)
{
    // Headroom so the peak does not touch the lane above.
    m_valueMax = bytes;
    yAxis->setRange(0, bytes > 0 ? bytes * 1.1 : 1);
    m_dirty = true;
    update();
}

void MemoryPlot::setCapacity(double bytes)
{
    m_capacity = bytes;
    m_dirty = true;
    update();
}

void MemoryPlot::setOomMarks(std::vector<OomMark> marks)
{
    m_ooms = std::move(marks);
    m_dirty = true;
    update();
}

void MemoryPlot::setSpikeMarks(std::vector<SpikeMark> marks)
{
    m_spikes = std::move(marks);
    m_dirty = true;
    update();
}

void MemoryPlot::setHighlightRange(TimeRange viewRange)
{
    if (viewRange == m_highlight)
        return;
    m_highlight = viewRange;
    m_dirty = true;
    update();
}

void MemoryPlot::rebuildItems(TimeNs shift)
{
    clearItems();
    const QColor red(0xc9, 0x1d, 0x2e);
    const QFont f = MemoryChart::labelFont(font());
    // The capacity rule only when it falls on the chart: a 2 GiB job on an 80 GiB card keeps its
    // curves readable rather than squashed under a far-away line. Its value is in the legend, where
    // no OOM label can cover it.
    if (m_capacity > 0 && m_capacity <= yAxis->range().upper) {
        // Its ends are placed by axis-rect fraction across: two keys 1 ns apart fall on the same
        // pixel over a long window, and a line through two equal points is not drawn at all.
        auto *cap = new QCPItemStraightLine(this);
        cap->point1->setTypeX(QCPItemPosition::ptAxisRectRatio);
        cap->point2->setTypeX(QCPItemPosition::ptAxisRectRatio);
        cap->point1->setCoords(0, m_capacity);
        cap->point2->setCoords(1, m_capacity);
        cap->setPen(capacityPen());
    }
    const QCPRange keys = xAxis->range();
    const QColor amber(0xe0, 0x8e, 0x00);
    if (!m_highlight.isEmpty()) {
        auto *band = new QCPItemRect(this);
        band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        band->topLeft->setCoords(static_cast<double>(m_highlight.begin - m_origin), 0);
        band->bottomRight->setCoords(static_cast<double>(m_highlight.end - m_origin), 1);
        band->setPen(QPen(QColor(0xe0, 0x8e, 0x00, 200), 1, Qt::DashLine));
        band->setBrush(QColor(0xe0, 0x8e, 0x00, 34));
    }
    // Spikes under the OOM marks: the rise explains the OOM, the OOM stays the loudest mark. Which
    // labels print, and where, is MemoryChart::labelsOf: annotations over the chart read the same
    // places to keep clear of them.
    const double npp = static_cast<double>(std::max<TimeNs>(1, m_visible.duration())) / std::max(1, width());
    for (const SpikeMark &m : m_spikes) {
        const double k0 = static_cast<double>(m.time + shift);
        const double k1 = std::max(k0 + 3 * npp, static_cast<double>(m.time + m.duration + shift));
        if (k1 < keys.lower || k0 > keys.upper)
            continue;
        auto *rise = new QCPItemRect(this);
        rise->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rise->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rise->topLeft->setCoords(k0, 0.12);
        rise->bottomRight->setCoords(k1, 1);
        rise->setPen(Qt::NoPen);
        rise->setBrush(QColor(0xe0, 0x8e, 0x00, 46));
    }
    for (const OomMark &m : m_ooms) {
        const double k = static_cast<double>(m.time + shift);
        if (k < keys.lower || k > keys.upper)
            continue;
        auto *line = new QCPItemStraightLine(this); // top to bottom by fraction, like the capacity
        line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
        line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
        line->point1->setCoords(k, 0);
        line->point2->setCoords(k, 1);
        line->setPen(QPen(red, 1.5));
    }
    // The axis rect fills the widget (no margins), and its own geometry may not be laid out yet.
    m_labels = MemoryChart::labelsOf(m_spikes, m_ooms, m_visible, m_offset, size(), f);
    m_spikeLabels = 0;
    for (const ChartLabel &label : m_labels) {
        const bool spike = label.kind == ChartLabel::Kind::Spike;
        m_spikeLabels += spike;
        auto *tag = new QCPItemText(this);
        tag->position->setType(QCPItemPosition::ptAbsolute);
        tag->position->setCoords(label.rect.left(), label.rect.top());
        tag->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        tag->setPadding(QMargins(3, 1, 3, 1));
        tag->setBrush(spike ? QColor(0xfd, 0xf3, 0xdc) : red);
        tag->setPen(spike ? QPen(amber) : QPen(Qt::NoPen));
        tag->setColor(spike ? QColor(0x8a, 0x55, 0x00) : QColor(Qt::white));
        tag->setFont(f);
        tag->setText(label.text);
    }
}

void MemoryPlot::setTimeGrid(TimeNs step, int subdivisions)
{
    m_ticker->setFixedStep(step);
    m_ticker->setSubdivisions(subdivisions);
    m_dirty = true;
    update();
}

void MemoryPlot::setView(TimeRange visible, TimeNs origin, TimeNs offset)
{
    m_visible = visible;
    m_origin = origin;
    m_offset = offset;
    m_dirty = true;
    // Off-screen charts (scrolled away in a 64-rank session) wait for their next paint.
    if (isVisible() && !visibleRegion().isEmpty()) {
        rebuild();
        replot(rpQueuedRefresh);
    } else {
        update();
    }
}

void MemoryPlot::applyColors(const Palette &palette)
{
    setBackground(palette.color(Palette::Role::Base));
    axisRect()->setBackground(palette.color(Palette::Role::Base));
    xAxis->grid()->setPen(QPen(palette.color(Palette::Role::GridMinor), 0));
    yAxis->setTickLabelColor(palette.color(Palette::Role::Muted));
    yAxis->grid()->setPen(QPen(palette.color(Palette::Role::ChartGrid), 0, Qt::DotLine));
    m_dirty = true;
    update();
}

QCPGraph *MemoryPlot::line(int i) const
{
    return i >= 0 && i < static_cast<int>(m_lines.size()) ? m_lines[static_cast<std::size_t>(i)] : nullptr;
}

const ColumnFill *MemoryPlot::fill(int i) const
{
    return i >= 0 && i < static_cast<int>(m_fills.size()) ? m_fills[static_cast<std::size_t>(i)] : nullptr;
}

int MemoryPlot::pointCount(int i) const
{
    return i >= 0 && i < static_cast<int>(m_lines.size()) ? m_lines[static_cast<std::size_t>(i)]->dataCount() : 0;
}

void MemoryPlot::rebuild()
{
    m_dirty = false;
    xAxis->setRange(static_cast<double>(m_visible.begin - m_origin), static_cast<double>(m_visible.end - m_origin));
    const double width = std::max(1, this->width());
    const double npp = static_cast<double>(m_visible.duration()) / width;
    const TimeRange dataRange{m_visible.begin - m_offset, m_visible.end - m_offset};
    const TimeNs shift = m_offset - m_origin; // data time → key
    for (std::size_t i = 0; i < m_series.size(); ++i) {
        m_points.clear();
        m_envelope.clear();
        if (m_series[i].data)
            decimateCounter(*m_series[i].data, dataRange, npp, m_columns);
        else
            m_columns.clear();
        // Per column: first, then the extremes, then the last value, so the step line passes
        // through the whole min/max range of the column before moving on.
        for (const CounterColumn &c : m_columns) {
            const double k = static_cast<double>(c.firstTime + shift);
            m_points.append({k, c.first});
            m_envelope.append({k, c.max});
            if (c.count > 1)
                m_envelope.append({static_cast<double>(c.lastTime + shift), c.last});
            if (c.count > 1) {
                m_points.append({k, c.max});
                m_points.append({k, c.min});
                m_points.append({static_cast<double>(c.lastTime + shift), c.last});
            }
        }
        m_lines[i]->data()->set(m_points, true);
        if (m_fills[i])
            m_fills[i]->setColumns(m_envelope);
    }
    rebuildItems(shift);
}

void MemoryPlot::paintEvent(QPaintEvent *event)
{
    if (m_dirty) {
        rebuild();
        replot(rpQueuedRefresh);
    }
    QCustomPlot::paintEvent(event);
}

void MemoryPlot::resizeEvent(QResizeEvent *event)
{
    QCustomPlot::resizeEvent(event);
    m_dirty = true;
}

} // namespace rs
