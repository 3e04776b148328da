// The record grammar of real job output: launchers other than torchrun (mpiexec/PBS, SLURM,
// torch.distributed.launch, torchrun's agent), every ProcessGroupNCCL watchdog shape and process-
// group tag, watchdog progress with uninitialised counters, an OOM's device index against ranks,
// processes that never name their rank, and per-step memory lines of training logs.

#include "importerregistry.h"
#include "logparsetest.h"
#include "nccllog/logparser.h"
#include "nccllog/stepmemory.h"
#include "sessionbuilder.h"

#include <QDateTime>
#include <QFile>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

using namespace rs;

namespace {

constexpr double MiB = 1024.0 * 1024.0;
constexpr double GiB = 1024.0 * MiB;

// Feeds `text` to a LogParser directly: the grammar under test, without sniffing.
SourceBuilder parse(const std::string &text, const std::string &name = "job.log")
{
    return test::parseLogText(text, name);
}

SourceBuilder importFile(const QString &path)
{
    ImportContext ctx;
    ctx.timeZone = "UTC";
    return ImporterRegistry::instance().importFile(path.toStdString(), ctx);
}

TimeNs utc(const char *iso)
{
    return TimeNs(QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs).toMSecsSinceEpoch()) * 1000000;
}

std::int64_t bytes(double v, double unit)
{
    return std::llround(v * unit);
}

const Track *trackOf(const SourceBuilder &b, TrackKind kind, RankId rank)
{
    for (const Track &t : b.tracks())
        if (t.kind == kind && t.rank == rank)
            return &t;
    return nullptr;
}

const char *kWatchdogTail = "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, NumelIn=1, "
                            "NumelOut=8, Timeout(ms)=120000) ran for 120012 milliseconds before timing out.";

} // namespace

class TestLogVariants : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void launcherFailures_data();
    void launcherFailures();
    void launcherEvents_data();
    void launcherEvents();
    void schedulerStampGivesClock();
    void srunTaskUnderPerNodeLauncher();
    void agentLineAndSummaryAreOneFailure();
    void watchdogShapes_data();
    void watchdogShapes();
    void watchdogRethrowsCountOnce();
    void watchdogProgress_data();
    void watchdogProgress();
    void oomDeviceToRank_data();
    void oomDeviceToRank();
    void oomKeepsContentRankOverFileName();
    void unknownProcessesStayApart();
    void oneUnnamedProcessIsTheSourceRank();
    void stepMemoryWordings_data();
    void stepMemoryWordings();
    void trainingLogAroundSummary();
    void untimedStepMemoryOrdersBySteps();
    void slurmFixture();
    void alcfSample();
    void bigscienceSample();
    void levelFollowsTheLine_data();
    void levelFollowsTheLine();
};

void TestLogVariants::launcherFailures_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("launcher");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("signal");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("localRank");
    QTest::addColumn<bool>("core");
    QTest::newRow("mpiexec died") << "x3006c0s1b1n0.hsn.cm.polaris.alcf.anl.gov: rank 2 died from signal 6 and dumped core"
                                  << "mpiexec" << 1 << 2 << -6 << "SIGABRT" << "x3006c0s1b1n0.hsn.cm.polaris.alcf.anl.gov" << -1 << true;
    QTest::newRow("mpiexec exited") << "nid00012: rank 5 exited with code 3" << "mpiexec" << 1 << 5 << 3 << "" << "nid00012" << -1 << false;
    // A garbled signal number (2^31) is no signal: nothing overflows, the death is still read.
    QTest::newRow("mpiexec garbled signal") << "x1: rank 2 died from signal 2147483648" << "mpiexec" << 1 << 2 << 0 << "" << "x1" << -1 << false;
    QTest::newRow("open mpi") << "mpirun noticed that process rank 1 with PID 4242 on node gpu7 exited on signal 9 (Killed)."
                              << "mpiexec" << 1 << 1 << -9 << "SIGKILL" << "gpu7" << -1 << false;
    QTest::newRow("srun exit") << "srun: error: r6i4n5: task 3: Exited with exit code 1" << "srun" << 1 << 3 << 1 << ""
                               << "r6i4n5" << -1 << false;
    QTest::newRow("srun killed range") << "srun: error: gpu12: tasks 0-1: Killed" << "srun" << 2 << 0 << -9 << "SIGKILL" << "gpu12"
                                       << -1 << false;
    QTest::newRow("srun segfault") << "srun: error: gpu3: task 7: Segmentation fault (core dumped)" << "srun" << 1 << 7 << -11
                                   << "SIGSEGV" << "gpu3" << -1 << true;
    QTest::newRow("launch CalledProcessError")
        << "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=3']' returned non-zero exit status -9."
        << "torch.distributed.launch" << 1 << int(kJobLevel) << -9 << "SIGKILL" << "" << 3 << false;
    QTest::newRow("torchrun agent glog")
        << "E1217 08:22:51.326000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 5501) of binary: /usr/bin/python3"
        << "torchrun" << 1 << int(kJobLevel) << 1 << "" << "" << 0 << false;
    QTest::newRow("torchrun agent python logging")
        << "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 2 (pid: 77) of binary: /opt/conda/bin/python"
        << "torchrun" << 1 << int(kJobLevel) << -6 << "SIGABRT" << "" << 2 << false;
}

