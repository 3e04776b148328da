#include "annotationpainter.h"

#include <QFontMetricsF>
#include <QGuiApplication>
#include <QPainter>
#include <QPainterPath>
#include <QTextLayout>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

constexpr double kCalloutMaxWidth = 240;  // text wraps beyond this; every line is shown, never elided
constexpr double kPadX = 6, kPadY = 3;
constexpr double kFlagW = 10, kFlagH = 12; // the pin's flag
constexpr double kLabelMaxWidth = 220;    // arrow and range labels wrap beyond this
constexpr double kHandle = 7;             // side of a selection handle
constexpr double kEdgeGrab = 4;           // pixels either side of a range edge that grab it
constexpr double kEndGrab = 7;            // radius around an arrow end that grabs it
constexpr double kLineGrab = 4;           // distance from an arrow's shaft that grabs it
constexpr double kArrowHead = 13, kArrowHalf = 5.5;
constexpr double kBadge = 16;             // height (and a one-digit badge's width) of a numbered marker
const QColor kText(0x1f, 0x29, 0x37);

// Where every part of one annotation lands: painting and hit-testing share this, so a click lands
// on exactly what was drawn.
struct Placed {
    const Annotation *a = nullptr;
    QRectF band;      // the rank band (or the whole area) it sits on
    QPointF from, to; // note: pin top (both); arrow: tail, head; range: top-left x of start/end
    QRectF box;       // note callout, arrow/range label; empty when there is no text
    QRectF flag;      // note: the flag at the pin
    QStringList lines; // the text of `box`, wrapped (every line)
    int number = 0;    // > 0: a finding drawn as a numbered marker (no box, no lines)
    QRectF marker;     // the marker's badge
};

QFont annotationFont()
{
    QFont f = QGuiApplication::font();
    f.setPixelSize(11);
    return f;
}

// Wraps `text` into lines of at most `width`, breaking inside a word only when the word alone is
// wider (a path, a hash): a note on an incident ticket is read whole, so nothing is elided.
QStringList wrap(const QString &text, const QFont &font, double width)
{
    QStringList out;
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    for (const QString &para : text.split(QLatin1Char('\n'))) {
        if (para.trimmed().isEmpty()) {
            out << QString();
            continue;
        }
        QTextLayout layout(para, font);
        layout.setTextOption(option);
        layout.beginLayout();
        for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
            line.setLineWidth(width);
            out << para.mid(line.textStart(), line.textLength()).trimmed();
        }
        layout.endLayout();
    }
    while (!out.isEmpty() && out.back().isEmpty())
        out.pop_back();
    while (!out.isEmpty() && out.front().isEmpty())
        out.pop_front();
    return out;
}

QSizeF textSize(const QStringList &lines, const QFont &font)
{
    const QFontMetricsF fm(font);
    double w = 0;
    for (const QString &l : lines)
        w = std::max(w, fm.horizontalAdvance(l));
    return {std::ceil(w) + 2 * kPadX, std::ceil(fm.height() * static_cast<double>(lines.size())) + 2 * kPadY};
}

// Moves `r` inside `area` as far as it fits (left/top win when it does not).
QRectF keepInside(QRectF r, const QRectF &area)
{
    if (r.right() > area.right())
        r.moveRight(area.right());
    if (r.left() < area.left())
        r.moveLeft(area.left());
    if (r.bottom() > area.bottom())
        r.moveBottom(area.bottom());
    if (r.top() < area.top())
        r.moveTop(area.top());
    return r;
}

// Pushes `r` down (or right) past every box already placed that it overlaps, so stacked notes and
// markers stay legible.
QRectF avoid(QRectF r, const std::vector<QRectF> &taken, bool right = false)
{
    for (int guard = 0; guard < 64; ++guard) {
        bool moved = false;
        for (const QRectF &t : taken)
            if (r.intersects(t)) {
                if (right)
                    r.moveLeft(t.right() + 2);
                else
                    r.moveTop(t.bottom() + 2);
                moved = true;
            }
        if (!moved)
            break;
    }
    return r;
}

QFont badgeFont()
{
    QFont f = annotationFont();
    f.setPixelSize(10);
    f.setWeight(QFont::Bold);
    return f;
}

