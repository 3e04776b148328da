#include "application.h"

#include "taskmonitor.h"

#include <utility>

namespace rs {

Application::Application(const SessionLoader::Options &options, QObject *parent)
    : QObject(parent)
{
    m_import.setOptions(options);
    // The Source settings dialog starts from the command line's choices; applying reloads.
    m_window.setLoaderOptions(m_import.options());
    connect(&m_window, &MainWindow::importCacheChanged, this, [this](bool enabled, qint64 maxBytes) {
        SessionLoader::Options o = m_import.options();
        o.cache = enabled;
        o.cacheMaxBytes = maxBytes;
        m_import.setOptions(o);
    });
    connect(&m_window, &MainWindow::optionsChanged, this, [this](const SessionLoader::Options &o) {
        m_import.setOptions(o);
        if (!m_import.lastPaths().isEmpty())
            m_import.open(m_import.lastPaths());
    });

    // Every session is analysed as soon as it is read; an edited clock offset re-analyses it. The
    // controller drops results that a newer request has overtaken.
    // The analysis shows in the status bar's task list; Cancel drops it and the window says how to
    // run it again (View ▸ Analyse Again).
    connect(&m_analysis, &AnalysisController::started, this, [this](quint64) {
        m_window.tasks()->end(m_analysisTask);
        const std::size_t ranks = m_window.session() ? m_window.session()->ranks().size() : 0;
        m_analysisTask = m_window.tasks()->begin(ranks == 1 ? tr("Analysing 1 rank…") : tr("Analysing %1 ranks…").arg(ranks), [this] {
            m_analysis.cancel();
            m_window.analysisCancelled();
        });
    });
    connect(&m_window, &MainWindow::analysisRequested, this, [this] {
        if (m_window.session())
            m_analysis.analyze(m_window.session(), Analyzer::Options{m_window.clockOffsetOverrides()});
    });
    connect(&m_analysis, &AnalysisController::finished, this, [this](quint64, AnalysisPtr result) {
        m_window.tasks()->end(std::exchange(m_analysisTask, 0));
        m_window.setAnalysis(std::move(result));
        Q_EMIT ready();
    });
    connect(&m_window, &MainWindow::clockOffsetsEdited, this, [this](const std::map<RankId, TimeNs> &offsets) {
        if (m_window.session())
            m_analysis.analyze(m_window.session(), Analyzer::Options{offsets});
    });

    connect(&m_window, &MainWindow::openRequested, &m_import, &ImportController::open);
    connect(&m_window, &MainWindow::cancelRequested, &m_import, &ImportController::cancel);
    connect(&m_import, &ImportController::started, &m_window, [this](quint64, int) { m_window.importStarted(); });
    connect(&m_import, &ImportController::progress, &m_window,
            [this](quint64, qint64 done, qint64 total, int filesDone, int fileCount) {
                m_window.setImportProgress(done, total, tr("%1 of %2 files").arg(filesDone).arg(fileCount));
            });
    connect(&m_import, &ImportController::finished, this, [this](quint64, SessionPtr session) {
        m_window.importFinished();
        m_window.setSession(session);
        // A reopened session file brings clock-offset overrides: the first analysis honours them.
        if (session)
            m_analysis.analyze(std::move(session), Analyzer::Options{m_window.clockOffsetOverrides()});
    });
    connect(&m_import, &ImportController::cancelled, &m_window, [this](quint64) { m_window.importFinished(); });

    // Session files: reading one resolves its sources, then loads them with its rank choices;
    // saving hashes the sources in the background.
    connect(&m_window, &MainWindow::openSessionFileRequested, &m_files, [this](const QString &path) { m_files.open(path); });
    connect(&m_files, &SessionFileController::opened, this,
            [this](const QString &path, const SessionDocument &doc, const SessionDocument::Resolution &resolution) {
                // Files outside the session's folder are read only when the user says so.
                QStringList outside;
                for (const auto &p : resolution.problems)
                    if (p.kind == SessionDocument::Problem::Kind::Outside)
                        outside << QString::fromStdString(p.foundAt);
                if (!outside.isEmpty()) {
                    m_window.askOutsideSources(path, outside, [this, path, doc, resolution](bool open) {
                        if (open)
                            m_files.open(path, true);
                        else
                            loadSessionSources(path, doc, resolution);
                    });
                    return;
                }
                loadSessionSources(path, doc, resolution);
            });
    connect(&m_files, &SessionFileController::saved, &m_window, &MainWindow::sessionFileSaved);
    connect(&m_files, &SessionFileController::failed, &m_window, &MainWindow::sessionFileFailed);
    connect(&m_window, &MainWindow::saveSessionRequested, this, [this](const QString &path, const SessionDocument &state) {
        m_files.save(path, m_window.session(), m_import.options(), state);
    });
}

void Application::loadSessionSources(const QString &path, const SessionDocument &doc, const SessionDocument::Resolution &resolution)
{
    if (resolution.paths.empty()) {
        m_window.sessionFileFailed(tr("%1: none of its %2 sources could be opened").arg(path).arg(doc.sources.size()));
        return;
    }
    m_window.sessionFileOpened(path, doc, resolution.problems);
    m_import.setOptions(resolution.options);
    m_window.setLoaderOptions(resolution.options);
    QStringList paths;
    for (const auto &p : resolution.paths)
        paths << QString::fromStdString(p);
    m_import.open(paths);
}

void Application::open(const QStringList &paths)
{
    // Inputs named on the command line are as recent as those picked in a dialog.
    m_window.rememberRecent(paths);
    if (paths.size() == 1 && SessionDocument::looksLikeSessionFile(paths.front()))
        m_files.open(paths.front());
    else if (!paths.isEmpty()) {
        m_window.beginNewIncident();
        m_import.open(paths);
    }
}

} // namespace rs
