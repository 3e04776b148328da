// JobTracker: only the newest generation's result is delivered, on the owner's thread; stale and
// cancelled results are dropped; an owner destroyed while its job runs is not called back.
// Workers are held on semaphores, not sleeps, so the order of finishing is the test's choice.

#include "jobtracker.h"

#include <QSemaphore>
#include <QThread>
#include <QtTest>

#include <memory>
#include <vector>

using namespace rs;

namespace {

struct Owner : QObject {
    JobTracker jobs{this};
    std::vector<int> delivered;
    std::vector<QThread *> threads;
};

// A job that returns `value` once `gate` is released.
auto gatedJob(std::shared_ptr<QSemaphore> gate, int value)
{
    return [gate, value] {
        gate->acquire();
        return value;
    };
}

} // namespace

class TestJobTracker : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void newestWinsWhicheverFinishesFirst_data();
    void newestWinsWhicheverFinishesFirst();
    void cancelDropsWhatIsInFlight();
    void destroyedOwnerIsNotCalledBack();
    void generationsCount();
};

void TestJobTracker::newestWinsWhicheverFinishesFirst_data()
{
    QTest::addColumn<bool>("staleFinishesFirst");
    QTest::newRow("stale job finishes first") << true;
    QTest::newRow("stale job finishes last") << false;
}

void TestJobTracker::newestWinsWhicheverFinishesFirst()
{
    QFETCH(bool, staleFinishesFirst);
    Owner owner;
    auto gateOld = std::make_shared<QSemaphore>(), gateNew = std::make_shared<QSemaphore>();
    auto record = [&owner](int v) {
        owner.delivered.push_back(v);
        owner.threads.push_back(QThread::currentThread());
    };
    std::vector<int> dropped;
    owner.jobs.run(gatedJob(gateOld, 1), record, [&dropped](int v) { dropped.push_back(v); });
    owner.jobs.run(gatedJob(gateNew, 2), record, [&dropped](int v) { dropped.push_back(v); });
    QVERIFY(owner.jobs.isBusy());
    QVERIFY(owner.jobs.isPending());
    (staleFinishesFirst ? gateOld : gateNew)->release();
    if (staleFinishesFirst) { // dropped at once; the newest still runs
        QTRY_COMPARE(dropped.size(), std::size_t(1));
        QVERIFY(owner.jobs.isPending());
    } else { // delivered before the stale one ends
        QTRY_COMPARE(owner.delivered.size(), std::size_t(1));
        QVERIFY(!owner.jobs.isPending());
        QVERIFY(owner.jobs.isBusy());
    }
    (staleFinishesFirst ? gateNew : gateOld)->release();
    QTRY_VERIFY(!owner.jobs.isBusy());
    QVERIFY(!owner.jobs.isPending());
    QCOMPARE(owner.delivered, std::vector<int>{2});
    QCOMPARE(dropped, std::vector<int>{1});
    QCOMPARE(owner.threads.front(), owner.thread());
}

void TestJobTracker::cancelDropsWhatIsInFlight()
{
    Owner owner;
    auto gate = std::make_shared<QSemaphore>();
    owner.jobs.run(gatedJob(gate, 7), [&owner](int v) { owner.delivered.push_back(v); });
    QVERIFY(owner.jobs.isPending());
    const quint64 after = owner.jobs.cancel();
    QVERIFY(owner.jobs.isCurrent(after));
    QVERIFY(!owner.jobs.isPending()); // nothing of the newest generation runs
    QVERIFY(owner.jobs.isBusy());
    gate->release();
    QTRY_VERIFY(!owner.jobs.isBusy());
    QVERIFY(owner.delivered.empty());
    // A run after the cancel is delivered again.
    owner.jobs.run([] { return 8; }, [&owner](int v) { owner.delivered.push_back(v); });
    QTRY_COMPARE(owner.delivered, std::vector<int>{8});
}

void TestJobTracker::destroyedOwnerIsNotCalledBack()
{
    auto called = std::make_shared<bool>(false);
    auto gate = std::make_shared<QSemaphore>();
    auto *owner = new Owner;
    owner->jobs.run(gatedJob(gate, 3), [called](int) { *called = true; });
    delete owner;
    gate->release();
    JobTracker::waitForPool();
    QCoreApplication::processEvents();
    QTest::qWait(20);
    QVERIFY(!*called);
}

void TestJobTracker::generationsCount()
{
    Owner owner;
    QCOMPARE(owner.jobs.generation(), quint64(0));
    const quint64 a = owner.jobs.run([] { return 1; }, [](int) {});
    const quint64 b = owner.jobs.run([] { return 2; }, [](int) {});
    QCOMPARE(a, quint64(1));
    QCOMPARE(b, quint64(2));
    QVERIFY(!owner.jobs.isCurrent(a));
    QVERIFY(owner.jobs.isCurrent(b));
    QTRY_VERIFY(!owner.jobs.isBusy());
}

QTEST_GUILESS_MAIN(TestJobTracker)
#include "test_jobtracker.moc"
