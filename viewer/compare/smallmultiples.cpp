#include "smallmultiples.h"

#include "palette.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace rs {

SmallMultiples::SmallMultiples(ViewState *state, QWidget *parent) : QWidget(parent), m_state(state)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::ClickFocus);
    if (state) {
        const auto repaint = [this] { update(); };
        connect(state, &ViewState::visibleRangeChanged, this, repaint);
        connect(state, &ViewState::fullRangeChanged, this, repaint);
        connect(state, &ViewState::clockOffsetsChanged, this, repaint);
        connect(state, &ViewState::selectedRankChanged, this, repaint);
        connect(state, &ViewState::highlightChanged, this, repaint);
        connect(state, &ViewState::rankHiddenChanged, this, [this] {
            rebuildRows();
            updateGeometry();
            update();
        });
    }
}

void SmallMultiples::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_painter.setSession(m_session);
    rebuildRows();
    updateGeometry();
    update();
}

void SmallMultiples::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_painter.setAnalysis(std::move(analysis));
    update();
}

void SmallMultiples::setReferenceRank(RankId rank)
{
    if (rank == m_painter.referenceRank())
        return;
    m_painter.setReferenceRank(rank);
    update();
}

void SmallMultiples::setShowReference(bool show)
{
    if (show == m_painter.showReference())
        return;
    m_painter.setShowReference(show);
    update();
}

void SmallMultiples::rebuildRows()
{
    std::vector<RankId> shown;
    if (m_session)
        for (const Rank &r : m_session->ranks())
            if (!m_state || !m_state->isRankHidden(r.id))
                shown.push_back(r.id);
    m_painter.setRanks(shown);
}

bool SmallMultiples::syncView() const
{
    if (!m_state)
        return false;
    SmallMultiplesPainter::View v;
    v.visible = m_state->visibleRange();
    v.origin = m_state->fullRange().begin;
    v.selected = m_state->selectedRank();
    v.highlight = m_state->highlight();
    m_painter.setView(v);
    std::map<RankId, TimeNs> offsets;
    if (m_session)
        for (const Rank &r : m_session->ranks())
            if (const TimeNs off = m_state->clockOffset(r.id))
                offsets[r.id] = off;
    m_painter.setClockOffsets(std::move(offsets));
    m_painter.setFont(font());
    return true;
}

QSize SmallMultiples::sizeHint() const
{
    return {720, std::max(rowCount(), 1) * kRowHeight + kAxisHeight};
}

QSize SmallMultiples::minimumSizeHint() const
{
    return {kLabelWidth + 160, std::max(rowCount(), 1) * kMinRowHeight + kAxisHeight};
}

void SmallMultiples::render(QPainter &painter, const QRect &rect) const
{
    if (!syncView()) {
        // Without a view state there is no window to draw: the painter says so.
        m_painter.setView({});
        m_painter.setFont(font());
    }
    m_painter.setColors(Palette::screen()); // the desktop's theme, read at each paint
    m_painter.paint(painter, rect);
}

void SmallMultiples::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    render(p, rect());
    const QRect plots = m_painter.plotsRect(rect());
    if (m_state && rowCount() > 0 && m_hoverX >= plots.left() && m_hoverX <= plots.right()) {
        // The same aligned instant in every row: where the eye compares ranks.
        QColor cursor = Palette::screen().color(Palette::Role::Title);
        cursor.setAlpha(150);
        p.setPen(QPen(cursor, 1, Qt::DashLine));
        p.drawLine(m_hoverX, plots.top(), m_hoverX, plots.bottom() + 1);
    }
}

void SmallMultiples::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_state)
        return QWidget::mousePressEvent(event);
    m_pressed = true;
    m_dragging = false;
    m_pressPos = event->position().toPoint();
    m_pressRange = m_state->visibleRange();
}

void SmallMultiples::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_state)
        return;
    syncView();
    const QRect plots = m_painter.plotsRect(rect());
    const QPoint pos = event->position().toPoint();
    if (m_pressed) {
        if (!m_dragging && (pos - m_pressPos).manhattanLength() >= 4)
            m_dragging = true;
        if (m_dragging) {
            const double npp = double(m_pressRange.duration()) / double(plots.width());
            const auto shift = static_cast<TimeNs>(double(m_pressPos.x() - pos.x()) * npp);
            m_state->setVisibleRange({m_pressRange.begin + shift, m_pressRange.end + shift}, ViewState::Change::Continuous);
            setCursor(Qt::ClosedHandCursor);
        }
    }
    const int row = m_painter.rowAt(rect(), pos.y());
    m_hoverX = plots.contains(pos) ? pos.x() : -1;
    update();
    if (row >= 0 && m_hoverX >= 0 && !m_dragging)
        QToolTip::showText(event->globalPosition().toPoint(), m_painter.hoverText(row, m_painter.timeAt(rect(), pos.x())), this);
    else
        QToolTip::hideText();
}

void SmallMultiples::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_state || !m_pressed)
        return QWidget::mouseReleaseEvent(event);
    m_pressed = false;
    unsetCursor();
    if (m_dragging) {
        m_dragging = false;
        m_state->endGesture();
        return;
    }
    const int row = m_painter.rowAt(rect(), event->position().toPoint().y());
    if (row >= 0)
        m_state->setSelectedRank(m_painter.rankAt(row));
}

void SmallMultiples::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (m_state && event->button() == Qt::LeftButton)
        m_state->resetZoom();
}

void SmallMultiples::wheelEvent(QWheelEvent *event)
{
    if (!m_state)
        return QWidget::wheelEvent(event);
    syncView();
    const QRect plots = m_painter.plotsRect(rect());
    const QPoint pos = event->position().toPoint();
    const QPoint delta = event->angleDelta();
    // Inside a scroll area that cannot show every row, the plain wheel scrolls; Ctrl always zooms.
    const bool clipped = visibleRegion().boundingRect().height() < height();
    if (delta.x() != 0 && delta.y() == 0) {
        m_state->panBy(static_cast<TimeNs>(-double(delta.x()) / 120.0 * 0.1 * double(m_state->visibleRange().duration())));
    } else if ((event->modifiers() & Qt::ControlModifier) || !clipped) {
        const double factor = std::pow(0.85, double(delta.y()) / 120.0);
        m_state->zoomBy(factor, m_painter.timeAt(rect(), std::clamp(pos.x(), plots.left(), plots.right())));
    } else {
        return event->ignore();
    }
    event->accept();
}

void SmallMultiples::leaveEvent(QEvent *event)
{
    m_hoverX = -1;
    update();
    QWidget::leaveEvent(event);
}

} // namespace rs
