#include "rankgroupwidget.h"

#include "placements.h"

#include "analysisoverlay.h"
#include "charts/memoryplot.h"
#include "counterformat.h"
#include "findingsrow.h"
#include "lanepainter.h"
#include "memorychart.h"
#include "plural.h"
#include "rankgrouppainter.h"
#include "timeformat.h"
#include "timelinecontext.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <memory>
#include <cmath>

namespace rs {

namespace {

constexpr int kDragThreshold = 4; // pixels before a press becomes a drag
constexpr int kEdgeGrabPx = 3;    // how close to the memory lane's bottom edge a press resizes it

} // namespace

RankGroupWidget::RankGroupWidget(TimelineContext &context, RankId rank, QWidget *parent)
    : QWidget(parent)
    , m_ctx(context)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    bind(rank);
}

void RankGroupWidget::bind(RankId rank)
{
    if (rank == m_rank)
        return;
    m_rank = rank;
    // Whatever the mouse was doing belonged to the previous rank.
    m_pressed = m_dragging = m_swallowRelease = false;
    m_resizeFrom = 0;
    unsetCursor();
    parkChart(); // the new rank's series, capacity and marks differ: set again on the same widget

    relayout();
}

const GroupEntry &RankGroupWidget::entry() const
{
    static const GroupEntry none;
    const GroupEntry *e = m_rank == kNoRank ? nullptr : m_ctx.groups.find(m_rank);
    return e ? *e : none;
}

void RankGroupWidget::analysisChanged()
{
    // The analysis' extent may leave an implausible counter out of the value scale, the evidence
    // index was rebuilt with its placements, and it found the spikes.
    if (m_plot) {
        const MemoryChart chart = MemoryChart::of(m_ctx, m_rank, layout().memoryTracks(), m_ctx.state->highlight());
        m_plot->setValueMax(chart.valueMax);
        m_plot->setOomMarks(chart.ooms);
        m_plot->setSpikeMarks(chart.spikes);
    }
    update();
}

void RankGroupWidget::colorsChanged()
{
    if (m_plot) {
        m_plot->applyColors(*m_ctx.colors);
        m_plot->setSeries(MemoryChart::seriesOf(*m_ctx.session, layout().memoryTracks(), m_rank, *m_ctx.colors));
    }
    update();
}

void RankGroupWidget::highlightChanged()
{
    const Highlight &h = m_ctx.state->highlight();
    if (m_plot)
        m_plot->setHighlightRange(h.contains(m_rank) ? h.range : TimeRange());
    update();
}

const Rank &RankGroupWidget::rankData() const
{
    return *m_ctx.session->rank(m_rank);
}

TimeNs RankGroupWidget::offset() const
{
    return m_ctx.state->clockOffset(m_rank);
}

TimeScale RankGroupWidget::viewScale() const
{
    return {m_ctx.state->visibleRange(), static_cast<double>(m_ctx.gutterWidth),
            static_cast<double>(std::max(1, width() - m_ctx.gutterWidth))};
}

QSize RankGroupWidget::sizeHint() const
{
    return {800, layout().height()};
}

void RankGroupWidget::relayout()
{
    buildChart();
    update();
}

void RankGroupWidget::paintHeader(TimelineContext &ctx, const GroupEntry &entry, QPainter &painter, int width)
{
    if (entry.layout.lanes().empty())
        return;
    GroupHeader header = entry.header;
    header.collapsed = ctx.state->isRankCollapsed(entry.rank);
    header.selected = ctx.state->selectedRank() == entry.rank;
    LaneFrame f = LaneFrame::onScreen(ctx, entry.layout, entry.rank, width);
    f.header = &header;
    f.painter = &painter;
    f.exposed = QRect(0, 0, width, entry.layout.lanes().front().height);
    painter.save();
    painter.setClipRect(f.exposed);
    RankGroupPainter::paint(f);
    painter.restore();
}

void RankGroupWidget::buildChart()
{
    const Lane *lane = m_rank == kNoRank ? nullptr : layout().memoryLane();
    if (!lane) {
        parkChart();
        return;
    }
    if (!m_plot) {
        // A chart widget is costly to make: one parked by the previous rank (or fold) is reused.
        m_plot = m_parkedChart ? m_parkedChart : new MemoryPlot(this);
        m_parkedChart = nullptr;
        m_plot->applyColors(*m_ctx.colors);
        // The same description of the chart a figure and a pinned lane draw (MemoryChart::of).
        m_plot->setChart(MemoryChart::of(m_ctx, m_rank, layout().memoryTracks(), m_ctx.state->highlight()));
    }
    m_plot->setValueMax(m_ctx.memoryMax);
    placeChart();
    m_plot->show();
    viewChanged();
}

void RankGroupWidget::parkChart()
{
    if (!m_plot)
        return;
    m_plot->hide();
    delete m_parkedChart;
    m_parkedChart = m_plot;
    m_plot = nullptr;
}

