// rankscope: the viewer, or a headless subcommand (inspect, analyze, export, summarize) when the first
// argument names one.

#include "application.h"
#include "versioninfo.h"
#include "charts/memorychartrenderer.h"
#include "cli.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QSettings>

#include <cstdio>

namespace {

QtMessageHandler g_qtHandler = nullptr;

// Export's stderr carries the contract's "path: message" lines. In containers without
// XDG_RUNTIME_DIR Qt's GUI start adds a line about it that says nothing about the inputs.
void quietRuntimeDirWarning(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type == QtWarningMsg && message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
        return;
    if (g_qtHandler)
        g_qtHandler(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(message));
}

} // namespace

int main(int argc, char **argv)
{
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    QCoreApplication::setOrganizationName(QStringLiteral("RankScope"));
    QCoreApplication::setApplicationName(QStringLiteral("RankScope"));
    QCoreApplication::setApplicationVersion(rs::VersionInfo::version());

    if (!args.isEmpty() && args.front() == QLatin1String("export")) {
        // Export draws (fonts, QPainter on images, SVG, PDF) but never shows a window: on the
        // offscreen platform when there is no display to talk to (CI, ssh). A QApplication, because
        // the memory chart of a figure is the screen's QCustomPlot chart, a widget never shown.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
            && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        g_qtHandler = qInstallMessageHandler(quietRuntimeDirWarning);
        QApplication app(argc, argv);
        rs::MemoryChartRenderer::install();
        return rs::Cli::run(args);
    }
    if (rs::Cli::isSubcommand(args)) {
        // The other subcommands never need a display.
        QCoreApplication app(argc, argv);
        return rs::Cli::run(args);
    }

    QApplication app(argc, argv);
    rs::MemoryChartRenderer::install();
    QStringList paths;
    std::map<std::string, int> assign;
    std::string timeZone;
    bool noCache = false;
    // The per-file decompression ceiling: the option, else the saved setting, else the default.
    std::int64_t maxDecompressed = 0;
    if (const auto saved = rs::Cli::parseSize(QSettings().value(QStringLiteral("import/maxDecompressed")).toString()))
        maxDecompressed = *saved;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--max-decompressed") && i + 1 < args.size()) {
            const auto bytes = rs::Cli::parseSize(args[++i]);
            if (!bytes) {
                std::fprintf(stderr, "rankscope: --max-decompressed expects a size such as 64G (at least 1M)\n");
                return rs::Cli::Usage;
            }
            maxDecompressed = *bytes;
        } else if (args[i] == QLatin1String("--no-cache")) {
            noCache = true;
        } else if (args[i] == QLatin1String("--time-zone") && i + 1 < args.size()) {
            timeZone = args[++i].toStdString();
        } else if (args[i].startsWith(QLatin1String("--time-zone="))) {
            timeZone = args[i].mid(12).toStdString();
        } else if (args[i] == QLatin1String("--assign-rank") && i + 1 < args.size()) {
            if (!rs::Cli::parseAssignRank(args[++i], assign)) {
                std::fprintf(stderr, "rankscope: --assign-rank expects PATH=N\n");
                return rs::Cli::Usage;
            }
        } else if (args[i].startsWith(QLatin1String("--"))) {
            std::fprintf(stderr, "rankscope: unknown option '%s'\n%s", qPrintable(args[i]),
                         qPrintable(rs::Cli::usage()));
            return rs::Cli::Usage;
        } else {
            paths << args[i];
        }
    }

    rs::SessionLoader::Options options;
    options.rankOverrides = std::map<std::string, rs::RankId>(assign.begin(), assign.end());
    options.timeZone = timeZone;
    options.maxDecompressedBytes = maxDecompressed;
    // The import cache: on unless --no-cache, RANKSCOPE_NO_CACHE or the setting says otherwise.
    options.cache = rs::Cli::cacheEnabled(noCache) && QSettings().value(QStringLiteral("cache/enabled"), true).toBool();
    options.cacheMaxBytes = QSettings().value(QStringLiteral("cache/maxBytes"), qint64(0)).toLongLong();
    rs::Application viewer(options);
    viewer.window().show();
    viewer.open(paths);
    return app.exec();
}
