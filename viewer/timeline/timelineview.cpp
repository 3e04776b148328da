#include "timelineview.h"

#include "charts/memorychartrenderer.h"

#include "stickyheader.h"

#include "placements.h"

#include "annotationoverlay.h"
#include "annotations/annotationstore.h"
#include "findingmarkerlayer.h"
#include "findingsstrip.h"
#include "pinnedlanes.h"
#include "rankgroupwidget.h"
#include "shortcutsheet.h"
#include "timelinecontext.h"
#include "timeruler.h"
#include "trackfinder.h"

#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <cmath>

namespace rs {

TimelineView::TimelineView(ViewState *state, QWidget *parent)
    : QScrollArea(parent)
    , m_state(state)
    , m_ctx(std::make_unique<TimelineContext>())
    , m_markers(std::make_unique<FindingMarkerLayer>(this))
{
    m_ctx->state = state;
    // Pinned lanes (and the figures exported from this window) draw the memory chart the group
    // widgets show, through the engine.
    MemoryChartRenderer::install();
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setWidgetResizable(true);
    setViewportMargins(0, TimeRuler::kHeight, 0, 0);
    viewport()->setAutoFillBackground(true);
    // The screen's colours follow the desktop's theme (Palette); figures stay on paper.
    m_ctx->colors = &Palette::screen();
    QPalette pal = viewport()->palette();
    pal.setColor(QPalette::Window, m_ctx->colors->color(Palette::Role::Base));
    viewport()->setPalette(pal);

    m_ruler = new TimeRuler(state, this);
    m_ruler->setGutterWidth(m_ctx->gutterWidth);
    m_ctx->ticks = &m_ruler->ticks();

    // The canvas paints nothing itself: the groups cover it and the viewport's white shows below
    // them, so a frame fills each pixel once less.
    m_container = new QWidget;
    m_container->installEventFilter(this); // its width is the groups'
    // Said once above the groups when nothing read has a clock: an empty axis is otherwise a puzzle.
    m_untimed = new QLabel(m_container);
    m_untimed->setText(tr("Nothing in these files carries a time stamp, so nothing can be placed on the time axis. "
                              "Their records are in the Log and Memory Summaries panels."));
    m_untimed->setWordWrap(true);
    m_untimed->setContentsMargins(16, 10, 16, 10);
    m_untimed->setStyleSheet(QStringLiteral("color: %1; background: %2; border-bottom: 1px solid %3;")
                                 .arg(m_ctx->colors->color(Palette::Role::Title).name(), m_ctx->colors->color(Palette::Role::Gutter).name(),
                                      m_ctx->colors->color(Palette::Role::Separator).name()));
    m_untimed->hide();
    setWidget(m_container);
    m_jobFindings = new FindingsStrip(this);
    m_jobFindings->setGutterWidth(m_ctx->gutterWidth);
    m_jobFindings->hide();
    m_pinned = new PinnedLanes(*m_ctx, this);
    connect(m_pinned, &PinnedLanes::heightChanged, this, &TimelineView::updateTopMargin);
    connect(m_state, &ViewState::pinnedLanesChanged, m_pinned, &PinnedLanes::rebuild);
    connect(m_state, &ViewState::memoryLaneHeightChanged, m_pinned, &PinnedLanes::rebuild);
    for (auto signal : {&ViewState::selectionChanged, &ViewState::hoveredChanged})
        connect(m_state, signal, m_pinned, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::highlightChanged, m_pinned, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::clockOffsetsChanged, m_pinned, qOverload<>(&QWidget::update));
    m_annotations = new AnnotationOverlay(this);
    placeRuler();
    connect(verticalScrollBar(), &QScrollBar::valueChanged, m_annotations, qOverload<>(&QWidget::update));
    // Group widgets follow the viewport: bound to the groups in or near it, given back far from it.
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &TimelineView::updateResidency);
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, &TimelineView::updateResidency);
    m_sticky = new StickyHeader(m_state, viewport());
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &TimelineView::placeStickyHeader);
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, &TimelineView::placeStickyHeader);

    m_gestureEnd.setSingleShot(true);
    m_gestureEnd.setInterval(350);
    connect(&m_gestureEnd, &QTimer::timeout, m_state, &ViewState::endGesture);

    // The ruler recomputes its ticks on every range, full-range and width change, so following it
    // refreshes each group exactly once per change, with the grid already up to date.
    connect(m_ruler, &TimeRuler::ticksChanged, this, [this] {
        for (RankGroupWidget *g : m_groups)
            g->viewChanged();
        m_pinned->update();
        m_annotations->update();
    });
    // The selected span's flow arrows live on the overlay.
    connect(m_state, &ViewState::selectionChanged, m_annotations, qOverload<>(&QWidget::update));
    connect(m_state, &ViewState::highlightChanged, this, [this] {
        for (RankGroupWidget *g : m_groups)
            g->highlightChanged();
    });
    connect(m_state, &ViewState::clockOffsetsChanged, this, [this] {
        for (RankGroupWidget *g : m_groups)
            g->viewChanged();
    });
    auto repaintEvent = [this](const EventRef &now, const EventRef &before) {
        for (RankGroupWidget *g : m_groups) {
            g->updateEvent(before);
            g->updateEvent(now);
        }
    };
    connect(m_state, &ViewState::selectionChanged, this, [this, repaintEvent](const EventRef &sel) {
        repaintEvent(sel, m_paintedSelection);
        m_paintedSelection = sel;
    });
    connect(m_state, &ViewState::hoveredChanged, this, [this, repaintEvent](const EventRef &hov) {
        repaintEvent(hov, m_paintedHover);
        m_paintedHover = hov;
    });
    connect(m_state, &ViewState::rankHiddenChanged, this, [this](RankId rank, bool hidden) {
        m_ctx->groups.setHidden(rank, hidden);
        restack();
    });
    // Folding a rank and the lane choices change what every group (or one rank's) stacks.
    const auto relayout = [this](RankId rank) {
        m_ctx->groups.relayout(*m_ctx, rank);
        for (RankGroupWidget *g : m_groups)
            if (rank == kNoRank || g->rank() == rank)
                g->relayout();
        restack();
    };
    connect(m_state, &ViewState::rankCollapsedChanged, this, [relayout](RankId rank, bool) { relayout(rank); });
    connect(m_state, &ViewState::hiddenLanesChanged, this, relayout);
    connect(m_state, &ViewState::memoryLaneHeightChanged, this, [relayout] { relayout(kNoRank); });
    connect(m_state, &ViewState::compactLanesChanged, this, [relayout] { relayout(kNoRank); });
    connect(m_state, &ViewState::selectedRankChanged, this, [this](RankId rank) {
        for (RankGroupWidget *g : m_groups)
            g->update();
        if (rank != kNoRank)
            ensureRankVisible(rank);
    });
}

