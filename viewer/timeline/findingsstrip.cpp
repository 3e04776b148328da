#include "findingsstrip.h"

#include "findingsrow.h"

#include <QPainter>

namespace rs {


FindingsStrip::FindingsStrip(QWidget *parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    // Hovering a badge here shows its tooltip: the AnnotationOverlay watches this widget's moves.
    setMouseTracking(true);
}

void FindingsStrip::setGutterWidth(int width)
{
    if (width == m_gutterWidth)
        return;
    m_gutterWidth = width;
    update();
}

void FindingsStrip::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    FindingsRow::paint(p, rect(), m_gutterWidth, tr("Job-wide findings"), font());
}

} // namespace rs
