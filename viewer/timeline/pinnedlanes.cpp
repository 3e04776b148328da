#include "pinnedlanes.h"

#include "lanekind.h"
#include "rankgrouppainter.h"
#include "timelinecontext.h"
#include "viewstate.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace rs {

PinnedLanes::PinnedLanes(TimelineContext &context, QWidget *parent)
    : QWidget(parent)
    , m_ctx(context)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    hide();
}

void PinnedLanes::rebuild()
{
    m_rows.clear();
    int y = 0;
    if (m_ctx.session) {
        for (const ViewState::LaneKey &key : m_ctx.state->pinnedLanes()) {
            const Rank *rank = m_ctx.session->rank(key.rank);
            if (!rank)
                continue;
            Row row;
            row.rank = key.rank;
            // Expanded and unfiltered: a pinned lane stays when its rank is folded, compacted or the
            // lane is hidden in its group.
            LaneLayout::Options o;
            o.timedLogs = !m_ctx.evidence.logs(key.rank).empty();
            o.memoryHeight = m_ctx.state->memoryLaneHeight();
            row.layout.build(*m_ctx.session, *rank, o);
            const auto found = std::find_if(row.layout.lanes().begin(), row.layout.lanes().end(), [&key](const Lane &l) {
                const std::string_view id = l.kind->id();
                return l.track == key.track && key.kind == QLatin1String(id.data(), static_cast<qsizetype>(id.size()));
            });
            if (found == row.layout.lanes().end())
                continue;
            row.lane = *found;
            row.lane.title = tr("Rank %1 · %2").arg(key.rank).arg(found->title);
            row.y = y;
            y += found->height;
            m_rows.push_back(std::move(row));
        }
    }
    const int height = m_rows.empty() ? 0 : y + 1; // and a shadow line: the groups pass under it
    setVisible(height > 0);
    update();
    if (height != m_height) {
        m_height = height;
        Q_EMIT heightChanged(height);
    }
}

const PinnedLanes::Row *PinnedLanes::rowAt(int y) const
{
    for (const Row &r : m_rows)
        if (y >= r.y && y < r.y + r.lane.height)
            return &r;
    return nullptr;
}

LaneFrame PinnedLanes::frameFor(const Row &row) const
{
    LaneFrame f = LaneFrame::onScreen(m_ctx, row.layout, row.rank, width());
    f.exposed = QRect(0, row.lane.top, width(), row.lane.height);
    f.font = font();
    return f;
}

void PinnedLanes::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    p.fillRect(event->rect(), m_ctx.colors->color(Palette::Role::Base));
    for (const Row &row : m_rows) {
        const QRect area(0, row.y, width(), row.lane.height);
        if (!area.intersects(event->rect()))
            continue;
        LaneFrame f = frameFor(row);
        f.painter = &p;
        p.save();
        p.setClipRect(area);
        p.translate(0, row.y - row.lane.top); // the lane's own rows land on the strip's
        RankGroupPainter::paintLane(f, row.lane);
        p.restore();
    }
    p.setPen(m_ctx.colors->color(Palette::Role::Shadow));
    p.drawLine(0, height() - 1, width(), height() - 1);
}

void PinnedLanes::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    const Row *row = rowAt(pos.y());
    if (!row) {
        m_ctx.state->setHovered({});
        QToolTip::hideText();
        return;
    }
    const QPoint inGroup(pos.x(), row->lane.top + pos.y() - row->y);
    const LaneFrame f = frameFor(*row);
    const EventRef hit = RankGroupPainter::hitTest(f, inGroup);
    m_ctx.state->setHovered(hit);
    const QString tip = pos.x() < m_ctx.gutterWidth ? tr("%1 — pinned; right-click to unpin").arg(row->lane.title)
                                                    : RankGroupPainter::tooltip(f, inGroup, hit);
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint() + QPoint(12, 16), tip, this);
}

void PinnedLanes::mouseReleaseEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    const Row *row = event->button() == Qt::LeftButton ? rowAt(pos.y()) : nullptr;
    if (!row)
        return;
    m_ctx.state->setSelection(RankGroupPainter::hitTest(frameFor(*row), QPoint(pos.x(), row->lane.top + pos.y() - row->y)));
}

void PinnedLanes::leaveEvent(QEvent *event)
{
    QWidget::leaveEvent(event);
    m_ctx.state->setHovered({});
}

void PinnedLanes::contextMenuEvent(QContextMenuEvent *event)
{
    const Row *row = rowAt(event->pos().y());
    QMenu menu(this);
    ViewState *state = m_ctx.state;
    if (row) {
        const RankId rank = row->rank;
        const std::string_view id = row->lane.kind->id();
        const QString kind = QString::fromLatin1(id.data(), static_cast<qsizetype>(id.size()));
        const TrackId track = row->lane.track;
        menu.addAction(tr("Unpin “%1”").arg(row->lane.title), &menu, [state, rank, kind, track] { state->setLanePinned(rank, kind, track, false); });
    }
    menu.addAction(tr("Unpin All"), &menu, [state] { state->setPinnedLanes({}); });
    menu.exec(event->globalPos());
}

} // namespace rs
