#include "stickyheader.h"

#include "lanelayout.h"
#include "rankgroupwidget.h"
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

void StickyHeader::showGroup(RankGroupWidget *group)
{
    m_group = group;
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
    return m_group && isVisible() ? m_group->rank() : kNoRank;
}

void StickyHeader::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    if (!m_group)
        return;
    m_group->paintHeader(p, width());
    // A shadow line: the lanes pass under it.
    p.setPen(QColor(0, 0, 0, 40));
    p.drawLine(0, height() - 1, width(), height() - 1);
}

void StickyHeader::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && m_group)
        m_state->setRankCollapsed(m_group->rank(), !m_state->isRankCollapsed(m_group->rank()));
}

} // namespace rs
