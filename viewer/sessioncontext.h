#pragma once
// The incident being looked at, as one object views subscribe to: the frozen session and its
// analysis. MainWindow sets them once; every view that shows them has connected to the signals
// when it was wired up (subscribeSession(), subscribeAnalysis()), so adding a view is a connection, not another line in each
// of the window's set-functions. A new session always comes first with no analysis (the old
// one's findings are void); the analysis follows when it is ready.

#include "analysisresult.h"
#include "session.h"

#include <QObject>

#include <memory>

namespace rs {

class SessionContext : public QObject
{
    Q_OBJECT
public:
    using AnalysisPtr = std::shared_ptr<const AnalysisResult>;

    explicit SessionContext(QObject *parent = nullptr);

    SessionPtr session() const { return m_session; }
    AnalysisPtr analysis() const { return m_analysis; }

    /// Shows `session` (null: none): sessionChanged, then analysisChanged(nullptr).
    void setSession(SessionPtr session);
    /// The analysis of the current session (null: none yet).
    void setAnalysis(AnalysisPtr analysis);

    /// Feeds `view` every session (view->setSession), in the order views subscribed.
    template <typename View>
    void subscribeSession(View *view)
    {
        connect(this, &SessionContext::sessionChanged, view, [view](const SessionPtr &s) { view->setSession(s); });
    }
    /// Feeds `view` every analysis (view->setAnalysis), in the order views subscribed.
    template <typename View>
    void subscribeAnalysis(View *view)
    {
        connect(this, &SessionContext::analysisChanged, view, [view](const AnalysisPtr &a) { view->setAnalysis(a); });
    }

Q_SIGNALS:
    void sessionChanged(const rs::SessionPtr &session);
    void analysisChanged(const std::shared_ptr<const rs::AnalysisResult> &analysis);

private:
    SessionPtr m_session;
    AnalysisPtr m_analysis;
};

} // namespace rs