TimelineView::~TimelineView()
{
    // Groups borrow the context; make sure they go first.
    qDeleteAll(m_groups);
    qDeleteAll(m_spare);
    m_groups.clear();
    m_spare.clear();
}

const GroupStack &TimelineView::groupStack() const
{
    return m_ctx->groups;
}

int TimelineView::canvasTop() const
{
    return m_container->y();
}

int TimelineView::viewportY(const GroupEntry &group) const
{
    return canvasTop() + group.y;
}

SessionPtr TimelineView::session() const
{
    return m_ctx->session;
}

void TimelineView::setAnnotationStore(AnnotationStore *store)
{
    m_annotations->setStore(store);
}

AnnotationStore *TimelineView::annotationStore() const
{
    return m_annotations->store();
}

bool TimelineView::hasTimedData() const
{
    return m_ctx->session && !m_ctx->dataRange().isEmpty();
}

int TimelineView::gutterWidth() const
{
    return m_ctx->gutterWidth;
}

TimeScale TimelineView::viewScale() const
{
    const int g = m_ctx->gutterWidth;
    return {m_state->visibleRange(), static_cast<double>(g), static_cast<double>(std::max(1, viewport()->width() - g))};
}

void TimelineView::setSession(SessionPtr session)
{
    while (!m_groups.empty())
        releaseWidget(m_groups.back());
    m_ctx->groups.clear();
    m_paintedSelection = {};
    m_paintedHover = {};
    m_ctx->setSession(std::move(session));
    // Timed log records and OOMs count too: a session of logs alone still has a time axis.
    const TimeRange covered = m_ctx->dataRange();
    const TimeRange full = !covered.isEmpty() ? covered : TimeRange{0, 1000000};
    m_untimed->setVisible(m_ctx->session && covered.isEmpty());
    m_state->setFullRange(full);
    m_ctx->groups.build(*m_ctx, 0);
    m_pinned->rebuild();
    restack();
    syncFindingRows();
    Q_EMIT contentChanged();
}