void TestLogVariants::launcherFailures()
{
    QFETCH(QString, line);
    QFETCH(QString, launcher);
    QFETCH(int, count);
    QFETCH(int, rank);
    QFETCH(int, exitCode);
    QFETCH(QString, signal);
    QFETCH(QString, host);
    QFETCH(int, localRank);
    QFETCH(bool, core);
    const SourceBuilder b = parse(line.toStdString() + "\n");
    const auto &failures = b.logs().failures;
    QCOMPARE(int(failures.size()), count);
    const ChildFailure &f = failures.front();
    QCOMPARE(QString::fromStdString(f.launcher), launcher);
    QCOMPARE(f.rank, rank);
    QCOMPARE(f.exitCode, exitCode);
    QCOMPARE(QString::fromStdString(f.signal), signal);
    QCOMPARE(QString::fromStdString(f.host), host);
    QCOMPARE(f.localRank, localRank);
    QCOMPARE(f.coreDumped, core);
    QCOMPARE(f.line, 1);
    if (count == 2)
        QCOMPARE(failures[1].task, 1);
    // The line itself is a launcher record: on the rank it names, else the job's lane.
    QCOMPARE(b.logs().records.size(), std::size_t(1));
    const LogRecord &r = b.logs().records[0];
    QCOMPARE(r.kind, LogKind::Torchrun);
    QCOMPARE(r.level, LogLevel::Error);
    QVERIFY(r.flags & LogFlagLauncher);
    QCOMPARE(r.rank, count == 1 && rank >= 0 && launcher == "mpiexec" ? rank : kJobLevel);
    QVERIFY(b.logs().jobEvents.empty());
}

void TestLogVariants::launcherEvents_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("launcher");
    QTest::addColumn<QString>("jobId");
    QTest::addColumn<bool>("step");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("signal");
    QTest::addColumn<qint64>("pid");
    QTest::addColumn<qint64>("time");
    const qint64 none = kNoTime;
    QTest::newRow("slurm job time limit")
        << "slurmstepd: error: *** JOB 1999618 ON r6i4n5 CANCELLED AT 2021-05-27T21:52:36 DUE TO TIME LIMIT ***"
        << int(JobEventKind::Cancelled) << "slurm" << "1999618" << false << "r6i4n5" << "TIME LIMIT" << "" << qint64(0)
        << qint64(utc("2021-05-27T21:52:36"));
    QTest::newRow("slurm step time limit")
        << "slurmstepd: error: *** STEP 1999618.0 ON r6i4n5 CANCELLED AT 2021-05-27T21:52:36 DUE TO TIME LIMIT ***"
        << int(JobEventKind::Cancelled) << "slurm" << "1999618.0" << true << "r6i4n5" << "TIME LIMIT" << "" << qint64(0)
        << qint64(utc("2021-05-27T21:52:36"));
    QTest::newRow("scancel") << "slurmstepd: error: *** STEP 42.0 ON gpu1 CANCELLED AT 2024-02-01T10:00:00 ***"
                             << int(JobEventKind::Cancelled) << "slurm" << "42.0" << true << "gpu1" << "" << "" << qint64(0)
                             << qint64(utc("2024-02-01T10:00:00"));
    QTest::newRow("step aborted") << "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."
                                  << int(JobEventKind::StepAborted) << "srun" << "" << false << "" << "" << "" << qint64(0) << none;
    QTest::newRow("node failure") << "srun: error: Node failure on gpu9" << int(JobEventKind::NodeFailure) << "srun" << "" << false
                                  << "gpu9" << "" << "" << qint64(0) << none;
    QTest::newRow("cgroup oom kill")
        << "slurmstepd: error: Detected 1 oom-kill event(s) in step 2547357.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler."
        << int(JobEventKind::OomKill) << "slurm" << "2547357.0" << true << "" << "" << "" << qint64(0) << none;
    QTest::newRow("pbs walltime") << "=>> PBS: job killed: walltime 3610 exceeded limit 3600" << int(JobEventKind::Cancelled)
                                  << "pbs" << "" << false << "" << "walltime 3610 exceeded limit 3600" << "" << qint64(0) << none;
    QTest::newRow("launch kills") << "Killing subprocess 4946" << int(JobEventKind::ProcessKilled) << "torch.distributed.launch"
                                  << "" << false << "" << "" << "" << qint64(4946) << none;
    QTest::newRow("launch sigterm") << "Main process received SIGTERM, exiting" << int(JobEventKind::LauncherSignalled)
                                    << "torch.distributed.launch" << "" << false << "" << "" << "SIGTERM" << qint64(0) << none;
    QTest::newRow("agent closing signal")
        << "W0801 13:23:20.000000 32974 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 33051 closing signal SIGTERM"
        << int(JobEventKind::ProcessKilled) << "torchrun" << "" << false << "" << "" << "SIGTERM" << qint64(33051) << none;
    QTest::newRow("agent signal exception")
        << "torch.distributed.elastic.multiprocessing.api.SignalException: Process 1234 got signal: 15"
        << int(JobEventKind::LauncherSignalled) << "torchrun" << "" << false << "" << "" << "SIGTERM" << qint64(1234) << none;
}

