#include "stickyheader.h"

#include "groupstack.h"
#include "lanelayout.h"
#include "palette.h"
#include "rankgroupwidget.h"
#include "timelinecontext.h"
#include "viewstate.h"

#include <QMouseEvent>
#include <QPainter>

namespace rs {

StickyHeader::StickyHeader(ViewState *state, QWidget *viewport)
    : QWidget(viewport)
    , m_state(state)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("The rank whose lanes are under it; click to fold them"));
    hide();
}

void StickyHeader::showGroup(TimelineContext *ctx, const GroupEntry *group)
{
    m_ctx = ctx;
    m_rank = group ? group->rank : kNoRank;
    if (!group) {
        hide();
        return;
    }
    setGeometry(0, 0, parentWidget()->width(), LaneLayout::kHeaderHeight);
    show();
    raise();
    update();
}

RankId StickyHeader::rank() const
{
    return isVisible() ? m_rank : kNoRank;
}

void StickyHeader::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const GroupEntry *group = m_ctx && m_rank != kNoRank ? m_ctx->groups.find(m_rank) : nullptr;
    if (!group)
        return;
    RankGroupWidget::paintHeader(*m_ctx, *group, p, width());
    // A shadow line: the lanes pass under it.
    p.setPen(Palette::screen().color(Palette::Role::Shadow));
    p.drawLine(0, height() - 1, width(), height() - 1);
}

void StickyHeader::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && m_rank != kNoRank)
        m_state->setRankCollapsed(m_rank, !m_state->isRankCollapsed(m_rank));
}

} // namespace rs
