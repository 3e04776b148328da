// rank-failure: a rank's process died (exception, exit code, signal) or the scheduler ended the
// job, named even when nothing points at the GPU. The rank that failed first is the culprit; the
// launcher's teardown of the others is evidence; a death that follows the rank's own watchdog
// timeout belongs to the hang (collective-desync), and a warning is no failure. Jobs come from the
// project's fixture logs through the log importer, from records built with JobLog, and from the
// real SLURM and ALCF samples when present.

#include "importerregistry.h"
#include "importedsession.h"
#include "sessionfixture.h"

#include <QFile>
#include <QTest>

#include <functional>
#include <map>

using namespace rs;
using namespace rs::test;

namespace {

const QString kFixtures = QStringLiteral(RANKSCOPE_FIXTURES_DIR "/logs/incidents/");
const QString kSamples = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/joblog/");

SessionPtr loadFile(const QString &path)
{
    return QFile::exists(path) ? importSession({path}) : nullptr;
}

SessionPtr one(JobLog &log)
{
    std::vector<SourceBuilder> src;
    src.push_back(log.take());
    return freeze(std::move(src));
}

ChildFailure child(RankId rank, int exitCode, bool root, std::int64_t line, TimeNs time, std::string launcher = "torchrun")
{
    ChildFailure c;
    c.rank = rank;
    c.localRank = rank % 4;
    c.exitCode = exitCode;
    c.rootCause = root;
    c.line = line;
    c.time = time;
    c.host = "node-a";
    c.launcher = std::move(launcher);
    return c;
}

// A launcher line for a ChildFailure (what the importer writes next to it).
void launcherLine(JobLog &log, ChildFailure c, const std::string &text)
{
    c.line = log.record(c.rank, text, LogFlagLauncher, LogKind::Torchrun, LogLevel::Error, c.time);
    log.logs().failures.push_back(c);
}

const std::map<QString, std::function<SessionPtr()>> &scenarios()
{
    static const std::map<QString, std::function<SessionPtr()>> table{
        {"filenotfound", [] { return loadFile(kFixtures + "torchrun_rank0_filenotfound.log"); }},
        {"sigabrt rank 10", [] { return loadFile(kFixtures + "torchrun_rank10_sigabrt.log"); }},
        {"slurm time limit", [] { return loadFile(kSamples + "bigscience_jeanzay_slurm_16node_64gpu_megatron_timelimit.out"); }},
        {"hang teardown", [] { return loadFile(kFixtures + "hang_rank1_data_shard.log"); }},
        {"alcf", [] { return loadFile(kSamples + "alcf_polaris_resnet50_2node_8rank_allgather_timeout.log"); }},
        {"healthy with warnings", [] { return loadFile(kFixtures + "healthy_4rank_with_warnings.log"); }},
        {"rank 3 value error", [] {
             JobLog log;
             log.record(3, "ValueError: expected 128 labels, got 127", 0, LogKind::Python, LogLevel::Error, kT0 + 5 * kSec);
             for (RankId r : {0, 1, 2})
                 launcherLine(log, child(r, -15, false, 0, kT0 + 7 * kSec), "Sending process closing signal SIGTERM");
             launcherLine(log, child(3, 1, true, 0, kT0 + 6 * kSec), "failed (exitcode: 1) local_rank: 3");
             return one(log);
         }},
        {"died before the cancel", [] {
             JobLog log;
             log.record(2, "KeyError: 'attention_mask'", 0, LogKind::Python, LogLevel::Error, kT0 + 100 * kSec);
             JobEvent e;
             e.kind = JobEventKind::Cancelled;
             e.launcher = "slurm";
             e.jobId = "4242";
             e.reason = "TIME LIMIT";
             e.time = kT0 + 3600 * kSec;
             e.line = log.record(kJobLevel, "slurmstepd: error: *** JOB 4242 ON n1 CANCELLED AT 2023-11-14T23:13:20 DUE TO TIME LIMIT ***",
                                 LogFlagLauncher, LogKind::Torchrun, LogLevel::Error, e.time);
             log.logs().jobEvents.push_back(e);
             return one(log);
         }},
        {"mpiexec sigsegv", [] {
             JobLog log;
             log.record(5, "epoch 1 step 10", 0, LogKind::Other, LogLevel::Info, kT0);
             ChildFailure c = child(5, -11, false, 0, kT0 + 9 * kSec, "mpiexec");
             c.coreDumped = true;
             launcherLine(log, c, "x1: rank 5 died from signal 11 and dumped core");
             return one(log);
         }},
        {"oom exception", [] {
             JobLog log;
             log.record(1, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", LogFlagOom, LogKind::Python,
                        LogLevel::Error, kT0 + 3 * kSec);
             launcherLine(log, child(1, 1, true, 0, kT0 + 4 * kSec), "failed (exitcode: 1) local_rank: 1");
             return one(log);
         }},
        {"python warning", [] {
             JobLog log;
             log.record(1, "UserWarning: torch.cuda.amp.GradScaler is deprecated", 0, LogKind::Python, LogLevel::Warning, kT0);
             log.record(0, "step 3 loss 2.1", 0, LogKind::Other, LogLevel::Info, kT0);
             return one(log);
         }},
        {"exception logged, no death", [] {
             JobLog log;
             log.record(2, "ConnectionError: checkpoint upload failed, will retry", 0, LogKind::Python, LogLevel::Error, kT0);
             return one(log);
         }},
    };
    return table;
}

} // namespace