void TestLogVariants::launcherEvents()
{
    QFETCH(QString, line);
    QFETCH(int, kind);
    QFETCH(QString, launcher);
    QFETCH(QString, jobId);
    QFETCH(bool, step);
    QFETCH(QString, host);
    QFETCH(QString, reason);
    QFETCH(QString, signal);
    QFETCH(qint64, pid);
    QFETCH(qint64, time);
    const SourceBuilder b = parse(line.toStdString() + "\n");
    QCOMPARE(b.logs().jobEvents.size(), std::size_t(1));
    const JobEvent &e = b.logs().jobEvents[0];
    QCOMPARE(int(e.kind), kind);
    QCOMPARE(QString::fromStdString(e.launcher), launcher);
    QCOMPARE(QString::fromStdString(e.jobId), jobId);
    QCOMPARE(e.step, step);
    QCOMPARE(QString::fromStdString(e.host), host);
    QCOMPARE(QString::fromStdString(e.reason), reason);
    QCOMPARE(QString::fromStdString(e.signal), signal);
    QCOMPARE(qint64(e.pid), pid);
    QCOMPARE(qint64(e.time), time);
    QCOMPARE(e.rank, kJobLevel);
    QCOMPARE(e.line, 1);
    QVERIFY(b.logs().failures.empty());
    QCOMPARE(b.logs().records.size(), std::size_t(1));
    QCOMPARE(b.logs().records[0].rank, kJobLevel);
    QCOMPARE(b.logs().records[0].kind, LogKind::Torchrun);
    QVERIFY(b.logs().records[0].flags & LogFlagLauncher);
}

void TestLogVariants::schedulerStampGivesClock()
{
    // SLURM's full date times its own line and dates the year-less c10 stamp before it.
    const SourceBuilder b = parse("[rank0]:[E0527 21:50:00.000000000 ProcessGroupNCCL.cpp:1] [PG 0 Rank 0] still waiting\n"
                                  "slurmstepd: error: *** JOB 5 ON n1 CANCELLED AT 2021-05-27T21:52:36 DUE TO TIME LIMIT ***\n");
    QVERIFY(b.source().hasClock);
    QCOMPARE(b.logs().records[0].time, utc("2021-05-27T21:50:00"));
    QCOMPARE(b.logs().records[1].time, utc("2021-05-27T21:52:36"));
    QCOMPARE(b.diagnosticCount("stamp-no-year"), 0);
}

void TestLogVariants::srunTaskUnderPerNodeLauncher()
{
    // Under torch.distributed.launch an srun task is a node with several ranks, not a rank.
    const SourceBuilder b = parse("Killing subprocess 10\nsrun: error: h2: task 3: Exited with exit code 1\n");
    QCOMPARE(b.logs().failures.size(), std::size_t(1));
    QCOMPARE(b.logs().failures[0].rank, kJobLevel);
    QCOMPARE(b.logs().failures[0].task, 3);
    const SourceBuilder alone = parse("srun: error: h2: task 3: Exited with exit code 1\n");
    QCOMPARE(alone.logs().failures[0].rank, 3);
    QCOMPARE(alone.source().ranks, std::vector<RankId>({3}));
}

void TestLogVariants::agentLineAndSummaryAreOneFailure()
{
    const SourceBuilder b = parse(
        "[2023-09-04 10:10:00,000] launcher up\n"
        "E0904 10:10:23.000000 9 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 1 (pid: 3669031) of binary: /usr/bin/python3\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n"
        "  <NO_OTHER_FAILURES>\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2023-09-04_10:10:23\n"
        "  host      : ubuntu\n"
        "  rank      : 5 (local_rank: 1)\n"
        "  exitcode  : 1 (pid: 3669031)\n"
        "  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        "============================================================\n");
    QCOMPARE(b.logs().failures.size(), std::size_t(1));
    const ChildFailure &f = b.logs().failures[0];
    QCOMPARE(f.rank, 5);
    QVERIFY(f.rootCause);
    QCOMPARE(f.launcher, std::string("torchrun"));
    QCOMPARE(f.time, utc("2023-09-04T10:10:23"));
}

void TestLogVariants::watchdogShapes_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("pgId");
    QTest::addColumn<QString>("desc");
    QTest::addColumn<qint64>("numelIn");
    QTest::addColumn<bool>("timed");
    const QString tail = QString::fromLatin1(kWatchdogTail);
    const QString old = "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, Timeout(ms)=120000) "
                        "ran for 120012 milliseconds before timing out.";
    QTest::newRow("old, no numel, no prefix") << "[E ProcessGroupNCCL.cpp:737] [Rank 3] " + old << 3 << -1 << "" << qint64(-1) << false;
    QTest::newRow("2.3 prefix, no date") << "[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] " + tail << 5 << -1 << "" << qint64(1) << false;
    QTest::newRow("2.4 dated") << "[rank6]:[E0909 09:55:35.239719860 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 6] " + tail
                               << 6 << 0 << "default_pg" << qint64(1) << true;
    QTest::newRow("PG N tag, no prefix") << "[E0909 09:55:35.239719860 ProcessGroupNCCL.cpp:1515] [PG 1 Rank 0] " + tail << 0 << 1
                                         << "" << qint64(1) << true;
    QTest::newRow("PG ID GUID tag") << "[E0909 09:55:35.239719860 ProcessGroupNCCL.cpp:1515] [PG ID 0 PG GUID 0(default_pg) Rank 1] " + tail
                                    << 1 << 0 << "default_pg" << qint64(1) << true;
}

