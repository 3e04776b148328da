// The status bar's task list: the newest task is the one shown; progress from a pool thread
// arrives on the monitor's thread and is dropped once the task ended; Cancel sets the work's stop
// flag, says so before the task's own cancel function speaks, and refuses a task that cannot stop.

#include "taskmonitor.h"

#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace rs;

class TestTaskMonitor : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void newestIsCurrent()
    {
        TaskMonitor tasks;
        QSignalSpy changed(&tasks, &TaskMonitor::changed);
        QVERIFY(!tasks.current());
        const auto a = tasks.begin(QStringLiteral("Reading…"), [] {});
        const auto b = tasks.begin(QStringLiteral("Analysing 4 ranks…"));
        QCOMPARE(tasks.current()->id, b);
        QVERIFY(!tasks.current()->cancellable);
        tasks.setProgress(a, 5, 10, QStringLiteral("Reading rank-0.json…"));
        QCOMPARE(tasks.tasks().front().label, QStringLiteral("Reading rank-0.json…"));
        QCOMPARE(tasks.tasks().front().done, qint64(5));
        tasks.end(b);
        QCOMPARE(tasks.current()->id, a);
        tasks.end(b); // twice: nothing
        tasks.end(a);
        QVERIFY(!tasks.current());
        QCOMPARE(changed.size(), 5);
    }

    void progressFromAnotherThread()
    {
        TaskMonitor tasks;
        const auto id = tasks.begin(QStringLiteral("Writing merged.json…"), [] {});
        const TaskControl control = tasks.control(id);
        QThread *worker = QThread::create([control] { control.report(3, 0, QStringLiteral("Writing merged.json: 3 MB of JSON…")); });
        worker->start();
        QVERIFY(worker->wait(5000));
        delete worker;
        QCOMPARE(tasks.current()->done, qint64(0)); // queued, not applied from the worker
        QTRY_COMPARE(tasks.current()->done, qint64(3));
        QCOMPARE(tasks.current()->label, QStringLiteral("Writing merged.json: 3 MB of JSON…"));
        tasks.end(id);
        control.report(9, 10); // after the end: dropped
        QCoreApplication::processEvents();
        QVERIFY(!tasks.current());
    }

    void cancelStopsTheWork()
    {
        TaskMonitor tasks;
        QStringList said;
        connect(&tasks, &TaskMonitor::cancelled, this, [&said](TaskMonitor::Id, const QString &label) { said << QStringLiteral("cancelled ") + label; });
        const auto id = tasks.begin(QStringLiteral("Exporting view.png…"), [&said] { said << QStringLiteral("cancel function"); });
        const TaskControl control = tasks.control(id);
        QVERIFY(!control.stopped());
        QVERIFY(tasks.cancel(id));
        QVERIFY(control.stopped());
        QVERIFY(!tasks.isRunning(id));
        QCOMPARE(said, (QStringList{QStringLiteral("cancelled Exporting view.png…"), QStringLiteral("cancel function")}));
        QVERIFY(!tasks.cancel(id)); // ended already
        const auto fixed = tasks.begin(QStringLiteral("Hashing…"));
        QVERIFY(!tasks.cancel(fixed)); // no way to stop it
        QVERIFY(tasks.isRunning(fixed));
        QVERIFY(!tasks.control(fixed).stopped());
    }
};

QTEST_GUILESS_MAIN(TestTaskMonitor)
#include "test_taskmonitor.moc"
