#include "annotationoverlay.h"
#include "charts/memoryplot.h"

#include "findingmarkerlayer.h"

#include "lanekind.h"

#include "annotations/annotationdialog.h"
#include "annotations/annotationstore.h"
#include "findingsstrip.h"
#include "flowarrows.h"
#include "palette.h"
#include "rankgroupwidget.h"
#include "timelineview.h"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

namespace rs {

namespace {

constexpr int kDragThreshold = 4;   // pixels before a press on an annotation moves it
constexpr int kMinRangePx = 3;      // a Shift+drag narrower than this is a click, not a range

} // namespace

AnnotationOverlay::AnnotationOverlay(TimelineView *view)
    : QWidget(view)
    , m_view(view)
{
    // A picture only: the rank groups and the job-wide strip underneath get the mouse, and this
    // widget listens in on them.
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setFocusPolicy(Qt::NoFocus);
    if (FindingsStrip *strip = view->jobFindingsStrip())
        strip->installEventFilter(this);
}

void AnnotationOverlay::setStore(AnnotationStore *store)
{
    if (m_store == store)
        return;
    if (m_store)
        disconnect(m_store, nullptr, this, nullptr);
    m_store = store;
    setMode(Mode::Idle);
    m_hovered = 0;
    if (store) {
        connect(store, &AnnotationStore::changed, this, [this] {
            // Not while a badge is dragged: a lane coming or going would move the rows under the mouse.
            if (m_mode != Mode::Drag)
                m_view->syncFindingRows();
            update();
        });
        connect(store, &AnnotationStore::selectionChanged, this, qOverload<>(&QWidget::update));
    }
    m_view->syncFindingRows();
    update();
}

void AnnotationOverlay::watch(RankGroupWidget *group)
{
    group->installEventFilter(this);
}

QRectF AnnotationOverlay::viewportArea() const
{
    return QRectF(QPointF(0, 0), QSizeF(m_view->viewport()->size()));
}

std::optional<QRectF> AnnotationOverlay::jobStripArea() const
{
    const FindingsStrip *strip = m_view->jobFindingsStrip();
    if (!strip || strip->isHidden())
        return std::nullopt;
    return QRectF(QPointF(toViewport(strip, QPointF(0, 0))), QSizeF(strip->size()));
}

QPointF AnnotationOverlay::toViewport(const QWidget *source, QPointF pos) const
{
    const QPoint origin = m_view->viewport()->mapFrom(m_view, source->mapTo(m_view, QPoint(0, 0)));
    return pos + QPointF(origin);
}

std::pair<std::uint64_t, AnnotationPainter::Part> AnnotationOverlay::hitAt(const QPointF &pos) const
{
    std::vector<Annotation> shown = m_store ? m_store->visibleAnnotations() : std::vector<Annotation>();
    // Above the viewport is the job-wide strip: only its badges are there (a rank's row scrolled
    // up under it is hidden, as it is when painted).
    if (pos.y() < 0)
        std::erase_if(shown, [this](const Annotation &a) { return a.rank != kNoRank || !m_view->findingMarkers().isMarker(a); });
    return AnnotationPainter::hitTest(pos, shown, geometryForPainting(), style());
}

AnnotationGeometry AnnotationOverlay::geometryForPainting() const
{
    AnnotationGeometry g;
    const TimeScale scale = m_view->viewScale();
    g.x = [scale](TimeNs t) { return scale.toX(t); };
    QWidget *viewport = m_view->viewport();
    const TimelineView *view = m_view;
    // Groups are read from the view's stack, so a band or arrow reaching a rank scrolled far out of
    // sight (which has no widget) still ends at the right row.
    const double width = viewport->width();
    g.rankBand = [view, width](RankId rank) -> std::optional<QRectF> {
        const GroupEntry *group = view->groupStack().find(rank);
        if (!group || group->hidden || group->layout.lanes().empty())
            return std::nullopt;
        // The lanes under the header (and under the Findings lane), where the rank's events are:
        // the header keeps its text, and callouts and range labels stay off the badges' row.
        const Lane &head = group->layout.lanes().front();
        const Lane *findings = group->layout.findingsLane();
        const int top = findings ? findings->top + findings->height : head.top + head.height;
        const int bottom = group->layout.height() - LaneLayout::kGroupGap;
        const int origin = view->viewportY(*group);
        const double left = view->gutterWidth();
        return QRectF(left, origin + top, width - left, std::max(1, bottom - top));
    };
    g.area = QRectF(m_view->gutterWidth(), 0, std::max(0, viewport->width() - m_view->gutterWidth()), viewport->height());
    // Finding markers sit in the rows the timeline keeps for them (FindingMarkerLayer::rows).
    g.markerRow = m_view->findingMarkers().rows(width, viewport->height(), jobStripArea());
    // The memory charts' OOM and spike labels stay readable: callouts are placed below them.
    for (const RankGroupWidget *group : m_view->rankGroups()) {
        const MemoryPlot *plot = group->isVisible() ? group->memoryPlot() : nullptr;
        if (!plot || !plot->isVisible())
            continue;
        const QPointF at = toViewport(plot, QPointF(0, 0));
        for (const ChartLabel &label : plot->labels())
            g.keepClear.push_back(label.rect.translated(at));
    }
    return g;
}

AnnotationStyle AnnotationOverlay::style() const
{
    return m_view->findingMarkers().style();
}

QString AnnotationOverlay::toolTipFor(std::uint64_t id) const
{
    const Annotation *a = m_store ? m_store->find(id) : nullptr;
    return a ? m_view->findingMarkers().toolTip(*a) : QString();
}

RankId AnnotationOverlay::rankAt(double y) const
{
    const int canvasY = static_cast<int>(std::floor(y)) - m_view->canvasTop();
    const GroupEntry *group = m_view->groupStack().at(canvasY);
    return group ? group->rank : kNoRank;
}

TimeNs AnnotationOverlay::timeAt(double x) const
{
    return m_view->viewScale().toTime(x);
}

std::optional<Annotation> AnnotationOverlay::preview() const
{
    if (m_mode == Mode::CreateRange && std::abs(m_mousePos.x() - m_pressPos.x()) >= kMinRangePx) {
        Annotation a;
        a.kind = Annotation::Kind::Range;
        const RankId here = rankAt(m_mousePos.y());
        a.rank = here == m_startRank ? m_startRank : kNoRank;
        a.time = std::min(m_startTime, timeAt(m_mousePos.x()));
        a.endTime = std::max(m_startTime, timeAt(m_mousePos.x()));
        return a;
    }
    if (m_mode == Mode::PlaceArrow) {
        Annotation a;
        a.kind = Annotation::Kind::Arrow;
        a.rank = m_startRank;
        a.time = m_startTime;
        const RankId here = rankAt(m_mousePos.y());
        a.endRank = here != kNoRank ? here : m_startRank;
        a.endTime = timeAt(m_mousePos.x());
        QColor c = a.effectiveColor();
        c.setAlphaF(0.6f); // not placed yet
        a.color = c;
        return a;
    }
    return std::nullopt;
}

void AnnotationOverlay::paintEvent(QPaintEvent *)
{
    // The selected span's flows first: notes and arrows of people stay on top of them.
    const std::vector<FlowArrows::Arrow> flows = FlowArrows::of(*m_view, m_view->viewState()->selection());
    std::vector<Annotation> shown = m_store ? m_store->visibleAnnotations() : std::vector<Annotation>();
    if (const auto p = preview())
        shown.push_back(*p);
    const bool hint = !placementHint().isEmpty();
    if (shown.empty() && flows.empty() && !hint)
        return;
    QPainter painter(this);
    // Everything is placed in viewport coordinates; this widget starts at the job-wide strip's top.
    painter.translate(QPointF(toViewport(this, QPointF(0, 0))) * -1);
    painter.setClipRect(QRectF(m_view->gutterWidth(), 0, std::max(0, m_view->viewport()->width() - m_view->gutterWidth()),
                               m_view->viewport()->height()));
    FlowArrows::paint(painter, flows, Palette::screen().color(Palette::Role::Outline));
    if (!shown.empty()) {
        const AnnotationGeometry geometry = geometryForPainting();
        const AnnotationStyle look = style();
        painter.setClipRect(viewportArea());
        AnnotationPainter::paint(painter, shown, geometry, m_store->selectedId(), m_hovered, look);
        // The strip gets the job-wide badges only: a rank's row scrolled up behind it stays hidden.
        if (const std::optional<QRectF> strip = jobStripArea()) {
            std::erase_if(shown, [this](const Annotation &a) { return a.rank != kNoRank || !m_view->findingMarkers().isMarker(a); });
            painter.setClipRect(*strip);
            AnnotationPainter::paint(painter, shown, geometry, m_store->selectedId(), m_hovered, look);
        }
    }
    if (hint)
        paintHint(painter);
}

void AnnotationOverlay::setHovered(std::uint64_t id)
{
    if (id == m_hovered)
        return;
    m_hovered = id;
    update();
}

void AnnotationOverlay::updateCursor(QWidget *group, AnnotationPainter::Part part)
{
    if (isPlacingArrow() || m_mode == Mode::CreateRange) {
        group->setCursor(Qt::CrossCursor);
        return;
    }
    switch (part) {
    case AnnotationPainter::Part::Body: group->setCursor(m_mode == Mode::Drag ? Qt::ClosedHandCursor : Qt::OpenHandCursor); break;
    case AnnotationPainter::Part::Start:
    case AnnotationPainter::Part::End: {
        const Annotation *a = m_store ? m_store->find(m_mode == Mode::Drag ? m_dragOrigin.id : m_hovered) : nullptr;
        group->setCursor(a && a->kind == Annotation::Kind::Arrow ? Qt::SizeAllCursor : Qt::SizeHorCursor);
        break;
    }
    case AnnotationPainter::Part::None: group->unsetCursor(); break;
    }
}

bool AnnotationOverlay::eventFilter(QObject *watched, QEvent *event)
{
    QWidget *group = qobject_cast<RankGroupWidget *>(watched);
    if (!group)
        group = qobject_cast<FindingsStrip *>(watched);
    if (!group)
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::MouseButtonPress: return m_store && mousePress(group, static_cast<QMouseEvent *>(event));
    case QEvent::MouseMove: return m_store && mouseMove(group, static_cast<QMouseEvent *>(event));
    case QEvent::MouseButtonRelease: return m_store && mouseRelease(static_cast<QMouseEvent *>(event));
    case QEvent::MouseButtonDblClick: return m_store && mouseDoubleClick(group, static_cast<QMouseEvent *>(event));
    case QEvent::ContextMenu: return m_store && contextMenu(group, static_cast<QContextMenuEvent *>(event));
    case QEvent::Leave:
        if (m_mode == Mode::Idle)
            setHovered(0);
        break;
    case QEvent::Move:
    case QEvent::Resize:
    case QEvent::Show:
    case QEvent::Hide:
        update(); // a group moved: bands and arrows crossing it move with it
        break;
    default: break;
    }
    return QWidget::eventFilter(watched, event);
}