void TestLogVariants::watchdogShapes()
{
    QFETCH(QString, line);
    QFETCH(int, rank);
    QFETCH(int, pgId);
    QFETCH(QString, desc);
    QFETCH(qint64, numelIn);
    QFETCH(bool, timed);
    // A full date elsewhere gives the c10 stamp its year.
    const SourceBuilder b = parse(line.toStdString() + "\n[2024-09-09 09:56:00] done\n");
    QCOMPARE(b.logs().timeouts.size(), std::size_t(1));
    const WatchdogTimeout &w = b.logs().timeouts[0];
    QCOMPARE(w.rank, rank);
    QCOMPARE(w.pgId, pgId);
    QCOMPARE(QString::fromStdString(w.pgDesc), desc);
    QCOMPARE(w.seq, 1);
    QCOMPARE(w.opType, std::string("ALLGATHER"));
    QCOMPARE(qint64(w.numelIn), numelIn);
    QCOMPARE(w.ranForMs, 120012);
    QCOMPARE(w.line, 1);
    QCOMPARE(w.time != kNoTime, timed);
    if (timed)
        QCOMPARE(w.time, utc("2024-09-09T09:55:35.239") + 719860);
    // The tag names the record's rank when no prefix did.
    QCOMPARE(b.logs().records[0].rank, rank);
    QCOMPARE(b.logs().records[0].kind, LogKind::PyTorch);
}

void TestLogVariants::watchdogRethrowsCountOnce()
{
    const std::string tail(kWatchdogTail);
    const SourceBuilder b = parse("[rank7]:[E ProcessGroupNCCL.cpp:563] [Rank 7] " + tail + "\n"
                                  "[rank7]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 7] Process group watchdog thread terminated with exception: [Rank 7] " + tail + "\n"
                                  "terminate called after throwing an instance of 'c10::DistBackendError'\n"
                                  "  what():  [PG 0 Rank 7] Process group watchdog thread terminated with exception: [Rank 7] " + tail + "\n"
                                  "[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] " + tail + "\n");
    QCOMPARE(b.logs().timeouts.size(), std::size_t(2));
    QCOMPARE(b.logs().timeouts[0].rank, 7);
    QCOMPARE(b.logs().timeouts[0].line, 1);
    QCOMPARE(b.logs().timeouts[1].rank, 2);
    QCOMPARE(b.logs().timeouts[1].line, 5);
}

void TestLogVariants::watchdogProgress_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("pgId");
    QTest::addColumn<qint64>("work");
    QTest::addColumn<qint64>("enqueued");
    QTest::addColumn<qint64>("completed");
    QTest::addColumn<bool>("timeout");
    QTest::addColumn<int>("garbage");
    QTest::newRow("timeout, garbage completed")
        << "[rank7]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 7] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: 3904955349522264369."
        << 7 << 0 << qint64(1) << qint64(1) << qint64(-1) << true << 1;
    QTest::newRow("timeout, garbage pointer-like")
        << "[rank0]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 0] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: 94904856301872."
        << 0 << 0 << qint64(1) << qint64(1) << qint64(-1) << true << 1;
    QTest::newRow("exception, sane")
        << "[E ProcessGroupNCCL.cpp:1000] [PG 1 Rank 0] Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579."
        << 0 << 1 << qint64(1580) << qint64(1582) << qint64(1579) << false << 0;
    QTest::newRow("exception, PG GUID tag")
        << "[E1006 10:00:00.000000000 ProcessGroupNCCL.cpp:1000] [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at work: 808, last enqueued NCCL work: 808, last completed NCCL work: 807."
        << 1 << 0 << qint64(808) << qint64(808) << qint64(807) << false << 0;
    QTest::newRow("unsigned overflow, garbage enqueued")
        << "[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 2, last enqueued NCCL work: 93907630711664, last completed NCCL work: 18446744073709551615."
        << 3 << 0 << qint64(2) << qint64(-1) << qint64(-1) << true << 2;
}

