// AnalysisController: analysis off the UI thread, newest request wins, overrides reach the result.

#include "analysiscontroller.h"
#include "sessionloader.h"
#include "testtrace.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TestAnalysisController : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void newestRequestWins();
};

void TestAnalysisController::newestRequestWins()
{
    QTemporaryDir dir;
    std::vector<std::string> paths;
    for (int r = 0; r < 3; ++r) {
        const QString p = dir.filePath(QStringLiteral("t%1.json").arg(r));
        QFile f(p);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const std::string bytes = rs::test::kinetoTrace(r, 3, 4);
        f.write(bytes.data(), qint64(bytes.size()));
        paths.push_back(p.toStdString());
    }
    const rs::SessionPtr session = rs::SessionLoader(paths).run();
    QCOMPARE(session->ranks().size(), std::size_t(3));

    rs::AnalysisController c;
    QSignalSpy finished(&c, &rs::AnalysisController::finished);
    c.analyze(session);
    rs::Analyzer::Options overrides;
    overrides.clockOffsets[1] = 5'000'000;
    c.analyze(session, overrides);
    QVERIFY(finished.wait(10000));
    QTest::qWait(100); // a stale first result would arrive around now; it must be dropped
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished[0][0].toULongLong(), c.generation());
    const auto result = finished[0][1].value<rs::AnalysisPtr>();
    QCOMPARE(result->alignment.size(), std::size_t(3));
    QCOMPARE(result->offsetOf(1), rs::TimeNs(5'000'000));
    QCOMPARE(result->alignment[1].method, rs::AlignmentMethod::User);
    QCOMPARE(result->metrics[2].steps.value_or(0), std::int64_t(4));
    QCOMPARE(c.result(), result);
    QVERIFY(!c.isBusy());
}

QTEST_GUILESS_MAIN(TestAnalysisController)
#include "test_analysiscontroller.moc"
