#pragma once
// Reads a generated file's text, undoing gzip when the name ends in ".gz", so tests compare
// content rather than compressed bytes (which depend on the zlib build).

#include <QByteArray>
#include <QFile>
#include <QString>

#include <zlib.h>

inline QByteArray readText(const QString &path)
{
    if (!path.endsWith(QLatin1String(".gz"))) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return f.readAll();
    }
    QByteArray out;
    gzFile f = gzopen(path.toLocal8Bit().constData(), "rb");
    if (!f)
        return {};
    char buf[65536];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, n);
    gzclose(f);
    return out;
}