bool AnnotationOverlay::mousePress(QWidget *group, QMouseEvent *event)
{
    const QPointF pos = toViewport(group, event->position());
    m_pressPos = m_mousePos = pos;
    const bool inData = pos.x() >= m_view->gutterWidth();
    if (m_mode == Mode::PickArrowTail) {
        if (event->button() != Qt::LeftButton)
            return false; // the context menu that follows cancels
        const RankId here = rankAt(pos.y());
        if (inData && here != kNoRank) {
            m_startRank = here;
            m_startTime = timeAt(pos.x());
            setMode(Mode::PlaceArrow);
        }
        m_swallowRelease = true;
        updateCursor(group, AnnotationPainter::Part::None);
        update();
        return true;
    }
    if (m_mode == Mode::PlaceArrow) {
        if (event->button() != Qt::LeftButton)
            return false; // the context menu that follows cancels
        if (inData) {
            Annotation a;
            a.kind = Annotation::Kind::Arrow;
            a.rank = m_startRank;
            a.time = m_startTime;
            const RankId here = rankAt(pos.y());
            a.endRank = here != kNoRank ? here : m_startRank;
            a.endTime = timeAt(pos.x());
            m_store->setSelectedId(m_store->add(a));
        }
        setMode(Mode::Idle);
        m_swallowRelease = true;
        group->unsetCursor();
        update();
        return true;
    }
    if (event->button() != Qt::LeftButton)
        return false;
    const auto [id, part] = hitAt(pos);
    if (id != 0) {
        m_store->setSelectedId(id);
        m_dragOrigin = *m_store->find(id);
        m_dragPart = part;
        setMode(Mode::Drag);
        m_moved = false;
        m_swallowRelease = true;
        QToolTip::hideText();
        return true;
    }
    m_store->setSelectedId(0);
    if ((event->modifiers() & Qt::ShiftModifier) && inData) {
        setMode(Mode::CreateRange);
        m_startRank = rankAt(pos.y());
        m_startTime = timeAt(pos.x());
        m_swallowRelease = true;
        updateCursor(group, AnnotationPainter::Part::None);
        return true;
    }
    return false; // the group selects or pans
}

