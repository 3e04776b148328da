#pragma once
// What the export tests share: the demo (or a sample folder) read the way the importers read it,
// the <text> elements of an SVG, and a pixel count of one colour in an image.

#include "importcontext.h"
#include "importerregistry.h"
#include "sessionbuilder.h"

#include <QColor>
#include <QFile>
#include <QImage>
#include <QString>
#include <QStringList>
#include <QXmlStreamReader>

#include <string>

namespace rs::test {

/// Every recognised file below `dir`, read with zone-less stamps in `timeZone`; others are skipped.
inline SessionPtr loadFolder(const QString &dir, const std::string &timeZone = "UTC")
{
    SessionBuilder sb;
    for (const std::string &path : ImporterRegistry::expandPaths({dir.toStdString()})) {
        ImportContext ctx;
        ctx.timeZone = timeZone;
        SourceBuilder b = ImporterRegistry::instance().importFile(path, ctx);
        if (ImporterRegistry::isUnrecognised(b))
            sb.addSkipped(path);
        else
            sb.addSource(std::move(b));
    }
    return sb.freeze();
}

/// How many pixels of `img` have exactly colour `c` (alpha ignored): solid fills (rank stripes,
/// badges) keep their colour exactly.
inline int countColor(const QImage &img, QColor c)
{
    const QImage rgb = img.convertToFormat(QImage::Format_RGB32);
    const QRgb want = c.rgb();
    int n = 0;
    for (int y = 0; y < rgb.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x)
            n += (line[x] | 0xff000000u) == want ? 1 : 0;
    }
    return n;
}

/// Every <text> of an SVG, white space simplified; `images` counts <image> elements (text drawn as
/// pictures would show up there). An XML error comes back as the only text.
inline QStringList svgTexts(const QString &path, int *images)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QXmlStreamReader xml(&f);
    QStringList texts;
    *images = 0;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).simplified();
        else if (xml.isStartElement() && xml.name() == QLatin1String("image"))
            ++*images;
    }
    if (xml.hasError())
        texts = {QStringLiteral("XML error: ") + xml.errorString()};
    return texts;
}

} // namespace rs::test
