#include "analysiscontroller.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace rs {

AnalysisController::AnalysisController(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<rs::AnalysisPtr>("rs::AnalysisPtr");
}

AnalysisController::~AnalysisController()
{
    // Watchers are children: destroying them does not wait, and their results are dropped.
    QThreadPool::globalInstance()->waitForDone();
}

void AnalysisController::analyze(SessionPtr session, const Analyzer::Options &options)
{
    const quint64 gen = ++m_generation;
    ++m_pending;
    Q_EMIT started(gen);
    auto *watcher = new QFutureWatcher<AnalysisPtr>(this);
    connect(watcher, &QFutureWatcher<AnalysisPtr>::finished, this, [this, watcher, gen] {
        --m_pending;
        const AnalysisPtr r = watcher->result();
        watcher->deleteLater();
        if (gen != m_generation)
            return; // superseded
        m_result = r;
        Q_EMIT finished(gen, r);
    });
    // The session is shared read-only, so the worker may hold it while the UI keeps using it.
    watcher->setFuture(QtConcurrent::run([session, options]() -> AnalysisPtr {
        if (!session)
            return std::make_shared<AnalysisResult>();
        return std::make_shared<AnalysisResult>(Analyzer::run(*session, options));
    }));
}

} // namespace rs
