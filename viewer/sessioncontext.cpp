#include "sessioncontext.h"

namespace rs {

SessionContext::SessionContext(QObject *parent)
    : QObject(parent)
{
}

void SessionContext::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_analysis.reset();
    Q_EMIT sessionChanged(m_session);
    Q_EMIT analysisChanged(m_analysis);
}

void SessionContext::setAnalysis(AnalysisPtr analysis)
{
    m_analysis = std::move(analysis);
    Q_EMIT analysisChanged(m_analysis);
}

} // namespace rs