void TestLogVariants::watchdogProgress()
{
    QFETCH(QString, line);
    QFETCH(int, rank);
    QFETCH(int, pgId);
    QFETCH(qint64, work);
    QFETCH(qint64, enqueued);
    QFETCH(qint64, completed);
    QFETCH(bool, timeout);
    QFETCH(int, garbage);
    const SourceBuilder b = parse(line.toStdString() + "\n");
    QCOMPARE(b.logs().progress.size(), std::size_t(1));
    const WatchdogProgress &p = b.logs().progress[0];
    QCOMPARE(p.rank, rank);
    QCOMPARE(p.pgId, pgId);
    QCOMPARE(qint64(p.work), work);
    QCOMPARE(qint64(p.lastEnqueued), enqueued);
    QCOMPARE(qint64(p.lastCompleted), completed);
    QCOMPARE(p.timeout, timeout);
    QCOMPARE(p.line, 1);
    QCOMPARE(int(b.diagnosticCount("watchdog-progress-garbage")), garbage);
    if (garbage > 0)
        QCOMPARE(b.source().diagnostics.front().line, 1);
    QVERIFY(b.logs().records[0].flags & LogFlagWatchdogProgress);
}

void TestLogVariants::oomDeviceToRank_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("unknownWarnings");
    const QString oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of "
                        "79.15 GiB of which 3.12 MiB is free. Including non-PyTorch memory, this process has 79.14 GiB memory in "
                        "use. Of the allocated memory 77.00 GiB is allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but "
                        "unallocated.\n";
    const QString oneHost = "h1:100:100 [0] NCCL INFO comm 0x1 rank 4 nranks 8 cudaDev 0 busId 1000 commId 0xab - Init COMPLETE\n"
                            "h1:101:101 [1] NCCL INFO comm 0x2 rank 5 nranks 8 cudaDev 1 busId 2000 commId 0xab - Init COMPLETE\n";
    QTest::newRow("init lines map the device") << oneHost + oom << 5 << 0;
    QTest::newRow("prefix beats the device") << oneHost + "[rank4]: " + oom << 4 << 0;
    QTest::newRow("two hosts: device 1 is two ranks")
        << oneHost + "h2:200:200 [1] NCCL INFO comm 0x3 rank 1 nranks 8 cudaDev 1 busId 2000 commId 0xab - Init COMPLETE\n" + oom
        << int(kNoRank) << 1;
    QTest::newRow("local rank statements") << "Setting up rank 6 local_rank 0\nSetting up rank 7 local_rank 1\n" + oom << 7 << 0;
    QTest::newRow("sub-group rank is not the global rank")
        << "h1:101:101 [1] NCCL INFO comm 0x9 rank 0 nranks 2 cudaDev 1 busId 2000 commId 0xcd - Init COMPLETE\n" + oneHost + oom
        << 5 << 0;
}

void TestLogVariants::oomDeviceToRank()
{
    QFETCH(QString, text);
    QFETCH(int, rank);
    QFETCH(int, unknownWarnings);
    const SourceBuilder b = parse(text.toStdString());
    QCOMPARE(b.ooms().size(), std::size_t(1));
    QCOMPARE(b.ooms()[0].device, 1);
    QCOMPARE(b.ooms()[0].rank, rank);
    QCOMPARE(int(b.diagnosticCount("oom-rank-unknown")), unknownWarnings);
}

void TestLogVariants::oomKeepsContentRankOverFileName()
{
    // The file is called rank0, but its one process is rank 3 on device 1, and the OOM is on GPU 1.
    SourceBuilder b = parse("h1:7:7 [1] NCCL INFO comm 0x1 rank 3 nranks 4 cudaDev 1 busId 2000 commId 0xab - Init COMPLETE\n"
                            "RuntimeError: CUDA out of memory. Tried to allocate 1024.00 KiB (GPU 1; 11.17 GiB total capacity; "
                            "10.40 GiB already allocated; 896.00 KiB free; 10.50 GiB reserved in total by PyTorch)\n",
                            "logs/rank0.log");
    SessionBuilder sb;
    sb.addSource(std::move(b));
    const auto s = sb.freeze();
    QCOMPARE(s->ooms().size(), std::size_t(1));
    QCOMPARE(s->ooms()[0].rank, 3);
    QCOMPARE(s->sources()[0].ranks, std::vector<RankId>({3}));
}

void TestLogVariants::unknownProcessesStayApart()
{
    SourceBuilder b = parse("hostA:100:101 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                            "hostB:200:201 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"
                            "hostA:100:101 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
                            "hostC:300:301 [0] NCCL INFO comm 0x1 rank 0 nranks 3 cudaDev 0 busId 1000 commId 0xab - Init COMPLETE\n"
                            "hostB:200:201 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n"
                            "plain launcher output\n");
    QCOMPARE(b.logs().processes.size(), std::size_t(2));
    QCOMPARE(b.logs().processes[0].host, std::string("hostA"));
    QCOMPARE(b.logs().processes[0].firstLine, 1);
    QCOMPARE(b.logs().records[5].rank, kJobLevel); // several processes: unclaimed output is the job's
    SessionBuilder sb;
    sb.addSource(std::move(b));
    const auto s = sb.freeze();
    const Source &src = s->sources()[0];
    QCOMPARE(src.ranks, std::vector<RankId>({0, 1, 2}));
    QCOMPARE(std::count_if(src.diagnostics.begin(), src.diagnostics.end(),
                           [](const Diagnostic &d) { return d.code == "rank-unknown-process"; }),
             1);
    QCOMPARE(src.diagnostics.back().count, 2);
    const auto &r = s->logs().records;
    QCOMPARE(r[0].rank, r[2].rank);
    QCOMPARE(r[1].rank, r[4].rank);
    QVERIFY(r[0].rank != r[1].rank);
    QVERIFY(r[0].rank != 0 && r[1].rank != 0);
    QCOMPARE(r[3].rank, 0);
    int placeholders = 0;
    for (const Rank &rank : s->ranks()) {
        if (rank.id == r[0].rank)
            QCOMPARE(rank.unknownProcess, std::string("hostA:100"));
        if (rank.id == r[1].rank)
            QCOMPARE(rank.unknownProcess, std::string("hostB:200"));
        placeholders += !rank.unknownProcess.empty();
    }
    QCOMPARE(placeholders, 2);
}

