#pragma once
// Runs imports in the background for the GUI, on the thread pool through JobTracker (like the
// analysis and the compare totals). Each open() starts a new generation; results of an older
// generation are dropped when they arrive, so a slow stale load never replaces a newer one.

#include "jobtracker.h"
#include "sessionloader.h"

#include <QObject>
#include <QStringList>
#include <QTimer>

#include <map>
#include <memory>

namespace rs {

class ImportController : public QObject
{
    Q_OBJECT
public:
    explicit ImportController(QObject *parent = nullptr);
    ~ImportController() override;

    /// Rank overrides (path → rank) applied to every later load.
    void setRankOverrides(std::map<std::string, RankId> overrides) { m_options.rankOverrides = std::move(overrides); }
    /// Everything the user decided about the inputs (ranks, rank maps, time zone), for later loads.
    void setOptions(SessionLoader::Options options) { m_options = std::move(options); }
    const SessionLoader::Options &options() const { return m_options; }
    /// Paths of the newest load, to load again with changed options.
    const QStringList &lastPaths() const { return m_lastPaths; }
    /// Generation of the newest load (0 before the first).
    quint64 generation() const { return m_jobs.generation(); }
    bool isBusy() const { return m_progress != nullptr; }

public Q_SLOTS:
    /// Starts loading `paths` (files or folders). A load already running is cancelled.
    void open(const QStringList &paths);
    /// Stops the running load; its partial result is discarded.
    void cancel();

Q_SIGNALS:
    void started(quint64 generation, int fileCount);
    /// Throttled (~10 Hz): bytes consumed over all files, their total, and files finished.
    void progress(quint64 generation, qint64 bytesDone, qint64 bytesTotal, int filesDone, int fileCount);
    void finished(quint64 generation, rs::SessionPtr session);
    void cancelled(quint64 generation);

private:
    struct Loaded {
        SessionPtr session;
        bool cancelled = false;
    };
    void pollProgress();
    void jobDone(const Loaded &loaded);

    SessionLoader::Options m_options;
    QStringList m_lastPaths;
    std::shared_ptr<SessionLoader::Progress> m_progress; // of the newest load while it runs
    JobTracker m_jobs{this};
    QTimer m_poll;
};

} // namespace rs