bool AnnotationOverlay::mouseMove(QWidget *group, QMouseEvent *event)
{
    const QPointF pos = toViewport(group, event->position());
    m_mousePos = pos;
    switch (m_mode) {
    case Mode::PickArrowTail:
    case Mode::PlaceArrow:
        // The rubber arrow follows; the group still hovers and moves the ruler's cursor.
        updateCursor(group, AnnotationPainter::Part::None);
        update();
        return false;
    case Mode::CreateRange:
        update();
        return true;
    case Mode::Drag: {
        if (!m_moved && (pos - m_pressPos).manhattanLength() < kDragThreshold)
            return true;
        m_moved = true;
        updateCursor(group, m_dragPart);
        const double npp = m_view->viewScale().nsPerPixel();
        const auto dt = static_cast<TimeNs>(std::llround((pos.x() - m_pressPos.x()) * npp));
        const RankId here = rankAt(pos.y());
        Annotation a = m_dragOrigin;
        switch (m_dragPart) {
        case AnnotationPainter::Part::Body:
            a.time += dt;
            a.endTime += dt;
            // A note follows the mouse onto another rank; job-wide ones stay job-wide.
            if (a.kind == Annotation::Kind::Note && a.rank != kNoRank && here != kNoRank)
                a.rank = a.endRank = here;
            break;
        case AnnotationPainter::Part::Start:
            a.time += dt;
            if (a.kind == Annotation::Kind::Arrow && a.rank != kNoRank && here != kNoRank)
                a.rank = here;
            break;
        case AnnotationPainter::Part::End:
            a.endTime += dt;
            if (a.kind == Annotation::Kind::Arrow && a.endRank != kNoRank && here != kNoRank)
                a.endRank = here;
            break;
        case AnnotationPainter::Part::None: break;
        }
        m_store->move(a);
        return true;
    }
    case Mode::Idle: break;
    }
    if (event->buttons() != Qt::NoButton)
        return false; // the group's own pan drag
    const auto [id, part] = hitAt(pos);
    if (id != m_hovered) {
        // A badge says only a number: the tooltip names the finding.
        const QString tip = toolTipFor(id);
        if (!tip.isEmpty())
            QToolTip::showText(event->globalPosition().toPoint(), tip, group);
        else if (!toolTipFor(m_hovered).isEmpty())
            QToolTip::hideText();
    }
    setHovered(id);
    updateCursor(group, part);
    return false;
}