void TestLogVariants::oneUnnamedProcessIsTheSourceRank()
{
    SourceBuilder b = parse("hostA:100:101 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                            "hostA:100:101 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n",
                            "run/rank2.log");
    QVERIFY(b.logs().processes.empty());
    SessionBuilder sb;
    sb.addSource(std::move(b));
    const auto s = sb.freeze();
    QCOMPARE(s->sources()[0].ranks, std::vector<RankId>({2}));
    QCOMPARE(s->logs().records[0].rank, 2);
}

void TestLogVariants::stepMemoryWordings_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<qint64>("allocated");
    QTest::addColumn<qint64>("peak");
    QTest::addColumn<qint64>("reserved");
    const qint64 none = -1;
    QTest::newRow("mem alloc peak reserved") << "step 120 | loss 2.31 | mem alloc 51.17 GiB peak 60.61 GiB reserved 56.00 GiB"
                                             << qint64(120) << qint64(bytes(51.17, GiB)) << qint64(bytes(60.61, GiB))
                                             << qint64(bytes(56.0, GiB));
    QTest::newRow("max_memory_allocated=") << "iter 100: max_memory_allocated=12345.6MB memory_reserved=14000.0MB" << qint64(100)
                                           << none << qint64(bytes(12345.6, MiB)) << qint64(bytes(14000.0, MiB));
    QTest::newRow("colon pairs") << "Step 10: allocated: 10.5 GB, reserved: 12.0 GB, peak: 11.0 GB" << qint64(10)
                                 << qint64(bytes(10.5, GiB)) << qint64(bytes(11.0, GiB)) << qint64(bytes(12.0, GiB));
    QTest::newRow("megatron shared unit")
        << "[Rank 0] (after 10 iterations) memory (MB) | allocated: 1234.5 | max allocated: 2345.6 | reserved: 3000.0 | max reserved: 3000.0"
        << qint64(10) << qint64(bytes(1234.5, MiB)) << qint64(bytes(2345.6, MiB)) << qint64(bytes(3000.0, MiB));
    QTest::newRow("rate is not memory") << "iteration 7/1000 | throughput 12.5 GB/s | mem 3 GiB" << qint64(7)
                                        << qint64(bytes(3, GiB)) << none << none;
    QTest::newRow("KiB and bytes") << "global_step=4 memory_allocated 524288 KiB memory_reserved 1073741824 B" << qint64(4)
                                   << qint64(bytes(524288, 1024)) << none << qint64(1073741824);
    QTest::newRow("no memory value") << "step 5 | loss 1.2 | lr 0.001" << none << none << none << none;
    QTest::newRow("checkpoint size") << "Saving checkpoint at step 100 (model size 1.2 GB)" << none << none << none << none;
    QTest::newRow("no step") << "memory allocated 3 GiB reserved 4 GiB" << none << none << none << none;
    QTest::newRow("allocator sentence") << "step 3: Tried to allocate 2.00 GiB; 1.20 GiB already allocated" << none << none << none
                                        << none;
}

void TestLogVariants::stepMemoryWordings()
{
    QFETCH(QString, line);
    QFETCH(qint64, step);
    QFETCH(qint64, allocated);
    QFETCH(qint64, peak);
    QFETCH(qint64, reserved);
    const auto r = StepMemory::parse(line.toStdString());
    QCOMPARE(r.has_value(), step >= 0);
    if (!r)
        return;
    QCOMPARE(qint64(r->step), step);
    QCOMPARE(qint64(r->allocated), allocated);
    QCOMPARE(qint64(r->peakAllocated), peak);
    QCOMPARE(qint64(r->reserved >= 0 ? r->reserved : r->peakReserved), reserved);
}

