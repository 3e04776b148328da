#include "importcontroller.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>

#include <thread>

namespace rs {

struct ImportController::Job {
    quint64 generation = 0;
    std::unique_ptr<SessionLoader> loader;
    std::unique_ptr<SessionLoader::Progress> progress;
    std::thread thread;

    ~Job()
    {
        // The last owner may be the posted result event destroyed at shutdown, or (never in
        // practice) the worker itself; never destroy a joinable std::thread.
        if (thread.joinable()) {
            if (thread.get_id() == std::this_thread::get_id())
                thread.detach();
            else
                thread.join();
        }
    }
};

ImportController::ImportController(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<rs::SessionPtr>("rs::SessionPtr");
    m_poll.setInterval(100);
    connect(&m_poll, &QTimer::timeout, this, &ImportController::pollProgress);
}

ImportController::~ImportController()
{
    // Cancelled jobs finish on their own threads; wait for the current one so nothing outlives us.
    if (m_running) {
        m_running->progress->cancel = true;
        if (m_running->thread.joinable())
            m_running->thread.join();
    }
}

void ImportController::open(const QStringList &paths)
{
    cancel();
    std::vector<std::string> files;
    for (const QString &p : paths)
        files.push_back(p.toStdString());
    auto job = std::make_shared<Job>();
    job->generation = ++m_generation;
    m_lastPaths = paths;
    job->loader = std::make_unique<SessionLoader>(std::move(files), m_options);
    job->progress = std::make_unique<SessionLoader::Progress>(job->loader->files().size());
    m_running = job;
    Q_EMIT started(job->generation, static_cast<int>(job->loader->files().size()));
    QPointer<ImportController> self(this);
    // The job keeps itself alive (shared_ptr captured) until its result has been delivered.
    job->thread = std::thread([job, self] {
        SessionPtr session = job->loader->run(job->progress.get());
        const bool wasCancelled = job->progress->cancel.load();
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [job, self, session, wasCancelled] {
                if (job->thread.joinable())
                    job->thread.join();
                if (self)
                    self->jobDone(job->generation, session, wasCancelled);
            },
            Qt::QueuedConnection);
    });
    m_poll.start();
}

void ImportController::cancel()
{
    if (!m_running)
        return;
    m_running->progress->cancel = true;
    const quint64 gen = m_running->generation;
    // Detach from the stale job: its result will be dropped by the generation check.
    m_running.reset();
    m_poll.stop();
    Q_EMIT cancelled(gen);
}

void ImportController::pollProgress()
{
    if (!m_running)
        return;
    const auto &p = *m_running->progress;
    Q_EMIT progress(m_running->generation, p.done(), p.bytesTotal.load(), p.filesDone.load(),
                    static_cast<int>(p.bytesDone.size()));
}

void ImportController::jobDone(quint64 generation, SessionPtr session, bool wasCancelled)
{
    if (generation != m_generation || !m_running || m_running->generation != generation)
        return; // stale: a newer open() or a cancel() superseded it
    pollProgress();
    m_running.reset();
    m_poll.stop();
    if (wasCancelled) {
        Q_EMIT cancelled(generation);
        return;
    }
    Q_EMIT finished(generation, std::move(session));
}

} // namespace rs
