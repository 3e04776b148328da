// Views subscribe to the incident (SessionContext): each gets a new session, then "no analysis",
// then the analysis, in the order they subscribed; pinned lanes are view state that signals.

#include "sessioncontext.h"
#include "sessionbuilder.h"
#include "viewstate.h"

#include <QSignalSpy>
#include <QTest>

#include <string>
#include <vector>

using namespace rs;

namespace {

// A view that writes down what it was given.
class Recorder : public QObject
{
public:
    Recorder(std::string name, std::vector<std::string> &log)
        : m_name(std::move(name))
        , m_log(log)
    {
    }
    void setSession(const SessionPtr &s) { m_log.push_back(m_name + (s ? ":session" : ":no session")); }
    void setAnalysis(const std::shared_ptr<const AnalysisResult> &a) { m_log.push_back(m_name + (a ? ":analysis" : ":no analysis")); }

private:
    std::string m_name;
    std::vector<std::string> &m_log;
};

} // namespace

class TestSessionContext : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void viewsReceiveSessionThenAnalysisInOrder();
    void pinnedLanesSignalOnChange();
};

void TestSessionContext::viewsReceiveSessionThenAnalysisInOrder()
{
    std::vector<std::string> log;
    SessionContext context;
    Recorder a("a", log), b("b", log);
    context.subscribeSession(&a);
    context.subscribeSession(&b);
    context.subscribeAnalysis(&b); // b wants its analysis before a's
    context.subscribeAnalysis(&a);
    const SessionPtr session = SessionBuilder().freeze();
    context.setSession(session);
    QCOMPARE(log, (std::vector<std::string>{"a:session", "b:session", "b:no analysis", "a:no analysis"}));
    QCOMPARE(context.session(), session);
    log.clear();
    context.setAnalysis(std::make_shared<AnalysisResult>());
    QCOMPARE(log, (std::vector<std::string>{"b:analysis", "a:analysis"}));
    // A new session voids the analysis.
    log.clear();
    context.setSession(nullptr);
    QVERIFY(!context.analysis());
    QCOMPARE(log.back(), std::string("a:no analysis"));
}

void TestSessionContext::pinnedLanesSignalOnChange()
{
    ViewState state;
    QSignalSpy pinned(&state, &ViewState::pinnedLanesChanged);
    state.setLanePinned(3, QStringLiteral("memory"), kNoTrack, true);
    state.setLanePinned(3, QStringLiteral("memory"), kNoTrack, true); // no change
    state.setLanePinned(700, QStringLiteral("spans"), 12, true);
    QCOMPARE(pinned.size(), 2);
    QCOMPARE(state.pinnedLanes().size(), std::size_t(2));
    QVERIFY(state.isLanePinned(700, QStringLiteral("spans"), 12));
    QVERIFY(!state.isLanePinned(700, QStringLiteral("spans"), 13));
    state.setLanePinned(3, QStringLiteral("memory"), kNoTrack, false);
    QCOMPARE(state.pinnedLanes().front().rank, RankId(700)); // order kept
    state.setPinnedLanes({});
    QVERIFY(state.pinnedLanes().empty());
    QCOMPARE(pinned.size(), 4);
}

QTEST_GUILESS_MAIN(TestSessionContext)
#include "test_sessioncontext.moc"