bool AnnotationOverlay::mouseRelease(QMouseEvent *event)
{
    if (!m_swallowRelease)
        return false;
    if (event->buttons() != Qt::NoButton)
        return true;
    m_swallowRelease = false;
    if (isPlacingArrow())
        return true; // the click that put the tail: the head's click is still to come
    if (m_mode == Mode::Drag) {
        m_store->endMove();
        // A click (no drag) on a finding's marker selects the finding, as a click in the panel does.
        if (const int index = m_view->findingMarkers().findingOf(m_dragOrigin).second; !m_moved && index >= 0) {
            setMode(Mode::Idle);
            m_view->viewState()->setSelectedFinding(index);
        }
    } else if (m_mode == Mode::CreateRange) {
        const std::optional<Annotation> range = preview();
        setMode(Mode::Idle);
        if (range)
            m_store->setSelectedId(m_store->add(*range));
    }
    setMode(Mode::Idle);
    m_view->syncFindingRows(); // held back while dragging: a badge moved onto another rank moves its row
    update();
    return true;
}

bool AnnotationOverlay::mouseDoubleClick(QWidget *group, QMouseEvent *event)
{
    const QPointF pos = toViewport(group, event->position());
    const auto [id, part] = hitAt(pos);
    if (id == 0 || event->button() != Qt::LeftButton)
        return false;
    setMode(Mode::Idle);
    m_swallowRelease = true;
    editInteractive(id);
    return true;
}

