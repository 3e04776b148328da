#pragma once
// One exported figure, whatever it shows: the timeline (FigureRenderer) or every rank against the
// reference rank (CompareFigure). FigureExporter, the export dialog's preview and the report draw
// through this interface, so each format and the clipboard get either view from the same options.

#include "figureoptions.h"

#include <QSize>
#include <QString>

#include <memory>

class QPainter;

namespace rs {

class Figure
{
public:
    virtual ~Figure() = default;

    /// Logical size: the options' width, and their height or the content's.
    virtual QSize size() const = 0;
    /// The headline drawn (the options' or the default one).
    virtual QString title() const = 0;
    /// The window drawn as "2023-09-07 23:10:01.545 – 23:10:03.112 UTC · 1.57 s".
    virtual QString rangeText() const = 0;
    /// Paints the whole figure with its top-left at (0, 0) of `painter`, in logical pixels.
    virtual void paint(QPainter &painter) = 0;

    /// The figure `options.view` names, laid out; `analysis` may be null.
    static std::unique_ptr<Figure> make(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis,
                                        const FigureOptions &options);
};

} // namespace rs