void TimelineView::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_ctx->analysis = std::move(analysis);
    // Untimed OOMs the analysis placed by an anchor are drawn at the placed time.
    m_ctx->evidence.build(m_ctx->session.get(), m_ctx->analysis.get());
    // The analysis' extent has the ranks aligned (and capacities known): the axis and the memory
    // scale follow it, without losing the user's zoom or selection.
    if (m_ctx->session) {
        m_ctx->setExtent(m_ctx->analysis ? m_ctx->analysis->extent : PlausibleExtent::find(*m_ctx->session, nullptr));
        if (const TimeRange covered = m_ctx->dataRange(); !covered.isEmpty())
            m_state->adjustFullRange(covered);
    }
    m_ctx->groups.analysisChanged(*m_ctx);
    for (RankGroupWidget *g : m_groups)
        g->analysisChanged();
    // Finding markers take their numbers from the analysis: without one they are callouts and need
    // no rows of their own.
    syncFindingRows();
    m_annotations->update();
    m_pinned->update();
    Q_EMIT contentChanged();
}

void TimelineView::setJobFindingsStrip(bool shown)
{
    if (shown == m_jobFindings->isVisible())
        return;
    m_jobFindings->setVisible(shown);
    updateTopMargin();
}

void TimelineView::updateTopMargin()
{
    const int strip = m_jobFindings->isVisible() ? FindingsStrip::kHeight : 0;
    setViewportMargins(0, TimeRuler::kHeight + m_pinned->stripHeight() + strip, 0, 0);
    placeRuler();
}

std::shared_ptr<const AnalysisResult> TimelineView::analysis() const
{
    return m_ctx->analysis;
}

void TimelineView::syncFindingRows()
{
    std::set<RankId> ranks;
    bool jobWide = false;
    if (const AnnotationStore *store = m_annotations->store()) {
        for (const Annotation &a : store->visibleAnnotations())
            if (m_markers->isMarker(a)) {
                if (a.rank == kNoRank)
                    jobWide = true;
                else
                    ranks.insert(a.rank);
            }
    }
    setJobFindingsStrip(jobWide);
    if (!m_ctx->groups.setFindingRows(*m_ctx, ranks))
        return;
    for (RankGroupWidget *g : m_groups)
        g->relayout();
    restack();
}

void TimelineView::restack()
{
    const int width = std::max(1, m_container->width());
    int top = 0;
    if (!m_untimed->isHidden()) {
        top = m_untimed->heightForWidth(width);
        m_untimed->setGeometry(0, 0, width, top);
    }
    m_ctx->groups.setTop(top);
    // The canvas is as tall as every group; the scroll area stretches it to the viewport's width.
    m_container->setMinimumHeight(m_ctx->groups.bottom());
    for (RankGroupWidget *g : m_groups)
        placeWidget(g);
    // Binding waits for the event loop: "collapse all" on a thousand ranks restacks a thousand times,
    // and only the last stack decides which groups are in sight.
    if (!m_residencyPending) {
        m_residencyPending = true;
        QMetaObject::invokeMethod(this, [this] { updateResidency(); }, Qt::QueuedConnection);
    }
    placeStickyHeader();
    m_annotations->update();
}