void TestLogVariants::trainingLogAroundSummary()
{
    const SourceBuilder b = importFile(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/logs/variants/training_log_around_summary.txt"));
    QCOMPARE(b.source().format, std::string("memory-summary"));
    QCOMPARE(b.source().counts.memorySummaries, 1);
    QVERIFY(b.source().hasClock);
    const Track *alloc = trackOf(b, TrackKind::MemoryAllocated, kNoRank);
    const Track *reserved = trackOf(b, TrackKind::MemoryReserved, kNoRank);
    QVERIFY(alloc && reserved);
    QCOMPARE(b.str(alloc->name), std::string_view("GPU 0 memory allocated"));
    QCOMPARE(alloc->device, 0);
    QCOMPARE(alloc->counter.times, std::vector<TimeNs>({utc("2024-05-12T10:31:01.200"), utc("2024-05-12T10:31:04.300"),
                                                        utc("2024-05-12T10:31:07.412")}));
    QCOMPARE(alloc->counter.values, std::vector<double>({10.0 * GiB, 10.5 * GiB, 11.0 * GiB}));
    QCOMPARE(reserved->counter.values, std::vector<double>({14.0 * GiB, 14.0 * GiB, 16.0 * GiB}));
    QCOMPARE(b.steps().size(), std::size_t(3));
    QCOMPARE(b.steps()[1].number, 20);
    QCOMPARE(b.steps()[1].range.begin, utc("2024-05-12T10:31:04.300"));
    QCOMPARE(b.steps()[1].range.end, utc("2024-05-12T10:31:07.412"));
    QCOMPARE(b.source().counts.steps, 3);
    QCOMPARE(b.diagnosticCount("step-memory-by-step"), 0);
}

void TestLogVariants::untimedStepMemoryOrdersBySteps()
{
    const SourceBuilder b = importFile(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/logs/variants/untimed_step_memory.log"));
    QCOMPARE(b.source().format, std::string("job-log"));
    QVERIFY(!b.source().hasClock);
    QCOMPARE(b.diagnosticCount("step-memory-by-step"), 1);
    const Track *r0 = trackOf(b, TrackKind::MemoryAllocated, 0);
    const Track *r1 = trackOf(b, TrackKind::MemoryAllocated, 1);
    QVERIFY(r0 && r1);
    QCOMPARE(r0->counter.times, std::vector<TimeNs>({1, 2, 3}));
    QCOMPARE(r0->counter.values, std::vector<double>({2048.0 * MiB, 2304.0 * MiB, 2560.0 * MiB}));
    QCOMPARE(r1->counter.values, std::vector<double>({2000.0 * MiB}));
    QCOMPARE(trackOf(b, TrackKind::MemoryReserved, 0)->counter.values,
             std::vector<double>({4096.0 * MiB, 4096.0 * MiB, 4608.0 * MiB}));
}

void TestLogVariants::slurmFixture()
{
    const SourceBuilder b = importFile(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/logs/variants/slurm_launch_timelimit.out"));
    QCOMPARE(b.source().format, std::string("job-log"));
    QVERIFY(b.source().hasClock);
    const auto &events = b.logs().jobEvents;
    QCOMPARE(events.size(), std::size_t(6));
    QCOMPARE(events[0].kind, JobEventKind::StepAborted);
    QCOMPARE(events[1].kind, JobEventKind::Cancelled);
    QCOMPARE(events[1].reason, std::string("TIME LIMIT"));
    QCOMPARE(events[1].time, utc("2022-03-04T05:06:07"));
    QCOMPARE(events[3].kind, JobEventKind::ProcessKilled);
    QCOMPARE(events[5].kind, JobEventKind::LauncherSignalled);
    // torch.distributed.launch runs the ranks: srun's task 1 is the second node, not rank 1.
    QCOMPARE(b.logs().failures.size(), std::size_t(1));
    QCOMPARE(b.logs().failures[0].rank, kJobLevel);
    QCOMPARE(b.logs().failures[0].task, 1);
}

void TestLogVariants::alcfSample()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/joblog/alcf_polaris_resnet50_2node_8rank_allgather_timeout.log");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    const SourceBuilder b = importFile(path);
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1, 2, 3, 4, 5, 6, 7}));
    // mpiexec's last word: rank 2 died of SIGABRT with a core dump.
    QCOMPARE(b.logs().failures.size(), std::size_t(1));
    const ChildFailure &f = b.logs().failures[0];
    QCOMPARE(f.launcher, std::string("mpiexec"));
    QCOMPARE(f.rank, 2);
    QCOMPARE(f.exitCode, -6);
    QCOMPARE(f.signal, std::string("SIGABRT"));
    QVERIFY(f.coreDumped);
    QCOMPARE(f.host, std::string("x3006c0s1b1n0.hsn.cm.polaris.alcf.anl.gov"));
    QCOMPARE(f.line, 630);
    // One timeout per rank, although each is printed three times.
    std::map<RankId, std::int64_t> ranFor;
    for (const WatchdogTimeout &w : b.logs().timeouts)
        QVERIFY(ranFor.emplace(w.rank, w.ranForMs).second);
    QCOMPARE(ranFor, (std::map<RankId, std::int64_t>{{0, 120018}, {1, 120090}, {2, 120013}, {3, 120071}, {4, 120014},
                                                      {5, 120069}, {6, 120093}, {7, 120012}}));
    QCOMPARE(b.logs().timeouts[0].line, 173);
    // Every rank reports its progress; the uninitialised "last completed" values are dropped.
    QCOMPARE(b.logs().progress.size(), std::size_t(8));
    std::set<RankId> ranks;
    for (const WatchdogProgress &p : b.logs().progress) {
        ranks.insert(p.rank);
        QCOMPARE(p.work, 1);
        QCOMPARE(p.lastEnqueued, 1);
        QCOMPARE(p.lastCompleted, -1);
        QCOMPARE(p.pgId, 0);
    }
    QCOMPARE(ranks.size(), std::size_t(8));
    QCOMPARE(b.diagnosticCount("watchdog-progress-garbage"), 8);
    QCOMPARE(b.source().counts.oomMessages, 0);
}

