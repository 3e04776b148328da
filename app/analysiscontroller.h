#pragma once
// Runs the analysis of a session off the UI thread. Each analyze() starts a new generation; a
// result that arrives after a newer request (a new session, a changed clock offset) is dropped.

#include "analyzer.h"
#include "jobtracker.h"

#include <QObject>

#include <memory>

namespace rs {

using AnalysisPtr = std::shared_ptr<const AnalysisResult>;

class AnalysisController : public QObject
{
    Q_OBJECT
public:
    explicit AnalysisController(QObject *parent = nullptr);
    ~AnalysisController() override;

    quint64 generation() const { return m_jobs.generation(); }
    bool isBusy() const { return m_jobs.isBusy(); }
    /// An analysis was asked for and its result is still to come.
    bool isPending() const { return m_jobs.isPending(); }
    /// The newest delivered result (null before the first).
    AnalysisPtr result() const { return m_result; }

public Q_SLOTS:
    /// Analyses `session` with `options` in the background.
    void analyze(rs::SessionPtr session, const rs::Analyzer::Options &options = {});
    /// Drops the running analysis: its result is never delivered (the pool finishes the work).
    void cancel();

Q_SIGNALS:
    void started(quint64 generation);
    void finished(quint64 generation, rs::AnalysisPtr result);

private:
    JobTracker m_jobs{this};
    AnalysisPtr m_result;
};

} // namespace rs

Q_DECLARE_METATYPE(rs::AnalysisPtr)