void RankGroupWidget::placeChart()
{
    if (const Lane *lane = layout().memoryLane(); lane && m_plot)
        m_plot->setGeometry(m_ctx.gutterWidth, lane->top, std::max(1, width() - m_ctx.gutterWidth), lane->height - 1);
}

void RankGroupWidget::viewChanged()
{
    if (m_plot) {
        if (m_ctx.ticks)
            m_plot->setTimeGrid(m_ctx.ticks->step, m_ctx.ticks->subdivisions);
        m_plot->setView(m_ctx.state->visibleRange(), m_ctx.origin(), offset());
    }
    update();
}

QRect RankGroupWidget::laneRect(TrackId track) const
{
    const Lane *lane = layout().laneForTrack(track);
    return lane ? QRect(0, lane->top, width(), lane->height) : QRect();
}

QRectF RankGroupWidget::spanRect(TrackId track, std::uint32_t index) const
{
    const Lane *lane = layout().laneForTrack(track);
    if (!lane || !lane->is(LaneId::Spans) || index >= m_ctx.session->tracks()[track].spans.size())
        return {};
    return LanePainter::spanRect(viewScale().shifted(offset()), *lane, m_ctx.session->tracks()[track].spans[index]);
}

void RankGroupWidget::updateEvent(const EventRef &event)
{
    if (event.kind == EventRef::Kind::LogRecord) {
        const auto &records = m_ctx.session->logs().records;
        if (const Lane *lane = layout().logLane(); lane && event.index < records.size() && records[event.index].rank == m_rank)
            update(QRect(0, lane->top, width(), lane->height));
        return;
    }
    if (event.kind == EventRef::Kind::Oom) {
        if (event.index < m_ctx.session->ooms().size() && m_ctx.session->ooms()[event.index].rank == m_rank)
            update();
        return;
    }
    if (event.isNone() || event.track >= m_ctx.session->tracks().size()
        || m_ctx.session->tracks()[event.track].rank != m_rank)
        return;
    if (event.kind == EventRef::Kind::Span) {
        const QRectF r = spanRect(event.track, event.index);
        if (!r.isEmpty()) {
            QRect area = r.toAlignedRect().adjusted(-4, -4, 4, 4);
            area.setLeft(std::max(area.left(), m_ctx.gutterWidth - 4));
            area.setRight(std::min(area.right(), width()));
            update(area);
        }
        return;
    }
    update(laneRect(event.track));
}

LaneFrame RankGroupWidget::frame() const
{
    LaneFrame f = LaneFrame::onScreen(m_ctx, layout(), m_rank, width());
    f.header = &entry().header;
    f.font = font();
    f.chartWidget = m_plot != nullptr;
    return f;
}

EventRef RankGroupWidget::hitTest(QPoint pos) const
{
    return RankGroupPainter::hitTest(frame(), pos);
}

void RankGroupWidget::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    placeChart();
}

void RankGroupWidget::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    if (m_rank == kNoRank) {
        p.fillRect(event->rect(), palette().color(QPalette::Base));
        return;
    }
    GroupHeader header = entry().header;
    header.collapsed = m_ctx.state->isRankCollapsed(m_rank);
    header.selected = m_ctx.state->selectedRank() == m_rank;
    LaneFrame f = frame();
    f.header = &header;
    f.painter = &p;
    f.exposed = event->rect();
    const QFont base = font();
    // The badges are the AnnotationOverlay's; the row is the screen's findings strip.
    f.findingsRow = [base, g = m_ctx.gutterWidth](QPainter &painter, const QRect &row, const QString &title) {
        FindingsRow::paint(painter, row, g, title, base);
    };
    RankGroupPainter::paint(f);
}

bool RankGroupWidget::onMemoryEdge(QPoint pos) const
{
    const Lane *lane = layout().memoryLane();
    return lane && std::abs(pos.y() - (lane->top + lane->height - 1)) <= kEdgeGrabPx;
}

QString RankGroupWidget::laneKindId(const Lane &lane)
{
    const std::string_view id = lane.kind->id();
    return QString::fromLatin1(id.data(), static_cast<qsizetype>(id.size()));
}

QMenu *RankGroupWidget::laneMenu(QPoint pos, QWidget *parent)
{
    auto *menu = new QMenu(parent);
    ViewState *state = m_ctx.state;
    const RankId rank = m_rank;
    if (const Lane *lane = layout().laneAt(pos.y()); lane && !lane->kind->fullRow() && !lane->is(LaneId::Summary)) {
        const QString kind = laneKindId(*lane);
        const TrackId track = lane->track;
        menu->addAction(tr("Hide Lane “%1”").arg(lane->title), menu, [state, rank, kind, track] { state->setLaneHidden(rank, kind, track, true); });
        // Pinned, it stays under the ruler while the groups scroll: rank 0's memory beside rank 700's.
        if (state->isLanePinned(rank, kind, track))
            menu->addAction(tr("Unpin Lane “%1”").arg(lane->title), menu, [state, rank, kind, track] { state->setLanePinned(rank, kind, track, false); });
        else
            menu->addAction(tr("Pin Lane “%1” to Top").arg(lane->title), menu, [state, rank, kind, track] { state->setLanePinned(rank, kind, track, true); });
    }
    if (const int n = state->hiddenLaneCount(rank); n > 0)
        menu->addAction(tr("Show %1 Hidden Lane(s) of Rank %2").arg(n).arg(rank), menu, [state, rank] { state->showHiddenLanes(rank); });
    if (const int all = state->hiddenLaneCount(); all > state->hiddenLaneCount(rank))
        menu->addAction(tr("Show All %1 Hidden Lanes").arg(all), menu, [state] { state->showHiddenLanes(); });
    return menu;
}