void TestLogVariants::bigscienceSample()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/joblog/bigscience_jeanzay_slurm_16node_64gpu_megatron_timelimit.out");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    const SourceBuilder b = importFile(path);
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.source().worldSize, 64);
    QCOMPARE(b.source().ranks.size(), std::size_t(64));
    QVERIFY(b.source().hasClock);
    const JobEvent *job = nullptr, *step = nullptr;
    int killed = 0, aborted = 0;
    for (const JobEvent &e : b.logs().jobEvents) {
        if (e.kind == JobEventKind::Cancelled)
            (e.step ? step : job) = &e;
        killed += e.kind == JobEventKind::ProcessKilled;
        aborted += e.kind == JobEventKind::StepAborted;
    }
    QVERIFY(job && step);
    QCOMPARE(job->jobId, std::string("1999618"));
    QCOMPARE(job->host, std::string("r6i4n5"));
    QCOMPARE(job->reason, std::string("TIME LIMIT"));
    QCOMPARE(job->time, utc("2021-05-27T21:52:36"));
    QCOMPARE(job->line, 10733);
    QCOMPARE(step->jobId, std::string("1999618.0"));
    QCOMPARE(aborted, 1);
    QCOMPARE(killed, 64);
    QVERIFY(b.logs().failures.empty());
    QVERIFY(b.logs().timeouts.empty());
    QVERIFY(b.logs().processes.empty());
    // SOURCES.md: 8,485 NCCL INFO lines, no WARN; communicators of 64, 16, 4, 2 and 1 ranks.
    // (Beside them, 52 bare "NCCL version 2.7.8+cuda10.2" lines are NCCL records too.)
    int info = 0, version = 0;
    for (const LogRecord &r : b.logs().records) {
        info += r.kind == LogKind::Nccl && b.logs().text(r).find(" NCCL INFO ") != std::string::npos;
        version += r.kind == LogKind::Nccl && b.logs().text(r).rfind("NCCL version ", 0) == 0;
    }
    QCOMPARE(info, 8485);
    QCOMPARE(version, 52);
    QCOMPARE(b.source().counts.warnings, 0);
    std::set<int> sizes;
    for (const NcclCommInfo &c : b.logs().comms)
        sizes.insert(c.nranks);
    QCOMPARE(sizes, (std::set<int>{1, 2, 4, 16, 64}));
}


void TestLogVariants::levelFollowsTheLine_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("level");
    const int info = int(LogLevel::Info), warning = int(LogLevel::Warning), error = int(LogLevel::Error);
    // The level the writer gave the line, wherever its logging format puts it.
    QTest::newRow("elastic agent, bracketed after a long logger name")
        << QStringLiteral("[2024-08-14 03:13:33,120] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 48213 closing signal SIGTERM")
        << warning;
    QTest::newRow("elastic agent, error") << QStringLiteral(
        "[2024-08-14 03:13:33,418] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 2 (pid: 48213) of binary: /usr/bin/python3")
                                          << error;
    QTest::newRow("glog W") << QStringLiteral("W0814 03:12:45.123000 140246 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1")
                            << warning;
    QTest::newRow("python logging, module prefix") << QStringLiteral("WARNING:torch.distributed.run:*****************************************") << warning;
    QTest::newRow("python warnings module") << QStringLiteral(
        "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader will create 16 worker processes in total.")
                                            << warning;
    QTest::newRow("python FutureWarning") << QStringLiteral(
        "/opt/conda/lib/python3.10/site-packages/transformers/training_args.py:1494: FutureWarning: `evaluation_strategy` is deprecated") << warning;
    QTest::newRow("logging dash format") << QStringLiteral("2024-08-14 03:12:45,123 - trainer - WARNING - gradient overflow, skipping step") << warning;
    QTest::newRow("loguru bar format") << QStringLiteral("2024-08-14 03:12:45.123 | WARNING  | train:step:88 - loss is nan") << warning;
    QTest::newRow("plain info") << QStringLiteral("INFO:torch.distributed.run:Using nproc_per_node=4.") << info;
    QTest::newRow("a warning named in the text is not a level")
        << QStringLiteral("step 88: loss 2.31, lr 3e-4, no WARNING issued by the scheduler this time around, throughput steady at 1.2k tok/s") << info;
}

void TestLogVariants::levelFollowsTheLine()
{
    QFETCH(QString, line);
    QFETCH(int, level);
    const SourceBuilder b = parse(line.toStdString() + "\n");
    QCOMPARE(b.logs().records.size(), std::size_t(1));
    QCOMPARE(int(b.logs().records[0].level), level);
}

QTEST_GUILESS_MAIN(TestLogVariants)
#include "test_logvariants.moc"
