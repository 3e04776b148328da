#include "figureexporter.h"

#include "figure.h"

#include <QClipboard>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImageWriter>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <algorithm>

namespace rs {

namespace {

void setError(QString *error, const QString &text)
{
    if (error)
        *error = text;
}

// QSvgGenerator and QPdfWriter do not say why they could not write; trying the file first does.
bool writable(const QString &path, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        setError(error, FigureExporter::tr("cannot write %1: %2").arg(path, f.errorString()));
        return false;
    }
    return true;
}

} // namespace

std::optional<FigureExporter::Format> FigureExporter::formatForPath(const QString &path)
{
    const QString s = QFileInfo(path).suffix().toLower();
    if (s == QLatin1String("png"))
        return Format::Png;
    if (s == QLatin1String("svg"))
        return Format::Svg;
    if (s == QLatin1String("pdf"))
        return Format::Pdf;
    return std::nullopt;
}

QString FigureExporter::suffix(Format format)
{
    switch (format) {
    case Format::Png: return QStringLiteral("png");
    case Format::Svg: return QStringLiteral("svg");
    case Format::Pdf: return QStringLiteral("pdf");
    }
    return {};
}

FigureExporter::FigureExporter(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis)
    : m_session(std::move(session))
    , m_analysis(std::move(analysis))
{
}

bool FigureExporter::exportTo(const QString &path, Format format, const FigureOptions &options, QString *error) const
{
    switch (format) {
    case Format::Png: return writePng(path, options, error);
    case Format::Svg: return writeSvg(path, options, error);
    case Format::Pdf: return writePdf(path, options, error);
    }
    return false;
}

QImage FigureExporter::image(const FigureOptions &options) const
{
    const std::unique_ptr<Figure> figure = Figure::make(m_session, m_analysis, options);
    Figure &renderer = *figure;
    const double dpr = std::clamp(options.devicePixelRatio, 0.25, 8.0);
    const QSize logical = renderer.size();
    QImage img(QSize(qRound(logical.width() * dpr), qRound(logical.height() * dpr)), QImage::Format_ARGB32_Premultiplied);
    // Qt's painter does not scale down for a device-pixel ratio below 1 (a preview or thumbnail):
    // there the painter is scaled instead, and the image keeps a ratio of 1.
    if (dpr >= 1.0)
        img.setDevicePixelRatio(dpr);
    img.fill(Qt::white);
    QPainter p(&img);
    if (dpr < 1.0)
        p.scale(dpr, dpr);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    renderer.paint(p);
    p.end();
    img.setText(QStringLiteral("Title"), renderer.title());
    img.setText(QStringLiteral("Description"), renderer.rangeText());
    img.setText(QStringLiteral("Software"), QStringLiteral("RankScope " RANKSCOPE_VIEWER_VERSION));
    return img;
}

bool FigureExporter::copyToClipboard(const FigureOptions &options) const
{
    if (!qobject_cast<QGuiApplication *>(QCoreApplication::instance()))
        return false;
    QGuiApplication::clipboard()->setImage(image(options));
    return true;
}

bool FigureExporter::writePng(const QString &path, const FigureOptions &options, QString *error) const
{
    const QImage img = image(options);
    QImageWriter writer(path, "png");
    if (!writer.write(img)) {
        setError(error, tr("cannot write %1: %2").arg(path, writer.errorString()));
        return false;
    }
    return true;
}

bool FigureExporter::writeSvg(const QString &path, const FigureOptions &options, QString *error) const
{
    if (!writable(path, error))
        return false;
    const std::unique_ptr<Figure> figure = Figure::make(m_session, m_analysis, options);
    Figure &renderer = *figure;
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(renderer.size());
    svg.setViewBox(QRect(QPoint(0, 0), renderer.size()));
    svg.setResolution(96);
    svg.setTitle(renderer.title());
    svg.setDescription(renderer.rangeText());
    QPainter p;
    if (!p.begin(&svg)) {
        setError(error, tr("cannot write %1").arg(path));
        return false;
    }
    renderer.paint(p);
    p.end();
    return true;
}

bool FigureExporter::writePdf(const QString &path, const FigureOptions &options, QString *error) const
{
    if (!writable(path, error))
        return false;
    const std::unique_ptr<Figure> figure = Figure::make(m_session, m_analysis, options);
    Figure &renderer = *figure;
    const QSize size = renderer.size();
    QPdfWriter pdf(path);
    // At 96 dpi one device unit is one logical pixel, so the renderer draws 1:1 and the page
    // (in points, 72 per inch) is exactly the figure.
    pdf.setResolution(96);
    pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(size.width() * 0.75, size.height() * 0.75), QPageSize::Point, QString(),
                                            QPageSize::ExactMatch),
                                  QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    pdf.setTitle(renderer.title());
    pdf.setCreator(QStringLiteral("RankScope " RANKSCOPE_VIEWER_VERSION));
    QPainter p;
    if (!p.begin(&pdf)) {
        setError(error, tr("cannot write %1").arg(path));
        return false;
    }
    renderer.paint(p);
    p.end();
    return true;
}

} // namespace rs
