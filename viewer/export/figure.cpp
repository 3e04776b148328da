#include "figure.h"

#include "comparefigure.h"
#include "figurerenderer.h"

namespace rs {

std::unique_ptr<Figure> Figure::make(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis, const FigureOptions &options)
{
    switch (options.view) {
    case FigureOptions::View::Compare: return std::make_unique<CompareFigure>(std::move(session), std::move(analysis), options);
    case FigureOptions::View::Timeline: break;
    }
    return std::make_unique<FigureRenderer>(std::move(session), std::move(analysis), options);
}

} // namespace rs
