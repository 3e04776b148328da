#include "importcontroller.h"


namespace rs {

ImportController::ImportController(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<rs::SessionPtr>("rs::SessionPtr");
    m_poll.setInterval(100);
    connect(&m_poll, &QTimer::timeout, this, &ImportController::pollProgress);
}

ImportController::~ImportController()
{
    // The loader reads files the caller may delete next: stop it and let it finish before we go.
    if (m_progress)
        m_progress->cancel = true;
    if (m_jobs.isBusy())
        JobTracker::waitForPool();
}

void ImportController::open(const QStringList &paths)
{
    cancel();
    std::vector<std::string> files;
    for (const QString &p : paths)
        files.push_back(p.toStdString());
    m_lastPaths = paths;
    auto loader = std::make_shared<const SessionLoader>(std::move(files), m_options);
    auto progress = std::make_shared<SessionLoader::Progress>(loader->files().size());
    m_progress = progress;
    // On the pool like the analysis and the compare totals (JobTracker): a newer open() or a
    // cancel() makes this generation stale, and its result is dropped when it arrives. The loader
    // spreads the files over its own threads.
    const quint64 generation = m_jobs.run(
        [loader, progress] { return Loaded{loader->run(progress.get()), progress->cancel.load()}; },
        [this](const Loaded &loaded) { jobDone(loaded); });
    Q_EMIT started(generation, static_cast<int>(loader->files().size()));
    m_poll.start();
}

void ImportController::cancel()
{
    if (!m_progress)
        return;
    m_progress->cancel = true;
    m_progress.reset();
    const quint64 generation = m_jobs.generation();
    m_jobs.cancel(); // what still runs is dropped when it finishes
    m_poll.stop();
    Q_EMIT cancelled(generation);
}

void ImportController::pollProgress()
{
    if (!m_progress)
        return;
    const auto &p = *m_progress;
    Q_EMIT progress(m_jobs.generation(), p.done(), p.bytesTotal.load(), p.filesDone.load(), static_cast<int>(p.bytesDone.size()));
}

void ImportController::jobDone(const Loaded &loaded)
{
    pollProgress();
    m_progress.reset();
    m_poll.stop();
    if (loaded.cancelled) {
        Q_EMIT cancelled(m_jobs.generation());
        return;
    }
    Q_EMIT finished(m_jobs.generation(), loaded.session);
}

} // namespace rs
