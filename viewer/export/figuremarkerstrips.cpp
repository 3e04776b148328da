#include "figuremarkerstrips.h"

#include "figurechrome.h"
#include "figurefindings.h"
#include "figureruler.h"
#include "timeline/gutterpainter.h"

#include <QPainter>

namespace rs {

FigureMarkerStrips::FigureMarkerStrips(const std::vector<Annotation> &annotations, const FigureFindings &findings,
                                       const std::function<bool(const Annotation &)> &onFigure)
{
    // Arrows join two points and keep their own drawing; everything else numbered is a marker.
    for (const Annotation &a : annotations)
        if (a.kind != Annotation::Kind::Arrow && findings.numberOf(a) > 0 && onFigure(a))
            m_ranks.insert(a.rank);
}

void FigureMarkerStrips::paint(QPainter &p, const QRect &r, int g, const QFont &font, RankId rank)
{
    // The screen's FindingsRow::paint looks alike but not the same (a tinted data area, the
    // lanes' gutter border, an elided label): the figure keeps its ruler-like row rather than
    // change every exported picture.
    const QColor separator(0xe7, 0xe9, 0xee);
    p.fillRect(r, Qt::white);
    p.fillRect(QRect(r.left(), r.top(), g, r.height()), FigureRuler::backgroundColor());
    p.setPen(separator);
    p.drawLine(r.left() + g - 1, r.top(), r.left() + g - 1, r.bottom());
    p.drawLine(r.left() + g, r.bottom(), r.right(), r.bottom());
    QFont small = font;
    small.setPixelSize(11);
    p.setFont(small);
    p.setPen(FigureChrome::mutedColor());
    p.drawText(QRect(r.left() + GutterPainter::kStripe + 10, r.top(), g - GutterPainter::kStripe - 16, r.height()),
               Qt::AlignLeft | Qt::AlignVCenter, rank == kNoRank ? tr("Job-wide findings") : tr("Findings"));
}

} // namespace rs