std::vector<Placed> place(const std::vector<Annotation> &annotations, const AnnotationGeometry &g, const QFont &font,
                          const AnnotationStyle &style)
{
    std::vector<Placed> out;
    out.reserve(annotations.size());
    std::vector<QRectF> taken = g.keepClear; // the charts' own labels stay readable
    auto bandOf = [&g](RankId rank) -> std::optional<QRectF> {
        if (rank == kNoRank)
            return g.area;
        return g.rankBand ? g.rankBand(rank) : std::nullopt;
    };
    // Numbered markers first, by number, so badges that line up at one moment read ①②③; then
    // labels of ranges (they sit on the band's top edge), then callouts stack below them.
    std::vector<std::pair<int, const Annotation *>> order; // (number, annotation); 0: not a marker
    order.reserve(annotations.size());
    for (const Annotation &a : annotations) {
        const bool marker = a.origin == Annotation::Origin::Finding && style.findings == FindingMarks::NumberedMarker
            && style.number && a.kind != Annotation::Kind::Arrow;
        order.emplace_back(marker ? std::max(0, style.number(a)) : 0, &a);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto &l, const auto &r) { return l.first > 0 && (r.first == 0 || l.first < r.first); });
    for (int pass = 0; pass < 4; ++pass) {
        for (const auto &[number, annotation] : order) {
            const Annotation &a = *annotation;
            const int wanted = number > 0 ? 0 : a.kind == Annotation::Kind::Range ? 1 : a.kind == Annotation::Kind::Arrow ? 2 : 3;
            if (wanted != pass)
                continue;
            const auto band = bandOf(a.rank);
            if (!band)
                continue;
            Placed p;
            p.a = &a;
            p.band = *band;
            p.number = number;
            if (p.number > 0) {
                // A badge at the moment (a range's start) in the rank's marker row, or on the band's
                // top edge without one; several at one moment line up along the row (down the band).
                const std::optional<QRectF> row = g.markerRow ? g.markerRow(a.rank) : std::nullopt;
                const bool onRow = row && !row->isEmpty();
                const double x0 = g.x(std::min(a.time, a.endTime)), x1 = g.x(std::max(a.time, a.endTime));
                if (x1 < g.area.left() || x0 > g.area.right())
                    continue;
                const QSizeF s = AnnotationPainter::numberBadgeSize(p.number);
                const double top = onRow ? row->center().y() - s.height() / 2 : std::max(band->top(), g.area.top()) + 2;
                QRectF marker(QPointF(x0 - s.width() / 2, top), s);
                const QRectF bounds = onRow ? *row : g.area;
                if (marker.left() < bounds.left())
                    marker.moveLeft(bounds.left() + 1);
                if (marker.right() > bounds.right())
                    marker.moveRight(bounds.right() - 1);
                p.from = {x0, band->top()};
                p.to = {a.isRange() ? x1 : x0, band->top()};
                p.marker = avoid(marker, taken, onRow);
                taken.push_back(p.marker);
                out.push_back(std::move(p));
                continue;
            }
            switch (a.kind) {
            case Annotation::Kind::Range: {
                const double x0 = g.x(std::min(a.time, a.endTime)), x1 = g.x(std::max(a.time, a.endTime));
                p.from = {x0, band->top()};
                p.to = {x1, band->top()};
                if (x1 < g.area.left() || x0 > g.area.right())
                    continue;
                if (!a.text.isEmpty()) {
                    p.lines = wrap(a.text, font, kLabelMaxWidth - 2 * kPadX);
                    QRectF box(QPointF(std::max(x0, g.area.left()) + 3, band->top() + 3), textSize(p.lines, font));
                    // A label never leaves the range when the range is wide enough to hold it.
                    if (box.right() > x1 - 3 && x1 - 3 - box.width() >= std::max(x0, g.area.left()) + 3)
                        box.moveRight(x1 - 3);
                    p.box = avoid(keepInside(box, g.area), taken);
                    taken.push_back(p.box);
                }
                break;
            }
            case Annotation::Kind::Arrow: {
                const auto endBand = bandOf(a.endRank);
                if (!endBand)
                    continue;
                p.from = {g.x(a.time), band->center().y()};
                p.to = {g.x(a.endTime), endBand->center().y()};
                if (!a.text.isEmpty()) {
                    p.lines = wrap(a.text, font, kLabelMaxWidth - 2 * kPadX);
                    const QSizeF s = textSize(p.lines, font);
                    // At the tail, on the side away from the head, so the shaft never crosses it.
                    const bool headRight = p.to.x() >= p.from.x();
                    const bool headBelow = p.to.y() >= p.from.y();
                    QRectF box(QPointF(headRight ? p.from.x() - s.width() - 4 : p.from.x() + 4,
                                       headBelow ? p.from.y() - s.height() - 4 : p.from.y() + 4),
                               s);
                    p.box = avoid(keepInside(box, g.area), taken);
                    taken.push_back(p.box);
                }
                break;
            }
            case Annotation::Kind::Note: {
                const double x = g.x(a.time);
                if (x < g.area.left() - kCalloutMaxWidth || x > g.area.right() + kCalloutMaxWidth)
                    continue;
                const double top = std::max(band->top(), g.area.top());
                p.from = p.to = {x, top};
                p.flag = QRectF(x, top, kFlagW, kFlagH);
                if (!a.text.isEmpty()) {
                    p.lines = wrap(a.text, font, kCalloutMaxWidth - 2 * kPadX);
                    const QSizeF s = textSize(p.lines, font);
                    QRectF box(QPointF(x + kFlagW + 2, top + 2), s);
                    if (box.right() > g.area.right()) // flip to the left of the pin near the right edge
                        box.moveRight(x - 3);
                    p.box = avoid(keepInside(box, g.area), taken);
                    taken.push_back(p.box);
                }
                break;
            }
            }
            out.push_back(std::move(p));
        }
    }
    // Paint and hit-test in the caller's order (later on top), whatever the placement order was.
    std::stable_sort(out.begin(), out.end(), [](const Placed &l, const Placed &r) { return l.a < r.a; });
    return out;
}

