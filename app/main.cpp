// rankscope: the viewer, or a headless subcommand (inspect) when the first argument names one.

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
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--assign-rank") && i + 1 < args.size()) {
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
    controller.setRankOverrides(std::map<std::string, rs::RankId>(assign.begin(), assign.end()));
    rs::MainWindow window;
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
                     [&window](quint64, rs::SessionPtr session) {
                         window.importFinished();
                         window.setSession(std::move(session));
                     });
    QObject::connect(&controller, &rs::ImportController::cancelled, &window,
                     [&window](quint64) { window.importFinished(); });
    window.show();
    if (!paths.isEmpty())
        controller.open(paths);
    return app.exec();
}