bool AnnotationOverlay::contextMenu(QWidget *group, QContextMenuEvent *event)
{
    const QPointF pos = toViewport(group, QPointF(event->pos()));
    if (pos.x() < m_view->gutterWidth())
        return false;
    if (isPlacingArrow()) {
        setMode(Mode::Idle);
        update();
        return true;
    }
    // The job-wide strip belongs to no rank: only job-wide things are offered there.
    const auto *rankGroup = qobject_cast<RankGroupWidget *>(group);
    const RankId rank = rankGroup ? rankGroup->rank() : kNoRank;
    const TimeNs time = timeAt(pos.x());
    const auto [id, part] = hitAt(pos);
    QMenu menu(this);
    if (id != 0) {
        m_store->setSelectedId(id);
        menu.addAction(tr("Edit…"), this, [this, id = id] { editInteractive(id); });
        menu.addAction(tr("Delete"), this, [this, id = id] { m_store->remove(id); });
        menu.addSeparator();
    }
    if (rank != kNoRank)
        menu.addAction(tr("Add note here…"), this, [this, rank, time] { addNoteInteractive(rank, time); });
    menu.addAction(tr("Add job-wide note here…"), this, [this, time] { addNoteInteractive(kNoRank, time); });
    if (rank != kNoRank)
        menu.addAction(tr("Add arrow from here"), this, [this, rank, time] { beginArrow(rank, time); });
    const TimeRange visible = m_view->viewState()->visibleRange();
    if (rank != kNoRank)
        menu.addAction(tr("Mark visible range on rank %1").arg(rank), this, [this, rank, visible] {
        Annotation a;
        a.kind = Annotation::Kind::Range;
        a.rank = rank;
        a.time = visible.begin;
        a.endTime = visible.end;
        m_store->setSelectedId(m_store->add(a));
    });
    if (const auto sel = m_view->eventRange(m_view->viewState()->selection()); sel && sel->duration() > 0) {
        menu.addAction(tr("Mark the selected event's span"), this, [this, rank, r = *sel] {
            Annotation a;
            a.kind = Annotation::Kind::Range;
            a.rank = rank;
            a.time = r.begin;
            a.endTime = r.end;
            m_store->setSelectedId(m_store->add(a));
        });
    }
    menu.addSeparator();
    QAction *showFindings = menu.addAction(tr("Show finding annotations"));
    showFindings->setCheckable(true);
    showFindings->setChecked(m_store->findingAnnotationsVisible());
    connect(showFindings, &QAction::toggled, m_store, &AnnotationStore::setFindingAnnotationsVisible);
    menu.exec(event->globalPos());
    return true;
}