void TimelineView::placeWidget(RankGroupWidget *g)
{
    const GroupEntry *e = m_ctx->groups.find(g->rank());
    if (!e)
        return;
    g->setGeometry(0, e->y, std::max(1, m_container->width()), std::max(1, e->height()));
    g->setVisible(!e->hidden);
}

RankGroupWidget *TimelineView::bindWidget(RankId rank)
{
    RankGroupWidget *g = nullptr;
    if (!m_spare.empty()) {
        g = m_spare.back();
        m_spare.pop_back();
    } else {
        g = new RankGroupWidget(*m_ctx, kNoRank, m_container);
        g->setFocusPolicy(Qt::ClickFocus);
        g->setFocusProxy(this);
        connect(g, &RankGroupWidget::cursorMoved, this, &TimelineView::setCursorX);
        connect(g, &RankGroupWidget::verticalDragged, this,
                [this](int dy) { verticalScrollBar()->setValue(verticalScrollBar()->value() + dy); });
        connect(g, &RankGroupWidget::zoomRequested, this, [this](TimeRange r) {
            const TimeNs pad = std::max<TimeNs>(r.duration() / 10, 500);
            m_state->setVisibleRange({r.begin - pad, r.end + pad}, ViewState::Change::Jump);
        });
        m_annotations->watch(g);
    }
    m_groups.push_back(g);
    // Placed before it is bound, so its chart is built at its final width.
    const GroupEntry *e = m_ctx->groups.find(rank);
    g->setGeometry(0, e ? e->y : 0, std::max(1, m_container->width()), e ? std::max(1, e->height()) : 1);
    g->bind(rank);
    placeWidget(g);
    return g;
}

void TimelineView::releaseWidget(RankGroupWidget *g)
{
    std::erase(m_groups, g);
    g->hide();
    g->bind(kNoRank);
    // A few idle widgets are kept for the next scroll; more would only hold memory.
    if (m_spare.size() < 8)
        m_spare.push_back(g);
    else
        g->deleteLater();
}

void TimelineView::placeStickyHeader()
{
    // The group under the viewport's top edge, when its own header has scrolled out of sight and
    // enough of it is left below to be worth naming.
    const int top = verticalScrollBar()->value();
    const GroupEntry *under = m_ctx->groups.at(top);
    if (under && !(under->y < top && under->bottom() - LaneLayout::kGroupGap > top + 2 * LaneLayout::kHeaderHeight))
        under = nullptr;
    m_sticky->showGroup(m_ctx.get(), under);
}

void TimelineView::updateResidency()
{
    m_residencyPending = false;
    // Half a page above and below the viewport stay bound, so scrolling meets groups already built.
    const int page = viewport()->height();
    const int top = verticalScrollBar()->value() - page / 2;
    const int bottom = verticalScrollBar()->value() + page + page / 2;
    const GroupStack &stack = m_ctx->groups;
    const auto [first, last] = stack.overlapping(top, bottom);
    auto wanted = [&](RankId rank) {
        const std::ptrdiff_t i = stack.indexOf(rank);
        return i >= static_cast<std::ptrdiff_t>(first) && i < static_cast<std::ptrdiff_t>(last) && !stack.entries()[static_cast<std::size_t>(i)].hidden;
    };
    // The widget under a drag keeps its rank until the button is released.
    const QWidget *grabber = QWidget::mouseGrabber();
    for (std::size_t i = m_groups.size(); i-- > 0;)
        if (RankGroupWidget *g = m_groups[i]; g != grabber && !wanted(g->rank()))
            releaseWidget(g);
    for (std::size_t i = first; i < last; ++i) {
        const GroupEntry &e = stack.entries()[i];
        if (!e.hidden && !residentGroup(e.rank))
            bindWidget(e.rank);
    }
}

RankGroupWidget *TimelineView::residentGroup(RankId rank) const
{
    for (RankGroupWidget *g : m_groups)
        if (g->rank() == rank)
            return g;
    return nullptr;
}

