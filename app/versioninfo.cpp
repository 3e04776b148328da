#include "versioninfo.h"

#include "builddescribe.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <zstd.h>

#include <QtGlobal>

namespace rs {

QString VersionInfo::gitDescribe()
{
    return QStringLiteral(RANKSCOPE_BUILD_DESCRIBE);
}

QString VersionInfo::version()
{
    const QString git = gitDescribe();
    return git.isEmpty() ? QStringLiteral(RANKSCOPE_VERSION) : QStringLiteral(RANKSCOPE_VERSION " (git %1)").arg(git);
}

QStringList VersionInfo::libraries()
{
    // Qt, zstd and SQLite say what is loaded at run time; QCustomPlot and nlohmann_json are
    // what it was built with (the one a header, the other read from its header by CMake, so this
    // library need not link the charts).
    QString qt = QStringLiteral("Qt %1").arg(QString::fromLatin1(qVersion()));
    if (qt != QStringLiteral("Qt " QT_VERSION_STR))
        qt += QStringLiteral(" (built with " QT_VERSION_STR ")");
    return {qt, QStringLiteral("QCustomPlot " RANKSCOPE_QCUSTOMPLOT_VERSION),
            QStringLiteral("zstd %1").arg(QString::fromLatin1(ZSTD_versionString())),
            QStringLiteral("nlohmann_json %1.%2.%3").arg(NLOHMANN_JSON_VERSION_MAJOR).arg(NLOHMANN_JSON_VERSION_MINOR).arg(NLOHMANN_JSON_VERSION_PATCH),
            QStringLiteral("SQLite %1").arg(QString::fromLatin1(sqlite3_libversion()))};
}

QString VersionInfo::text()
{
    QString out = QStringLiteral("rankscope ") + version() + QLatin1Char('\n');
    for (const QString &lib : libraries())
        out += QStringLiteral("  ") + lib + QLatin1Char('\n');
    return out;
}

} // namespace rs
