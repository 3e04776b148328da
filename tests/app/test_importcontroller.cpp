// ImportController: background loads, generation ids that drop stale results, cancel, progress.

#include "importcontroller.h"
#include "testtrace.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <thread>

namespace {

QString writeTrace(const QTemporaryDir &dir, const QString &name, const std::string &bytes)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(bytes.data(), qint64(bytes.size()));
    return path;
}

} // namespace

class TestImportController : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void loadsInBackground();
    void newerOpenDropsOlderResult();
    void cancelStopsQuickly();
};

void TestImportController::loadsInBackground()
{
    QTemporaryDir dir;
    QStringList paths;
    for (int r = 0; r < 4; ++r)
        paths << writeTrace(dir, QStringLiteral("t%1.json").arg(r), rs::test::kinetoTrace(r, 4, 3));
    rs::ImportController c;
    QSignalSpy started(&c, &rs::ImportController::started);
    QSignalSpy finished(&c, &rs::ImportController::finished);
    c.open(paths);
    QCOMPARE(started.count(), 1);
    QCOMPARE(started[0][1].toInt(), 4);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished[0][0].toULongLong(), c.generation());
    const auto session = finished[0][1].value<rs::SessionPtr>();
    QVERIFY(session);
    QCOMPARE(session->ranks().size(), std::size_t(4));
    for (int r = 0; r < 4; ++r) {
        QCOMPARE(session->ranks()[std::size_t(r)].id, r);
        QCOMPARE(session->ranks()[std::size_t(r)].steps.size(), std::size_t(3));
    }
    QVERIFY(!c.isBusy());
}

void TestImportController::newerOpenDropsOlderResult()
{
    QTemporaryDir dir;
    const QString a = writeTrace(dir, QStringLiteral("a.json"), rs::test::kinetoTrace(0, 2, 200));
    const QString b = writeTrace(dir, QStringLiteral("b.json"), rs::test::kinetoTrace(1, 2, 1));
    rs::ImportController c;
    QSignalSpy finished(&c, &rs::ImportController::finished);
    QSignalSpy cancelled(&c, &rs::ImportController::cancelled);
    c.open({a});
    const quint64 first = c.generation();
    c.open({b});
    const quint64 second = c.generation();
    QVERIFY(second > first);
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(cancelled[0][0].toULongLong(), first);
    QVERIFY(finished.wait(10000));
    QTest::qWait(200); // give a stale result time to arrive, so we can see it is dropped
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished[0][0].toULongLong(), second);
    const auto session = finished[0][1].value<rs::SessionPtr>();
    QCOMPARE(session->ranks().size(), std::size_t(1));
    QCOMPARE(session->ranks()[0].id, 1);
}

void TestImportController::cancelStopsQuickly()
{
    QTemporaryDir dir;
    // ~60 MB of events: long enough that cancel lands mid-file.
    const QString big = writeTrace(dir, QStringLiteral("big.json"), rs::test::kinetoTrace(0, 1, 80000));
    rs::SessionLoader loader({big.toStdString()});
    rs::SessionLoader::Progress progress(loader.files().size());
    rs::SessionPtr session;
    std::thread worker([&] { session = loader.run(&progress); });
    while (progress.done() == 0)
        QThread::msleep(1);
    QElapsedTimer t;
    t.start();
    progress.cancel = true;
    worker.join();
    const qint64 stoppedAfterMs = t.elapsed();
    QVERIFY2(stoppedAfterMs < 300, qPrintable(QStringLiteral("stopped after %1 ms").arg(stoppedAfterMs)));
    QVERIFY(progress.done() < progress.bytesTotal.load());
    // The partial result says it was cancelled.
    QCOMPARE(session->sources().size(), std::size_t(1));
    const auto &diags = session->sources()[0].diagnostics;
    QVERIFY(std::any_of(diags.begin(), diags.end(), [](const rs::Diagnostic &d) {
        return d.message.find("cancelled") != std::string::npos;
    }));

    // Through the controller: cancel() reports at once and no result is delivered.
    rs::ImportController c;
    QSignalSpy finished(&c, &rs::ImportController::finished);
    QSignalSpy cancelled(&c, &rs::ImportController::cancelled);
    c.open({big});
    c.cancel();
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!c.isBusy());
    QTest::qWait(400);
    QCOMPARE(finished.count(), 0);
}

QTEST_GUILESS_MAIN(TestImportController)
#include "test_importcontroller.moc"