RankGroupWidget *TimelineView::rankGroup(RankId rank)
{
    if (RankGroupWidget *g = residentGroup(rank))
        return g;
    return m_ctx->groups.find(rank) ? bindWidget(rank) : nullptr;
}

std::optional<TimeRange> TimelineView::eventRange(const EventRef &event) const
{
    const SessionPtr &s = m_ctx->session;
    if (!s || event.isNone())
        return std::nullopt;
    auto at = [this](TimeNs t, RankId rank) -> std::optional<TimeRange> {
        if (t == kNoTime)
            return std::nullopt;
        const TimeNs off = rank >= 0 ? m_state->clockOffset(rank) : 0;
        return TimeRange{t + off, t + off};
    };
    if (event.kind == EventRef::Kind::LogRecord && event.index < s->logs().records.size()
        && s->logs().records[event.index].time == kNoTime)
        if (const Placement *p = findLogPlacement(*s, m_ctx->analysis.get(), event.index))
            return at(placedDataTime(*m_ctx->analysis, *p), p->rank);
    if (event.kind == EventRef::Kind::LogRecord)
        return event.index < s->logs().records.size() ? at(s->logs().records[event.index].time, s->logs().records[event.index].rank)
                                                      : std::nullopt;
    if (event.kind == EventRef::Kind::Oom && event.index < s->ooms().size()) {
        const OomEvent &o = s->ooms()[event.index];
        if (o.time == kNoTime)
            if (const Placement *p = findPlacement(m_ctx->analysis.get(), Placement::Kind::Oom, event.index))
                return at(placedDataTime(*m_ctx->analysis, *p), o.rank);
        return at(o.time, o.rank);
    }
    if (event.kind == EventRef::Kind::Oom)
        return std::nullopt;
    if (event.track >= s->tracks().size())
        return std::nullopt;
    const Track &t = s->tracks()[event.track];
    const TimeNs off = m_state->clockOffset(t.rank);
    if (event.kind == EventRef::Kind::Span && event.index < t.spans.size())
        return TimeRange{t.spans[event.index].start + off, t.spans[event.index].end() + off};
    if (event.kind == EventRef::Kind::Instant && event.index < t.instants.size())
        return TimeRange{t.instants[event.index].time + off, t.instants[event.index].time + off};
    return std::nullopt;
}

void TimelineView::ensureTrackVisible(TrackId track)
{
    const SessionPtr &s = m_ctx->session;
    if (!s || track >= s->tracks().size())
        return;
    const RankId rank = s->tracks()[track].rank;
    m_state->setRankHidden(rank, false);
    m_state->setRankCollapsed(rank, false);
    const GroupEntry *g = m_ctx->groups.find(rank);
    const Lane *lane = g ? g->layout.laneForTrack(track) : nullptr;
    if (!lane)
        return;
    ensureLaneVisible(g->y + lane->top, lane->height);
}

void TimelineView::ensureLaneVisible(int laneTop, int laneHeight)
{
    // The rank's header stays pinned at the viewport's top while its lanes scroll under it: the
    // lane must clear it, not just the viewport's edge.
    const int covered = std::max(m_sticky->height(), m_sticky->sizeHint().height());
    const int view = viewport()->height();
    const int room = view - covered;
    QScrollBar *bar = verticalScrollBar();
    const int value = bar->value();
    const bool shown = laneTop >= value + covered && laneTop + laneHeight <= value + view;
    if (shown)
        return;
    const int target = laneHeight + 8 <= room ? laneTop - covered - (room - laneHeight) / 2 : laneTop - covered - 4;
    bar->setValue(std::clamp(target, bar->minimum(), bar->maximum()));
}

void TimelineView::ensureRankVisible(RankId rank)
{
    if (!m_ctx->groups.find(rank))
        return;
    m_state->setRankHidden(rank, false);
    verticalScrollBar()->setValue(std::min(m_ctx->groups.find(rank)->y, verticalScrollBar()->maximum()));
}

