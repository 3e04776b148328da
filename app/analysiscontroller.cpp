#include "analysiscontroller.h"

namespace rs {

AnalysisController::AnalysisController(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<rs::AnalysisPtr>("rs::AnalysisPtr");
}

AnalysisController::~AnalysisController()
{
    // Watchers are children: destroying them does not wait, and their results are dropped.
    JobTracker::waitForPool();
}

void AnalysisController::analyze(SessionPtr session, const Analyzer::Options &options)
{
    // The session is shared read-only, so the worker may hold it while the UI keeps using it.
    const quint64 gen = m_jobs.run(
        [session, options]() -> AnalysisPtr {
            if (!session)
                return std::make_shared<AnalysisResult>();
            return std::make_shared<AnalysisResult>(Analyzer::run(*session, options));
        },
        [this](const AnalysisPtr &r) {
            m_result = r;
            Q_EMIT finished(m_jobs.generation(), r);
        });
    // Queued: the result of this generation cannot arrive before its start is announced.
    Q_EMIT started(gen);
}

void AnalysisController::cancel()
{
    m_jobs.cancel();
}

} // namespace rs
