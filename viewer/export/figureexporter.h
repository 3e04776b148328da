#pragma once
// Writes a figure of a session to a file (PNG at a chosen size and device-pixel ratio, SVG with
// text kept as text, PDF with one page the size of the figure) or makes it an image for the
// clipboard. One Figure (the timeline or the compare figure, as FigureOptions::view says) draws all
// of them, so the formats show the same picture.

#include "figureoptions.h"

#include <QCoreApplication>
#include <QImage>
#include <QString>

#include <memory>
#include <optional>

namespace rs {

class FigureExporter
{
    Q_DECLARE_TR_FUNCTIONS(FigureExporter)

public:
    enum class Format : std::uint8_t { Png, Svg, Pdf };

    /// The format a path's suffix names (".png", ".svg", ".pdf", any case), or nullopt.
    static std::optional<Format> formatForPath(const QString &path);
    /// "png", "svg", "pdf".
    static QString suffix(Format format);

    /// `analysis` may be null: the figure then has no offsets, spikes or divergence badges.
    FigureExporter(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis);

    /// Renders `options` to `path` as `format`. False with `error` set (may be null) when the file
    /// cannot be written; the figure itself always renders, even for an empty session.
    bool exportTo(const QString &path, Format format, const FigureOptions &options, QString *error = nullptr) const;
    /// The figure as an image of options' size × devicePixelRatio pixels (its devicePixelRatio set),
    /// white background: what "Copy view image" puts on the clipboard.
    QImage image(const FigureOptions &options) const;
    /// Puts image(options) on the system clipboard; false when there is no GUI application.
    bool copyToClipboard(const FigureOptions &options) const;

private:
    bool writePng(const QString &path, const FigureOptions &options, QString *error) const;
    bool writeSvg(const QString &path, const FigureOptions &options, QString *error) const;
    bool writePdf(const QString &path, const FigureOptions &options, QString *error) const;

    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
};

} // namespace rs