void RankGroupWidget::contextMenuEvent(QContextMenuEvent *event)
{
    // The data side belongs to annotations (AnnotationOverlay); the gutter names lanes.
    const Lane *lane = layout().laneAt(event->pos().y());
    if (event->pos().x() >= m_ctx.gutterWidth && !(lane && lane->kind->fullRow())) {
        event->ignore();
        return;
    }
    std::unique_ptr<QMenu> menu(laneMenu(event->pos(), this));
    if (!menu->actions().isEmpty())
        menu->exec(event->globalPos());
}

void RankGroupWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    // The memory lane's bottom edge resizes every memory lane (one height, so ranks still compare).
    if (onMemoryEdge(event->position().toPoint())) {
        m_resizeFrom = layout().memoryLane()->height;
        m_pressPos = event->position().toPoint();
        return;
    }
    m_pressed = true;
    m_dragging = false;
    m_pressPos = event->position().toPoint();
    m_lastDragY = static_cast<int>(event->globalPosition().y());
    m_pressRange = m_ctx.state->visibleRange();
}

void RankGroupWidget::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_resizeFrom > 0) {
        const int h = std::clamp(m_resizeFrom + pos.y() - m_pressPos.y(), LaneLayout::kMinMemoryHeight, LaneLayout::kMaxMemoryHeight);
        m_ctx.state->setMemoryLaneHeight(h);
        return;
    }
    if (!m_pressed) {
        if (onMemoryEdge(pos))
            setCursor(Qt::SizeVerCursor);
        else if (cursor().shape() == Qt::SizeVerCursor)
            unsetCursor();
    }
    Q_EMIT cursorMoved(pos.x() >= m_ctx.gutterWidth ? pos.x() : -1);
    if (m_pressed && (event->buttons() & Qt::LeftButton)) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() >= kDragThreshold) {
            m_dragging = true;
            setCursor(Qt::ClosedHandCursor);
            QToolTip::hideText();
        }
        if (m_dragging) {
            // Pan from the range at press time, so rounding never accumulates over a long drag.
            const double npp = static_cast<double>(m_pressRange.duration()) / viewScale().width;
            const auto delta = static_cast<TimeNs>(std::llround((pos.x() - m_pressPos.x()) * npp));
            m_ctx.state->setVisibleRange({m_pressRange.begin - delta, m_pressRange.end - delta}, ViewState::Change::Continuous);
            const int gy = static_cast<int>(event->globalPosition().y());
            if (gy != m_lastDragY)
                Q_EMIT verticalDragged(m_lastDragY - gy);
            m_lastDragY = gy;
        }
        return;
    }
    const EventRef hit = hitTest(pos);
    m_ctx.state->setHovered(hit);
    const QString tip = RankGroupPainter::tooltip(frame(), pos, hit);
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint() + QPoint(12, 16), tip, this);
}

void RankGroupWidget::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_resizeFrom > 0 && event->button() == Qt::LeftButton) {
        m_resizeFrom = 0;
        unsetCursor();
        return;
    }
    if (event->button() != Qt::LeftButton || !m_pressed) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        unsetCursor();
        m_ctx.state->endGesture();
        return;
    }
    if (m_swallowRelease) {
        m_swallowRelease = false;
        return;
    }
    const QPoint pos = event->position().toPoint();
    const Lane *lane = layout().laneAt(pos.y());
    if (lane && lane->is(LaneId::Header)) {
        m_ctx.state->setRankCollapsed(m_rank, !m_ctx.state->isRankCollapsed(m_rank));
        return;
    }
    m_ctx.state->setSelection(hitTest(pos));
}

void RankGroupWidget::mouseDoubleClickEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    const Lane *lane = layout().laneAt(pos.y());
    // The first click of the pair already toggled or selected; the second release must not undo it.
    m_swallowRelease = true;
    m_pressed = true;
    if (!lane || lane->is(LaneId::Header))
        return;
    const EventRef hit = hitTest(pos);
    if (hit.kind == EventRef::Kind::Span) {
        const Span &s = m_ctx.session->tracks()[hit.track].spans[hit.index];
        Q_EMIT zoomRequested({s.start + offset(), s.end() + offset()});
    }
}

void RankGroupWidget::leaveEvent(QEvent *event)
{
    QWidget::leaveEvent(event);
    m_ctx.state->setHovered({});
    Q_EMIT cursorMoved(-1);
}

} // namespace rs
