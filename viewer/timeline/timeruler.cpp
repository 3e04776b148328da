#include "timeruler.h"

#include "palette.h"

#include "timeformat.h"
#include "viewstate.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <climits>
#include <cmath>

namespace rs {

namespace {

TimeNs floorDiv(TimeNs a, TimeNs b)
{
    const TimeNs q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

const QColor kCursor(0xd9, 0x3b, 0x3b);

} // namespace

TimeRuler::TimeRuler(ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_state(state)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Drag across the ruler to zoom to that interval"));
    connect(m_state, &ViewState::visibleRangeChanged, this, &TimeRuler::recompute);
    connect(m_state, &ViewState::fullRangeChanged, this, &TimeRuler::recompute);
    recompute();
}

void TimeRuler::setGutterWidth(int width)
{
    if (width == m_gutter)
        return;
    m_gutter = width;
    recompute();
}

TimeScale TimeRuler::scale() const
{
    return {m_state->visibleRange(), static_cast<double>(m_gutter), static_cast<double>(std::max(1, width() - m_gutter))};
}

void TimeRuler::setCursorX(int x)
{
    if (x == m_cursorX)
        return;
    m_cursorX = x;
    update();
}

QSize TimeRuler::sizeHint() const
{
    return {600, kHeight};
}

void TimeRuler::recompute()
{
    m_ticks = computeTicks(m_state->visibleRange(), m_state->fullRange().begin, width() - m_gutter);
    update();
    Q_EMIT ticksChanged();
}

void TimeRuler::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    recompute();
}

void TimeRuler::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), Palette::screen().color(Palette::Role::Chrome));
    const TimeScale sc = scale();
    const TimeNs origin = m_state->fullRange().begin;

    QFont small = font();
    small.setPixelSize(11);
    QFont bold = small;
    bold.setWeight(QFont::DemiBold);
    const QFontMetrics fmSmall(small);
    const QFontMetrics fmBold(bold);
    const int rowSplit = 18;

    // Gutter: where t = 0 is on the wall clock, and how much time the window spans.
    p.setPen(Palette::screen().color(Palette::Role::ChromeMuted));
    p.setFont(small);
    const QRect gutter(8, 0, m_gutter - 14, height());
    p.drawText(gutter.adjusted(0, 3, 0, 0), Qt::AlignLeft | Qt::AlignTop,
               TimeFormat::isWallClock(origin) ? tr("t = 0 at") + QLatin1Char(' ') + TimeFormat::wallClock(origin).left(23)
                                               : tr("t = 0: first record (no wall clock)"));
    p.drawText(gutter.adjusted(0, 0, 0, -4), Qt::AlignLeft | Qt::AlignBottom,
               tr("window %1").arg(TimeFormat::duration(m_state->visibleRange().duration())));

    p.setClipRect(QRect(m_gutter, 0, width() - m_gutter, height()));

    // Sub-ticks, minor ticks and labels, then major ticks over them.
    if (m_ticks.step > 0) {
        p.setPen(Palette::screen().color(Palette::Role::ChromeTick));
        const TimeNs sub = std::max<TimeNs>(1, m_ticks.step / m_ticks.subdivisions);
        const TimeNs firstSub = origin + floorDiv(sc.range.begin - origin, sub) * sub;
        if (sc.width / (static_cast<double>(sc.range.duration()) / static_cast<double>(sub)) >= 4) {
            for (TimeNs t = firstSub; t < sc.range.end; t += sub) {
                const int x = static_cast<int>(std::floor(sc.toX(t)));
                p.drawLine(x, height() - 4, x, height() - 1);
            }
        }
        p.setFont(small);
        for (const RulerTick &tick : m_ticks.minor) {
            const int x = static_cast<int>(std::floor(sc.toX(tick.time)));
            p.setPen(Palette::screen().color(Palette::Role::ChromeTick));
            p.drawLine(x, rowSplit + 4, x, height() - 1);
            p.setPen(Palette::screen().color(Palette::Role::ChromeMuted));
            p.drawText(x + 4, height() - 7, tick.label);
        }
        // The pinned context label; a major label is skipped when it would run into it.
        p.setFont(bold);
        const int contextRight = m_gutter + 6 + fmBold.horizontalAdvance(m_ticks.context.label);
        const int firstMajorX = m_ticks.major.empty() ? INT_MAX : static_cast<int>(std::floor(sc.toX(m_ticks.major.front().time)));
        const bool contextIsFirstMajor = firstMajorX <= m_gutter + 1;
        if (!contextIsFirstMajor) {
            p.setPen(Palette::screen().color(Palette::Role::ChromeText));
            p.drawText(m_gutter + 6, 13, m_ticks.context.label);
        }
        for (const RulerTick &tick : m_ticks.major) {
            const int x = static_cast<int>(std::floor(sc.toX(tick.time)));
            p.setPen(QPen(Palette::screen().color(Palette::Role::ChromeText), 1));
            p.drawLine(x, 0, x, height() - 1);
            if (!contextIsFirstMajor && x < contextRight + 8)
                continue;
            p.setPen(Palette::screen().color(Palette::Role::ChromeText));
            p.drawText(x + 4, 13, tick.label);
        }
    }

    // Drag-to-zoom band.
    if (m_dragFrom >= 0 && m_dragTo >= 0 && m_dragFrom != m_dragTo) {
        const QRect band(QPoint(std::min(m_dragFrom, m_dragTo), 0), QPoint(std::max(m_dragFrom, m_dragTo), height()));
        p.fillRect(band, QColor(0x3b, 0x7d, 0xd8, 50));
        p.setPen(QColor(0x3b, 0x7d, 0xd8));
        p.drawRect(band.adjusted(0, 0, -1, -1));
    }

    // The cursor: an exact reading of the time under the mouse.
    if (m_cursorX >= m_gutter) {
        const QString label = TimeFormat::precise(sc.toTime(m_cursorX) - origin);
        p.setFont(small);
        const int w = fmSmall.horizontalAdvance(label) + 10;
        int x = m_cursorX + 1;
        if (x + w > width())
            x = m_cursorX - w;
        const QRect box(x, 1, w, rowSplit - 2);
        p.fillRect(box, kCursor);
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, label);
        p.setPen(QPen(kCursor, 1));
        p.drawLine(m_cursorX, 0, m_cursorX, height());
    }

    p.setClipping(false);
    p.setPen(Palette::screen().color(Palette::Role::ChromeBorder));
    p.drawLine(0, height() - 1, width(), height() - 1);
    p.drawLine(m_gutter - 1, 0, m_gutter - 1, height());
}

void TimeRuler::mousePressEvent(QMouseEvent *event)
{
    const int x = static_cast<int>(event->position().x());
    if (event->button() == Qt::LeftButton && x >= m_gutter) {
        m_dragFrom = x;
        m_dragTo = x;
    }
}

void TimeRuler::mouseMoveEvent(QMouseEvent *event)
{
    const int x = std::clamp(static_cast<int>(event->position().x()), m_gutter, width() - 1);
    setCursorX(x);
    if (m_dragFrom >= 0) {
        m_dragTo = x;
        update();
    }
}

void TimeRuler::leaveEvent(QEvent *event)
{
    QWidget::leaveEvent(event);
    if (m_dragFrom < 0)
        setCursorX(-1);
}

void TimeRuler::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || m_dragFrom < 0)
        return;
    const int a = std::min(m_dragFrom, m_dragTo);
    const int b = std::max(m_dragFrom, m_dragTo);
    m_dragFrom = m_dragTo = -1;
    update();
    if (b - a < 4)
        return;
    const TimeScale sc = scale();
    m_state->setVisibleRange({sc.toTime(a), sc.toTime(b)}, ViewState::Change::Jump);
}

} // namespace rs

