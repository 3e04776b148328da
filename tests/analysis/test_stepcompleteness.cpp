// Cut-off steps: a rank's last step is incomplete when its failure (OOM message, the profiler's
// [OutOfMemory] marker, a watchdog timeout) falls inside it, when the trace ends inside its span,
// or when its trace ends with it while a peer's same step lasts longer; near misses (a healthy
// profiler stop, a failure after the trace or on another rank) keep every step complete. An
// incomplete step is left out of the step time (median, MAD) and of step-based alignment.

#include "clockalignment.h"
#include "importerregistry.h"
#include "rankmetrics.h"
#include "sessionfixture.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

// Three ranks with steps 10..13 of one second from kT0, each trace ending 5 ms after its last
// step. `cut` makes rank 1 stop 460 ms into step 13: its step ends there and so does its trace.
// `failure` places rank `failRank`'s failure at kT0 + `failAtMs`.
enum class Failure { None, OomMessage, OomInstant, Watchdog };

SessionPtr job(bool cut, Failure failure, RankId failRank, TimeNs failAtMs, bool fastRank = false)
{
    std::vector<SourceBuilder> src;
    for (RankId r = 0; r < 3; ++r) {
        RankTrace t(r);
        const bool stops = cut && r == 1;
        for (int s = 0; s < 4; ++s) {
            // `fastRank`: rank 1 runs every step in 460 ms (a faster GPU) and its trace ends with
            // its last step, like the cut-off rank's, but that step is as long as its others.
            const TimeNs duration = (stops && s == 3) || (fastRank && r == 1) ? 460 * kMs : kSec - kMs;
            t.step(10 + s, kT0 + s * kSec, duration);
        }
        const TimeNs end = stops || (fastRank && r == 1) ? kT0 + 3 * kSec + 460 * kMs : kT0 + 4 * kSec + 4 * kMs;
        t.span(t.cpu(), "aten::add", end - kMs, kMs);
        if (failure == Failure::OomInstant && r == failRank)
            t.oomInstant(kT0 + failAtMs * kMs);
        src.push_back(t.take());
    }
    JobLog log;
    log.builder().source().hasClock = true; // its records carry wall-clock stamps, as a real log's do
    if (failure == Failure::OomMessage)
        log.oom(oomEvent(failRank, kT0 + failAtMs * kMs, 2 * kGiB, 80 * kGiB, 77 * kGiB, 78 * kGiB));
    if (failure == Failure::Watchdog) {
        WatchdogTimeout w;
        w.rank = failRank;
        w.seq = 67;
        w.opType = "ALLREDUCE";
        w.time = kT0 + failAtMs * kMs;
        w.line = log.record(failRank, "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=67, OpType=ALLREDUCE)",
                            0, LogKind::PyTorch, LogLevel::Error, w.time);
        log.logs().timeouts.push_back(w);
    }
    log.record(0, "training started", 0, LogKind::Other, LogLevel::Info, kT0 - kSec);
    src.push_back(log.take());
    return freeze(std::move(src));
}

// Which steps of `rank` are incomplete, as step numbers.
QList<qint64> incompleteOf(const Session &s, RankId rank)
{
    QList<qint64> out;
    if (const Rank *r = s.rank(rank))
        for (const Step &st : r->steps)
            if (st.incomplete)
                out << st.number;
    return out;
}

} // namespace

class TestStepCompleteness : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void lastStep_data();
    void lastStep();
    void stepTimeLeavesItOut();
    void unterminatedSpan();
};