void TimelineView::ensureEventVisible(const EventRef &event)
{
    const SessionPtr &s = m_ctx->session;
    if (!s)
        return;
    if (event.onTrack()) {
        ensureTrackVisible(event.track);
        return;
    }
    RankId rank = kNoRank;
    if (event.kind == EventRef::Kind::LogRecord && event.index < s->logs().records.size())
        rank = s->logs().records[event.index].rank;
    else if (event.kind == EventRef::Kind::Oom && event.index < s->ooms().size())
        rank = s->ooms()[event.index].rank;
    if (rank < 0 || !m_ctx->groups.find(rank))
        return;
    m_state->setRankHidden(rank, false);
    m_state->setRankCollapsed(rank, false);
    const GroupEntry *g = m_ctx->groups.find(rank);
    if (g->layout.lanes().empty())
        return;
    const Lane *lane = event.kind == EventRef::Kind::LogRecord ? g->layout.logLane() : g->layout.memoryLane();
    if (!lane)
        lane = &g->layout.lanes().front();
    ensureVisible(0, g->y + lane->top + lane->height / 2, 0, std::min(lane->height / 2 + 24, viewport()->height() / 2));
}

void TimelineView::placeRuler()
{
    const QRect vp = viewport()->geometry();
    const int strip = m_jobFindings->isVisible() ? FindingsStrip::kHeight : 0;
    const int pinned = m_pinned->stripHeight();
    m_ruler->setGeometry(vp.x(), vp.y() - strip - pinned - TimeRuler::kHeight, vp.width(), TimeRuler::kHeight);
    m_pinned->setGeometry(vp.x(), vp.y() - strip - pinned, vp.width(), pinned);
    m_jobFindings->setGeometry(vp.x(), vp.y() - strip, vp.width(), strip);
    // The overlay covers the strip too, so a job-wide badge there is drawn (and dragged) like any other.
    m_annotations->setGeometry(vp.adjusted(0, -strip, 0, 0));
    m_annotations->raise();
}

void TimelineView::resizeEvent(QResizeEvent *event)
{
    QScrollArea::resizeEvent(event);
    placeRuler();
    updateResidency();
    placeStickyHeader();
}

bool TimelineView::eventFilter(QObject *watched, QEvent *event)
{
    // The canvas follows the viewport's width (widgetResizable): the groups and the note do too.
    if (watched == m_container && event->type() == QEvent::Resize
        && static_cast<QResizeEvent *>(event)->size().width() != static_cast<QResizeEvent *>(event)->oldSize().width())
        restack();
    return QScrollArea::eventFilter(watched, event);
}

void TimelineView::changeEvent(QEvent *event)
{
    QScrollArea::changeEvent(event);
    // The desktop switched between light and dark: every painter reads the new set.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) {
        if (m_ctx->colors != &Palette::screen()) {
            m_ctx->colors = &Palette::screen();
            QPalette pal = viewport()->palette();
            pal.setColor(QPalette::Window, m_ctx->colors->color(Palette::Role::Base));
            viewport()->setPalette(pal);
            for (QWidget *w : findChildren<QWidget *>()) {
                if (auto *group = qobject_cast<RankGroupWidget *>(w))
                    group->colorsChanged();
                w->update();
            }
            Q_EMIT contentChanged();
        }
    }
}

bool TimelineView::viewportEvent(QEvent *event)
{
    // The viewport's geometry also changes when the scroll bar appears; keep the ruler aligned.
    if (event->type() == QEvent::Resize || event->type() == QEvent::Move)
        placeRuler();
    return QScrollArea::viewportEvent(event);
}

void TimelineView::setCursorX(int x)
{
    m_cursorX = x;
    m_ruler->setCursorX(x);
}

TimeNs TimelineView::anchorTime(std::optional<int> x) const
{
    const TimeScale sc = viewScale();
    if (x && *x >= m_ctx->gutterWidth)
        return sc.toTime(*x);
    const TimeRange r = m_state->visibleRange();
    return r.begin + r.duration() / 2;
}