double distanceToSegment(const QPointF &p, const QPointF &a, const QPointF &b)
{
    const QPointF d = b - a;
    const double len2 = QPointF::dotProduct(d, d);
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / len2, 0.0, 1.0) : 0.0;
    const QPointF q = a + t * d;
    return std::hypot(p.x() - q.x(), p.y() - q.y());
}

double distance(const QPointF &a, const QPointF &b)
{
    return std::hypot(a.x() - b.x(), a.y() - b.y());
}

// Crisp 1 px vertical lines at 1×: centre them on a pixel.
double pixelCentre(double x)
{
    return std::floor(x) + 0.5;
}

void paintHandle(QPainter &p, const QPointF &c, const QColor &color, bool round)
{
    p.setPen(QPen(color, 1.5));
    p.setBrush(Qt::white);
    const QRectF r(c.x() - kHandle / 2, c.y() - kHandle / 2, kHandle, kHandle);
    if (round)
        p.drawEllipse(r);
    else
        p.drawRect(r);
}

// The text box of a note or label: white (tinted for findings), coloured border, accent bar.
void paintBox(QPainter &p, const Placed &pl, const QColor &color, bool finding, double border)
{
    if (pl.box.isEmpty())
        return;
    QColor fill = Qt::white;
    if (finding) {
        // A wash of the severity colour tells findings from notes at a glance.
        fill = QColor(255 - (255 - color.red()) / 12, 255 - (255 - color.green()) / 12, 255 - (255 - color.blue()) / 12);
    }
    p.setPen(QPen(color, border));
    p.setBrush(fill);
    p.drawRoundedRect(pl.box, 3, 3);
    p.fillRect(QRectF(pl.box.left() + 0.5, pl.box.top() + 2, 2.5, pl.box.height() - 4), color);
    p.setPen(kText);
    const QFontMetricsF fm(p.font());
    double y = pl.box.top() + kPadY + fm.ascent();
    for (const QString &line : pl.lines) {
        p.drawText(QPointF(pl.box.left() + kPadX, y), line);
        y += fm.height();
    }
}