class TestRankFailure : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void failure_data();
    void failure();
    void timeLimitTellsThePace();
};

void TestRankFailure::failure_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<int>("severity"); // -1: no rank-failure finding
    QTest::addColumn<QList<int>>("ranks");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("fix");
    QTest::addColumn<bool>("noGpuCause"); // the title says nothing points at the GPU

    const int H = int(Severity::High), M = int(Severity::Medium);
    QTest::newRow("torchrun: rank 0 FileNotFoundError") << "filenotfound" << H << QList<int>{0}
                                                        << "Rank 0 failed with FileNotFoundError: [Errno 2]"
                                                        << "'/mnt/data/corpus/index.json'" << true;
    QTest::newRow("torchrun: global rank 10 SIGABRT") << "sigabrt rank 10" << H << QList<int>{10} << "Rank 10 died of SIGABRT (exitcode -6)"
                                                      << "TORCH_SHOW_CPP_STACKTRACES=1" << true;
    QTest::newRow("slurm: cancelled at the time limit") << "slurm time limit" << H << QList<int>{}
                                                        << "SLURM cancelled job 1999618 at its time limit" << "--time" << true;
    QTest::newRow("root cause before SIGTERMs") << "rank 3 value error" << H << QList<int>{3} << "Rank 3 failed first with ValueError"
                                                << "expected 128 labels" << true;
    QTest::newRow("died, then the job hung until cancelled") << "died before the cancel" << H << QList<int>{2}
                                                             << "KeyError: 'attention_mask'" << "KeyError" << true;
    QTest::newRow("mpiexec: signal 11") << "mpiexec sigsegv" << H << QList<int>{5} << "died of SIGSEGV" << "PYTHONFAULTHANDLER=1"
                                        << true;
    QTest::newRow("oom: a GPU cause exists") << "oom exception" << H << QList<int>{1} << "OutOfMemoryError" << "oom finding" << false;
    QTest::newRow("traceback without a launcher: medium") << "exception logged, no death" << M << QList<int>{2} << "ConnectionError"
                                                          << "ConnectionError" << true;
    QTest::newRow("near miss: hang teardown belongs to the hang") << "hang teardown" << -1 << QList<int>{} << "" << "" << false;
    QTest::newRow("near miss: alcf watchdog abort") << "alcf" << -1 << QList<int>{} << "" << "" << false;
    QTest::newRow("near miss: healthy log with warnings") << "healthy with warnings" << -1 << QList<int>{} << "" << "" << false;
    QTest::newRow("near miss: a python warning") << "python warning" << -1 << QList<int>{} << "" << "" << false;
}

void TestRankFailure::failure()
{
    QFETCH(QString, scenario);
    QFETCH(int, severity);
    QFETCH(QList<int>, ranks);
    QFETCH(QString, title);
    QFETCH(QString, fix);
    QFETCH(bool, noGpuCause);
    const SessionPtr s = scenarios().at(scenario)();
    if (!s)
        QSKIP("input not present");
    const AnalysisResult r = Analyzer::run(*s);
    logFindings(r);
    const auto found = findingsOf(r, "rank-failure");
    if (severity < 0) {
        QVERIFY2(found.empty(), describe(r).c_str());
        return;
    }
    QVERIFY2(found.size() == 1, describe(r).c_str());
    const Finding &f = *found.front();
    QCOMPARE(int(f.severity), severity);
    QCOMPARE(QList<int>(f.ranks.begin(), f.ranks.end()), ranks);
    QVERIFY2(qs(f.title).contains(title), f.title.c_str());
    QVERIFY2(qs(f.fix).contains(fix), f.fix.c_str());
    QCOMPARE(qs(f.title).contains(QLatin1String("nothing suggests a GPU or NCCL cause")), noGpuCause);
    QVERIFY(!f.evidence.empty());
    for (const Evidence &e : f.evidence)
        QVERIFY(!e.text.empty());
    QVERIFY2(f.timeNs.has_value(), "evidence with a time gives the finding one");
}

// SOURCES.md: 4 iterations (150.9, 123.9, 124.4 and 122.2 s) from 21:42:48, cancelled at 21:52:36.
void TestRankFailure::timeLimitTellsThePace()
{
    const SessionPtr s = scenarios().at("slurm time limit")();
    if (!s)
        QSKIP("input not present");
    const AnalysisResult r = Analyzer::run(*s);
    const auto found = findingsOf(r, "rank-failure");
    QCOMPARE(found.size(), std::size_t(1));
    bool pace = false;
    for (const Evidence &e : found.front()->evidence)
        pace = pace || (qs(e.text).contains(QLatin1String("4 step(s) completed before the cancel, 124.36 s each (median)"))
                        && qs(e.text).contains(QLatin1String("the last ended 66.63 s before it")));
    QVERIFY2(pace, describe(r).c_str());
}

QTEST_GUILESS_MAIN(TestRankFailure)
#include "test_rankfailure.moc"