void TimelineView::zoomAround(double factor, std::optional<int> x)
{
    m_state->zoomBy(factor, anchorTime(x), ViewState::Change::Continuous);
}

void TimelineView::panByFraction(double fraction)
{
    const auto delta = static_cast<TimeNs>(std::llround(static_cast<double>(m_state->visibleRange().duration()) * fraction));
    m_state->panBy(delta, ViewState::Change::Continuous);
}

void TimelineView::zoomIn()
{
    m_state->zoomBy(kZoomStep, anchorTime(std::nullopt), ViewState::Change::Jump);
}

void TimelineView::zoomOut()
{
    m_state->zoomBy(1.0 / kZoomStep, anchorTime(std::nullopt), ViewState::Change::Jump);
}

void TimelineView::resetZoom()
{
    m_state->resetZoom();
}

void TimelineView::goBack()
{
    m_state->goBack();
}

void TimelineView::goForward()
{
    m_state->goForward();
}

void TimelineView::focusSelection()
{
    const auto r = eventRange(m_state->selection());
    if (!r)
        return;
    // Room on both sides so the event's neighbours give context; instants get a fixed 10 µs.
    const TimeNs pad = r->duration() > 0 ? std::max<TimeNs>(r->duration() / 6, 50) : 5000;
    m_state->setVisibleRange({r->begin - pad, r->end + pad}, ViewState::Change::Jump);
    ensureEventVisible(m_state->selection());
}

void TimelineView::stepSelection(int direction)
{
    const EventRef sel = m_state->selection();
    const SessionPtr &s = m_ctx->session;
    if (!s || sel.isNone())
        return;
    if (sel.kind == EventRef::Kind::LogRecord) {
        // Through the rank's records in time order, as they sit on its log lane.
        if (sel.index >= s->logs().records.size())
            return;
        const RankId rank = s->logs().records[sel.index].rank;
        const auto &logs = m_ctx->evidence.logs(rank);
        const std::ptrdiff_t at = m_ctx->evidence.positionOf(rank, sel.index);
        const std::ptrdiff_t next = at + direction;
        if (at < 0 || next < 0 || next >= static_cast<std::ptrdiff_t>(logs.size()))
            return;
        moveSelectionTo(EventRef::logRecord(logs[static_cast<std::size_t>(next)].index));
        return;
    }
    if (!sel.onTrack() || sel.track >= s->tracks().size())
        return;
    const Track &t = s->tracks()[sel.track];
    EventRef next = sel;
    if (sel.kind == EventRef::Kind::Span) {
        const std::uint16_t depth = t.spans[sel.index].depth;
        const std::uint32_t lo = t.levelBegin[depth];
        const std::uint32_t hi = t.levelBegin[depth + 1];
        const auto i = static_cast<std::int64_t>(sel.index) + direction;
        if (i < lo || i >= hi)
            return;
        next.index = static_cast<std::uint32_t>(i);
    } else {
        const auto i = static_cast<std::int64_t>(sel.index) + direction;
        if (i < 0 || i >= static_cast<std::int64_t>(t.instants.size()))
            return;
        next.index = static_cast<std::uint32_t>(i);
    }
    moveSelectionTo(next);
}

void TimelineView::moveSelectionTo(const EventRef &next)
{
    m_state->setSelection(next);
    const auto r = eventRange(next);
    const TimeRange view = m_state->visibleRange();
    if (r && !(r->begin >= view.begin && r->end <= view.end)) {
        // Keep the zoom; bring the event to the middle.
        const TimeNs mid = r->begin + r->duration() / 2;
        m_state->setVisibleRange({mid - view.duration() / 2, mid - view.duration() / 2 + view.duration()},
                                 ViewState::Change::Jump);
    }
}

void TimelineView::selectNextEvent()
{
    stepSelection(+1);
}

void TimelineView::selectPreviousEvent()
{
    stepSelection(-1);
}