void paintNote(QPainter &p, const Placed &pl, const QColor &color, bool finding, bool selected, bool hovered)
{
    const double x = pixelCentre(pl.from.x());
    const double top = pl.from.y();
    // The moment, down the whole band, faint: lines the note up with what ran then.
    QColor faint = color;
    faint.setAlphaF(0.55f);
    p.setPen(QPen(faint, 1, Qt::DashLine));
    p.drawLine(QPointF(x, top), QPointF(x, std::min(pl.band.bottom(), top + std::max(pl.band.height(), 24.0))));
    p.setPen(QPen(color.darker(120), 1));
    p.setBrush(color);
    if (finding) {
        // Findings carry a diamond (the findings panel's high-severity shape) instead of a flag.
        QPolygonF d;
        d << QPointF(x, top) << QPointF(x + 5, top + 5) << QPointF(x, top + 10) << QPointF(x - 5, top + 5);
        p.drawPolygon(d);
    } else {
        p.drawLine(QPointF(x, top), QPointF(x, top + kFlagH + 4));
        QPolygonF flag;
        flag << QPointF(x, top) << QPointF(x + kFlagW, top + kFlagH * 0.35) << QPointF(x, top + kFlagH * 0.7);
        p.drawPolygon(flag);
    }
    if (!pl.box.isEmpty()) {
        // A short leader ties a callout pushed down (or flipped left) back to its pin.
        if (pl.box.left() > x + kFlagW + 3 || pl.box.top() > top + 4 || pl.box.right() < x) {
            p.setPen(QPen(faint, 1));
            const double bx = pl.box.left() > x ? pl.box.left() : pl.box.right();
            p.drawLine(QPointF(x, top + 6), QPointF(bx, std::clamp(top + 6, pl.box.top() + 3, pl.box.bottom() - 3)));
        }
        paintBox(p, pl, color, finding, selected ? 2.0 : hovered ? 1.5 : 1.0);
    }
    if (selected)
        paintHandle(p, QPointF(x, top + (finding ? 5 : kFlagH * 0.35)), color, false);
}

