// rankscope: the viewer, or a headless subcommand (inspect) when the first argument names one.

#include "analysiscontroller.h"
#include "cli.h"
#include "importcontroller.h"
#include "mainwindow.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>

int main(int argc, char **argv)
{
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    QCoreApplication::setOrganizationName(QStringLiteral("RankScope"));
    QCoreApplication::setApplicationName(QStringLiteral("RankScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RANKSCOPE_VERSION));

    if (rs::Cli::isSubcommand(args)) {
        // Subcommands never need a display.
        QCoreApplication app(argc, argv);
        return rs::Cli::run(args);
    }

    QApplication app(argc, argv);
    QStringList paths;
    std::map<std::string, int> assign;
    std::string timeZone;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--time-zone") && i + 1 < args.size()) {
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

    rs::ImportController controller;
    rs::SessionLoader::Options options;
    options.rankOverrides = std::map<std::string, rs::RankId>(assign.begin(), assign.end());
    options.timeZone = timeZone;
    controller.setOptions(options);
    rs::MainWindow window;
    // The Source settings dialog starts from the command line's choices; applying reloads.
    window.setLoaderOptions(controller.options());
    QObject::connect(&window, &rs::MainWindow::optionsChanged, &controller,
                     [&controller](const rs::SessionLoader::Options &o) {
                         controller.setOptions(o);
                         if (!controller.lastPaths().isEmpty())
                             controller.open(controller.lastPaths());
                     });
    // Every session is analysed as soon as it is read; an edited clock offset re-analyses it. The
    // controller drops results that a newer request has overtaken.
    rs::AnalysisController analysis;
    QObject::connect(&analysis, &rs::AnalysisController::finished, &window,
                     [&window](quint64, rs::AnalysisPtr result) { window.setAnalysis(std::move(result)); });
    QObject::connect(&window, &rs::MainWindow::clockOffsetsEdited, &analysis,
                     [&window, &analysis](const std::map<rs::RankId, rs::TimeNs> &offsets) {
                         if (window.session())
                             analysis.analyze(window.session(), rs::Analyzer::Options{offsets});
                     });
    QObject::connect(&window, &rs::MainWindow::openRequested, &controller, &rs::ImportController::open);
    QObject::connect(&window, &rs::MainWindow::cancelRequested, &controller, &rs::ImportController::cancel);
    QObject::connect(&controller, &rs::ImportController::started, &window,
                     [&window](quint64, int) { window.importStarted(); });
    QObject::connect(&controller, &rs::ImportController::progress, &window,
                     [&window](quint64, qint64 done, qint64 total, int filesDone, int fileCount) {
                         window.setImportProgress(done, total,
                                                  QObject::tr("%1 of %2 files").arg(filesDone).arg(fileCount));
                     });
    QObject::connect(&controller, &rs::ImportController::finished, &window,
                     [&window, &analysis](quint64, rs::SessionPtr session) {
                         window.importFinished();
                         window.setSession(session);
                         if (session)
                             analysis.analyze(std::move(session));
                     });
    QObject::connect(&controller, &rs::ImportController::cancelled, &window,
                     [&window](quint64) { window.importFinished(); });
    window.show();
    if (!paths.isEmpty())
        controller.open(paths);
    return app.exec();
}