bool AnnotationOverlay::handleKey(QKeyEvent *event)
{
    if (!m_store)
        return false;
    const std::uint64_t selected = m_store->selectedId();
    switch (event->key()) {
    case Qt::Key_Escape:
        if (isPlacingArrow() || m_mode == Mode::CreateRange) {
            setMode(Mode::Idle);
            m_swallowRelease = false;
            update();
            return true;
        }
        m_store->setSelectedId(0);
        return false; // the view clears its event selection too
    case Qt::Key_Delete:
    case Qt::Key_Backspace: return selected != 0 && m_store->remove(selected);
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (selected == 0)
            return false;
        editInteractive(selected);
        return true;
    default: return false;
    }
}

std::uint64_t AnnotationOverlay::addNoteInteractive(RankId rank, TimeNs time)
{
    if (!m_store)
        return 0;
    Annotation a;
    a.kind = Annotation::Kind::Note;
    a.rank = a.endRank = rank;
    a.time = a.endTime = time;
    if (!AnnotationDialog::edit(this, a))
        return 0;
    const std::uint64_t id = m_store->add(a);
    m_store->setSelectedId(id);
    return id;
}

void AnnotationOverlay::beginArrowAnywhere()
{
    setMode(Mode::PickArrowTail);
    update();
}

QString AnnotationOverlay::placementHint() const
{
    switch (m_mode) {
    case Mode::PickArrowTail: return tr("Click where the arrow starts, on any rank · Esc cancels");
    case Mode::PlaceArrow: return tr("Arrow from rank %1: click where it ends, on any rank · Esc cancels").arg(m_startRank);
    case Mode::CreateRange: return tr("Drag to the range's other end");
    default: return {};
    }
}

void AnnotationOverlay::setMode(Mode mode)
{
    const QString before = placementHint();
    m_mode = mode;
    const QString after = placementHint();
    if (after != before)
        Q_EMIT placementHintChanged(after);
}

void AnnotationOverlay::paintHint(QPainter &painter) const
{
    // A label beside the pointer, turned to stay inside the data area: the user is looking there.
    const QString text = placementHint();
    painter.save();
    painter.setClipRect(viewportArea());
    QFont font = painter.font();
    font.setPointSizeF(font.pointSizeF() * 0.95);
    painter.setFont(font);
    const QFontMetricsF fm(font);
    const QSizeF size(fm.horizontalAdvance(text) + 12, fm.height() + 6);
    const QRectF area = viewportArea().adjusted(m_view->gutterWidth(), 0, 0, 0);
    QPointF at = m_mousePos + QPointF(16, 18);
    if (at.x() + size.width() > area.right())
        at.setX(std::max(area.left(), m_mousePos.x() - 16 - size.width()));
    if (at.y() + size.height() > area.bottom())
        at.setY(m_mousePos.y() - 12 - size.height());
    const QRectF box(at, size);
    const Palette &palette = Palette::screen();
    painter.setPen(palette.color(Palette::Role::ChromeBorder));
    painter.setBrush(palette.color(Palette::Role::Chrome));
    painter.drawRoundedRect(box, 4, 4);
    painter.setPen(palette.color(Palette::Role::ChromeText));
    painter.drawText(box, Qt::AlignCenter, text);
    painter.restore();
}

void AnnotationOverlay::beginArrow(RankId rank, TimeNs time)
{
    setMode(Mode::PlaceArrow);
    m_startRank = rank;
    m_startTime = time;
    m_mousePos = {m_view->viewScale().toX(time), m_mousePos.y()};
    update();
}

bool AnnotationOverlay::editInteractive(std::uint64_t id)
{
    const Annotation *found = m_store ? m_store->find(id) : nullptr;
    if (!found)
        return false;
    Annotation a = *found;
    return AnnotationDialog::edit(this, a) && m_store->update(a);
}

} // namespace rs