void paintArrow(QPainter &p, const Placed &pl, const QColor &color, bool selected, bool hovered)
{
    const QPointF a = pl.from, b = pl.to;
    const double len = distance(a, b);
    const double width = selected ? 2.5 : hovered ? 2.2 : 1.8;
    if (len >= 1) {
        const QPointF u = (b - a) / len;
        const QPointF n(-u.y(), u.x());
        const double head = std::min(kArrowHead, len * 0.6);
        const QPointF base = b - u * head;
        // A white casing keeps the shaft readable over dense spans of any colour.
        p.setPen(QPen(QColor(255, 255, 255, 200), width + 2.5, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(a, base);
        p.setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(a, base + u * 1.0);
        QPolygonF tip;
        tip << b << base + n * kArrowHalf << base - n * kArrowHalf;
        p.setPen(QPen(QColor(255, 255, 255, 220), 1.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.setBrush(color);
        p.drawPolygon(tip);
    }
    p.setPen(QPen(Qt::white, 1.2));
    p.setBrush(color);
    p.drawEllipse(a, 3.2, 3.2);
    paintBox(p, pl, color, pl.a->origin == Annotation::Origin::Finding, selected ? 2.0 : hovered ? 1.5 : 1.0);
    if (selected) {
        paintHandle(p, a, color, true);
        paintHandle(p, b, color, true);
    }
}

void paintRange(QPainter &p, const Placed &pl, const QColor &color, bool finding, bool selected, bool hovered)
{
    const double x0 = pl.from.x(), x1 = pl.to.x();
    const QRectF r(QPointF(x0, pl.band.top()), QPointF(std::max(x1, x0 + 1), pl.band.bottom()));
    QColor wash = color;
    wash.setAlphaF(selected ? 0.20f : hovered ? 0.16f : 0.11f);
    p.fillRect(r, wash);
    QColor edge = color;
    edge.setAlphaF(0.85f);
    // Finding ranges are dashed: the analysis' estimate, not a person's mark.
    p.setPen(QPen(edge, selected ? 2.0 : 1.0, finding ? Qt::DashLine : Qt::SolidLine, Qt::FlatCap));
    p.drawLine(QPointF(pixelCentre(x0), r.top()), QPointF(pixelCentre(x0), r.bottom()));
    p.drawLine(QPointF(pixelCentre(x1), r.top()), QPointF(pixelCentre(x1), r.bottom()));
    paintBox(p, pl, color, finding, selected ? 2.0 : hovered ? 1.5 : 1.0);
    if (selected) {
        const double y = std::clamp(r.center().y(), pl.band.top() + kHandle, pl.band.bottom() - kHandle);
        paintHandle(p, QPointF(x0, y), color, false);
        paintHandle(p, QPointF(x1, y), color, false);
    }
}

// A finding as a numbered marker: the range's wash and dashed edges or the moment's faint line
// down the band (the badge comes later, over every wash and line); its title and fix are in the
// figure's findings list.
void paintMarker(QPainter &p, const Placed &pl, const QColor &color, bool selected, bool hovered)
{
    const double x0 = pl.from.x(), x1 = pl.to.x();
    QColor faint = color;
    faint.setAlphaF(0.55f);
    if (pl.a->isRange()) {
        QColor wash = color;
        wash.setAlphaF(selected ? 0.20f : hovered ? 0.16f : 0.11f);
        p.fillRect(QRectF(QPointF(x0, pl.band.top()), QPointF(std::max(x1, x0 + 1), pl.band.bottom())), wash);
        QColor edge = color;
        edge.setAlphaF(0.85f);
        p.setPen(QPen(edge, selected ? 2.0 : 1.0, Qt::DashLine, Qt::FlatCap));
        p.drawLine(QPointF(pixelCentre(x0), pl.band.top()), QPointF(pixelCentre(x0), pl.band.bottom()));
        p.drawLine(QPointF(pixelCentre(x1), pl.band.top()), QPointF(pixelCentre(x1), pl.band.bottom()));
        if (selected) {
            // The ends can be dragged like a user range's (hitTest grabs a range's edges).
            const double y = std::clamp(pl.band.center().y(), pl.band.top() + kHandle, pl.band.bottom() - kHandle);
            paintHandle(p, QPointF(x0, y), color, false);
            paintHandle(p, QPointF(x1, y), color, false);
        }
    } else {
        p.setPen(QPen(faint, 1, Qt::DashLine));
        const double x = pixelCentre(x0);
        p.drawLine(QPointF(x, std::max(pl.band.top(), pl.marker.bottom())), QPointF(x, pl.band.bottom()));
    }
    // A badge pushed off its moment (stacked, or kept inside the area) keeps a leader to it.
    if (x0 < pl.marker.left() || x0 > pl.marker.right()) {
        const double y = pl.marker.center().y();
        p.setPen(QPen(faint, 1));
        p.drawLine(QPointF(x0, y), QPointF(x0 < pl.marker.left() ? pl.marker.left() : pl.marker.right(), y));
    }
}

// The area a paint call draws into (and a hit can land in): the data area, and the job-wide marker
// row when it lies outside it.
QRectF paintedArea(const AnnotationGeometry &geometry, const AnnotationStyle &style)
{
    QRectF area = geometry.area;
    if (style.findings == FindingMarks::NumberedMarker && geometry.markerRow)
        if (const std::optional<QRectF> jobRow = geometry.markerRow(kNoRank))
            area = area.united(*jobRow);
    return area;
}

} // namespace

QSizeF AnnotationPainter::numberBadgeSize(int number)
{
    const QFontMetricsF fm(badgeFont());
    return {std::max(kBadge, std::ceil(fm.horizontalAdvance(QString::number(number))) + 8), kBadge};
}

void AnnotationPainter::paintNumberBadge(QPainter &painter, const QPointF &centre, int number, const QColor &color)
{
    const QSizeF s = numberBadgeSize(number);
    const QRectF r(centre.x() - s.width() / 2, centre.y() - s.height() / 2, s.width(), s.height());
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    // A white ring lifts the badge off dense spans and curves of any colour.
    painter.setPen(QPen(Qt::white, 1.5));
    painter.setBrush(color);
    if (s.width() > kBadge)
        painter.drawRoundedRect(r, 4, 4);
    else
        painter.drawEllipse(r);
    painter.setFont(badgeFont());
    painter.setPen(Qt::white);
    painter.drawText(r, Qt::AlignCenter, QString::number(number));
    painter.restore();
}

std::vector<std::pair<std::uint64_t, QRectF>> AnnotationPainter::textBoxes(const std::vector<Annotation> &annotations,
                                                                           const AnnotationGeometry &geometry, const AnnotationStyle &style)
{
    std::vector<std::pair<std::uint64_t, QRectF>> out;
    if (annotations.empty() || !geometry.x || geometry.area.isEmpty())
        return out;
    for (const Placed &p : place(annotations, geometry, annotationFont(), style))
        if (!p.box.isEmpty())
            out.emplace_back(p.a->id, p.box);
    return out;
}

void AnnotationPainter::paint(QPainter &painter, const std::vector<Annotation> &annotations, const AnnotationGeometry &geometry,
                              std::uint64_t selectedId, std::uint64_t hoveredId, const AnnotationStyle &style)
{
    if (annotations.empty() || !geometry.x || geometry.area.isEmpty())
        return;
    painter.save();
    // The job-wide marker row may lie outside the area (a figure's strip above the ranks).
    painter.setClipRect(paintedArea(geometry, style), painter.hasClipping() ? Qt::IntersectClip : Qt::ReplaceClip);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    const QFont font = annotationFont();
    painter.setFont(font);
    const std::vector<Placed> placed = place(annotations, geometry, font, style);
    for (const Placed &pl : placed) {
        const Annotation &a = *pl.a;
        const QColor color = a.effectiveColor();
        const bool finding = a.origin == Annotation::Origin::Finding;
        const bool selected = a.id != 0 && a.id == selectedId;
        const bool hovered = a.id != 0 && a.id == hoveredId;
        if (pl.number > 0) {
            paintMarker(painter, pl, color, selected, hovered);
            continue;
        }
        switch (a.kind) {
        case Annotation::Kind::Note: paintNote(painter, pl, color, finding, selected, hovered); break;
        case Annotation::Kind::Arrow: paintArrow(painter, pl, color, selected, hovered); break;
        case Annotation::Kind::Range: paintRange(painter, pl, color, finding, selected, hovered); break;
        }
    }
    // Badges last: a range's wash or edge painted after a badge at the same moment would veil it.
    for (const Placed &pl : placed) {
        if (pl.number <= 0)
            continue;
        paintNumberBadge(painter, pl.marker.center(), pl.number, pl.a->effectiveColor());
        const bool selected = pl.a->id != 0 && pl.a->id == selectedId;
        if (selected || (pl.a->id != 0 && pl.a->id == hoveredId)) {
            // A ring around the badge, like the heavier outline of a selected callout.
            painter.setPen(QPen(selected ? kText : pl.a->effectiveColor(), selected ? 1.6 : 1.2));
            painter.setBrush(Qt::NoBrush);
            const QRectF ring = pl.marker.adjusted(-2.5, -2.5, 2.5, 2.5);
            painter.drawRoundedRect(ring, std::min(ring.width(), ring.height()) / 2, ring.height() / 2);
        }
    }
    painter.restore();
}


std::pair<std::uint64_t, AnnotationPainter::Part> AnnotationPainter::hitTest(const QPointF &point, const std::vector<Annotation> &annotations,
                                                                             const AnnotationGeometry &geometry, const AnnotationStyle &style)
{
    if (annotations.empty() || !geometry.x || !paintedArea(geometry, style).contains(point))
        return {0, Part::None};
    const std::vector<Placed> placed = place(annotations, geometry, annotationFont(), style);
    // Badges are painted over everything else, so they are hit first; a little slack around them
    // makes the small target easier to catch.
    for (auto it = placed.rbegin(); it != placed.rend(); ++it)
        if (it->number > 0 && it->marker.adjusted(-2, -2, 2, 2).contains(point))
            return {it->a->id, Part::Body};
    for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
        const Placed &pl = *it;
        const Annotation &a = *pl.a;
        if (pl.number > 0 && !a.isRange())
            continue; // a marked moment is grabbed by its badge only: its line crosses the data
        switch (a.kind) {
        case Annotation::Kind::Note:
            if (pl.box.contains(point) || pl.flag.adjusted(-5, -2, 2, 4).contains(point))
                return {a.id, Part::Body};
            break;
        case Annotation::Kind::Arrow: {
            const double dStart = distance(point, pl.from), dEnd = distance(point, pl.to);
            if (std::min(dStart, dEnd) <= kEndGrab)
                return {a.id, dEnd < dStart ? Part::End : Part::Start};
            if (distanceToSegment(point, pl.from, pl.to) <= kLineGrab || pl.box.contains(point))
                return {a.id, Part::Body};
            break;
        }
        case Annotation::Kind::Range: {
            // Only the edges and the label grab a range: its inside stays free for selecting and
            // panning what lies under it.
            if (point.y() < pl.band.top() || point.y() > pl.band.bottom())
                break;
            const double d0 = std::abs(point.x() - pl.from.x()), d1 = std::abs(point.x() - pl.to.x());
            if (std::min(d0, d1) <= kEdgeGrab)
                return {a.id, d1 < d0 ? Part::End : Part::Start};
            if (pl.box.contains(point))
                return {a.id, Part::Body};
            break;
        }
        }
    }
    return {0, Part::None};
}

} // namespace rs
