#include "findingsrow.h"

#include "palette.h"

#include "gutterpainter.h"
#include "lanelayout.h"

#include <QPainter>

namespace rs {

// The job-wide strip and a rank's Findings lane hold the same badges: one height for both.
static_assert(FindingsRow::kHeight == LaneLayout::kFindingsHeight);

void FindingsRow::paint(QPainter &p, const QRect &r, int g, const QString &label, const QFont &font)
{
    p.save();
    p.fillRect(r, Palette::screen().color(Palette::Role::FaintRow));
    p.fillRect(QRect(r.left(), r.top(), g, r.height()), Palette::screen().color(Palette::Role::Gutter));
    p.setPen(Palette::screen().color(Palette::Role::GutterBorder));
    p.drawLine(r.left() + g - 1, r.top(), r.left() + g - 1, r.bottom());
    p.setPen(Palette::screen().color(Palette::Role::Separator));
    p.drawLine(r.left() + g, r.bottom(), r.right(), r.bottom());
    QFont small = font;
    small.setPixelSize(11);
    p.setFont(small);
    p.setPen(GutterPainter::mutedColor());
    const QRect text(r.left() + GutterPainter::kStripe + 10, r.top(), g - GutterPainter::kStripe - 16, r.height());
    p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, p.fontMetrics().elidedText(label, Qt::ElideRight, text.width()));
    p.restore();
}

} // namespace rs