void TestStepCompleteness::lastStep_data()
{
    QTest::addColumn<bool>("cut");
    QTest::addColumn<int>("failure");
    QTest::addColumn<int>("failRank");
    QTest::addColumn<qint64>("failAtMs");
    QTest::addColumn<int>("rank");             // the rank checked
    QTest::addColumn<QList<qint64>>("incomplete");
    QTest::addColumn<bool>("fastRank");
    const int none = int(Failure::None), message = int(Failure::OomMessage), instant = int(Failure::OomInstant),
              watchdog = int(Failure::Watchdog);
    QTest::newRow("oom message inside step 13") << false << message << 1 << qint64(3300) << 1 << QList<qint64>{13} << false;
    QTest::newRow("oom marker inside step 12") << false << instant << 2 << qint64(2500) << 2 << QList<qint64>{12} << false;
    QTest::newRow("watchdog timeout inside step 13") << false << watchdog << 0 << qint64(3900) << 0 << QList<qint64>{13} << false;
    // The rank stopped 460 ms into step 13, where its trace ends; its peers' step 13 took a second.
    QTest::newRow("trace ends in the step, peers go on") << true << none << 0 << qint64(0) << 1 << QList<qint64>{13} << false;
    // An OOM reported after the step closed but before the trace's last event is still inside it.
    QTest::newRow("oom logged after the step span, before the trace end") << false << message << 1 << qint64(4002) << 1
                                                                          << QList<qint64>{13} << false;
    // Near misses: every trace ends with its last step (a profiler stop), and no step is shorter;
    // the OOM long after the trace; the OOM of another rank; a failure before the first step.
    QTest::newRow("healthy profiler stop") << false << none << 0 << qint64(0) << 1 << QList<qint64>{} << false;
    QTest::newRow("peers of the cut rank") << true << none << 0 << qint64(0) << 0 << QList<qint64>{} << false;
    QTest::newRow("oom after the trace") << false << message << 1 << qint64(9000) << 1 << QList<qint64>{} << false;
    QTest::newRow("oom of another rank") << false << message << 2 << qint64(3300) << 1 << QList<qint64>{} << false;
    // A rank that is simply faster: its trace ends with its last step and its peers' steps are
    // longer, but so were none of its own.
    QTest::newRow("fast rank, trace ends with a whole step") << false << none << 0 << qint64(0) << 1 << QList<qint64>{} << true;
    QTest::newRow("oom before the first step") << false << message << 1 << qint64(-500) << 1 << QList<qint64>{} << false;
}

void TestStepCompleteness::lastStep()
{
    QFETCH(bool, cut);
    QFETCH(int, failure);
    QFETCH(int, failRank);
    QFETCH(qint64, failAtMs);
    QFETCH(int, rank);
    QFETCH(QList<qint64>, incomplete);
    QFETCH(bool, fastRank);
    const SessionPtr s = job(cut, Failure(failure), failRank, failAtMs, fastRank);
    QCOMPARE(incompleteOf(*s, rank), incomplete);
}

void TestStepCompleteness::stepTimeLeavesItOut()
{
    // Rank 1's cut-off step 13 (460 ms) is no fast step: its median is that of steps 10..12, like
    // its peers', and nothing diverges; step ends still align the ranks without it.
    const SessionPtr s = job(true, Failure::None, 0, 0);
    const auto alignment = ClockAlignment::align(*s);
    const auto metrics = RankMetricsBuilder::build(*s, alignment);
    for (const RankMetrics &m : metrics) {
        if (m.rank > 2)
            continue;
        QCOMPARE(m.steps, std::optional<std::int64_t>(4));
        QCOMPARE(m.stepTimeMedianNs, std::optional<TimeNs>(kSec - kMs));
        QCOMPARE(m.stepTimeMadNs, std::optional<TimeNs>(0));
    }
    const AnalysisResult r = Analyzer::run(*s);
    for (const Divergence &d : r.divergent)
        QVERIFY2(d.metric != "step_time_median_ns", d.reason.c_str());
}

void TestStepCompleteness::unterminatedSpan()
{
    // A Kineto trace whose ProfilerStep#6 'B' never got its 'E': the trace ended inside it.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("rank-0.pt.trace.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
 "baseTimeNanoseconds": 1700000000000000000,
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 1000, "dur": 900},
  {"ph": "B", "cat": "user_annotation", "name": "ProfilerStep#6", "pid": 1, "tid": 1, "ts": 2000},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 2100, "dur": 50}
 ]})");
    f.close();
    ImportContext ctx;
    std::vector<SourceBuilder> src;
    src.push_back(ImporterRegistry::instance().importFile(path.toStdString(), ctx));
    const SessionPtr s = freeze(std::move(src));
    QCOMPARE(s->ranks().size(), std::size_t(1));
    const Rank &r = s->ranks().front();
    QCOMPARE(r.steps.size(), std::size_t(2));
    QVERIFY(!r.steps[0].incomplete);
    QCOMPARE(r.steps[1].number, std::int64_t(6));
    QVERIFY(r.steps[1].incomplete);
    // §3 counts matched spans only: the cut-off step is a Step, not a counted span.
    QCOMPARE(s->sources().front().counts.steps, std::int64_t(1));
}

QTEST_GUILESS_MAIN(TestStepCompleteness)
#include "test_stepcompleteness.moc"