void TimelineView::expandAll()
{
    std::vector<RankId> ranks;
    for (const GroupEntry &g : m_ctx->groups.entries())
        ranks.push_back(g.rank);
    m_state->setRanksCollapsed(ranks, false);
}

void TimelineView::collapseAll()
{
    std::vector<RankId> ranks;
    for (const GroupEntry &g : m_ctx->groups.entries())
        ranks.push_back(g.rank);
    m_state->setRanksCollapsed(ranks, true);
}

void TimelineView::showShortcutSheet()
{
    ShortcutSheet sheet(this);
    sheet.exec();
}

void TimelineView::showTrackFinder()
{
    if (!m_finder)
        m_finder = new TrackFinder(this);
    m_finder->open(m_ctx->session.get(), &m_ctx->evidence);
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    const std::optional<int> mouse = m_cursorX >= 0 ? std::optional<int>(m_cursorX) : std::nullopt;
    const bool alt = event->modifiers() & Qt::AltModifier;
    // Delete/Backspace, Return and Escape act on the selected annotation first, when there is one.
    if (m_annotations->handleKey(event))
        return;
    // Navigation letters are plain keys: Ctrl+S, Ctrl+W, Ctrl+A, Ctrl+D belong to the window (Save,
    // Close, ...) and reach it, even when its action cannot take them now.
    const bool plain = !(event->modifiers() & (Qt::ControlModifier | Qt::MetaModifier | Qt::AltModifier));
    switch (plain ? event->key() : 0) {
    case Qt::Key_W: zoomAround(kZoomStep, mouse); return;
    case Qt::Key_S: zoomAround(1.0 / kZoomStep, mouse); return;
    case Qt::Key_A: panByFraction(-kPanStep); return;
    case Qt::Key_D: panByFraction(kPanStep); return;
    case Qt::Key_F: focusSelection(); return;
    case Qt::Key_Period: selectNextEvent(); return;
    case Qt::Key_Comma: selectPreviousEvent(); return;
    default: break;
    }
    switch (event->key()) {
    case Qt::Key_Left:
        if (alt)
            m_state->goBack();
        else
            panByFraction(-kPanStep);
        return;
    case Qt::Key_Right:
        if (alt)
            m_state->goForward();
        else
            panByFraction(kPanStep);
        return;
    case Qt::Key_Backspace: m_state->goBack(); return;
    case Qt::Key_Escape: m_state->clearSelection(); return;
    case Qt::Key_Question: showShortcutSheet(); return;
    case Qt::Key_P:
        if (event->modifiers() & Qt::ControlModifier) {
            showTrackFinder();
            return;
        }
        break;
    default: break;
    }
    QScrollArea::keyPressEvent(event);
}

void TimelineView::keyReleaseEvent(QKeyEvent *event)
{
    // Holding a key auto-repeats presses; one held key is one history step.
    if (!event->isAutoRepeat()) {
        switch (event->key()) {
        case Qt::Key_W:
        case Qt::Key_S:
        case Qt::Key_A:
        case Qt::Key_D:
        case Qt::Key_Left:
        case Qt::Key_Right:
            m_state->endGesture();
            return;
        default: break;
        }
    }
    QScrollArea::keyReleaseEvent(event);
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPoint angle = event->angleDelta();
    const Qt::KeyboardModifiers mods = event->modifiers();
    const int x = static_cast<int>(event->position().x());
    if (mods & Qt::ControlModifier) {
        const double notches = angle.y() / 120.0;
        if (notches != 0)
            zoomAround(std::pow(kZoomStep, notches), x);
    } else if ((mods & Qt::ShiftModifier) || angle.x() != 0) {
        // Shift+wheel, or a horizontal wheel/touchpad swipe: pan. Some platforms already turn
        // Shift+wheel into a horizontal delta.
        const int d = angle.y() != 0 && (mods & Qt::ShiftModifier) ? angle.y() : angle.x();
        panByFraction(-d / 120.0 * kPanStep);
    } else {
        QScrollArea::wheelEvent(event);
        return;
    }
    m_gestureEnd.start();
    event->accept();
}

} // namespace rs
