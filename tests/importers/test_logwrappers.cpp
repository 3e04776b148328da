// The line layer of text logs (FORMATS.md §7.1–§7.3): wrappers peeled in front of records (and
// prose left alone), records found after a long shell trace, hard-wrapped lines rejoined, records
// glued onto other output split apart, junk bytes reported; and the two real job logs.

#include "importerregistry.h"
#include "nccllog/recordboundaries.h"
#include "text/linewrapper.h"

#include <QDateTime>
#include <QFile>
#include <QTest>

#include <set>

using namespace rs;

namespace {

SourceBuilder importText(const std::string &text, const std::string &name = "job.log")
{
    ImportContext ctx;
    ctx.timeZone = "UTC";
    return ImporterRegistry::instance().importBytes(text, name, ctx);
}

TimeNs utc(const char *iso)
{
    return TimeNs(QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs).toMSecsSinceEpoch()) * 1000000;
}

const Diagnostic *diagnostic(const SourceBuilder &b, const std::string &code)
{
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code == code)
            return &d;
    return nullptr;
}

SourceBuilder importFixture(const char *name)
{
    ImportContext ctx;
    ctx.timeZone = "UTC";
    return ImporterRegistry::instance().importFile(std::string(RANKSCOPE_FIXTURES_DIR "/logs/wrappers/") + name, ctx);
}

} // namespace

class TestLogWrappers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void peel_data();
    void peel();
    void peeledBytesAndOrigin();
    void recurringShapesAreLearned_data();
    void recurringShapesAreLearned();
    void recordStartsDeep_data();
    void recordStartsDeep();
    void wrappedLineJoined();
    void wrappedLineNotJoined_data();
    void wrappedLineNotJoined();
    void wrappedInitLineAtEnd();
    void interleavedRecords_data();
    void interleavedRecords();
    void collectorStampsTimeRecords();
    void junkBytesAreCounted();
    void fixtureKubernetes();
    void fixtureRay();
    void realAlcfPolaris();
    void realJeanZay();
};

void TestLogWrappers::peel_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("rank");
    QTest::addColumn<qint64>("time");
    const QByteArray nccl = "h:1:1 [0] NCCL INFO Bootstrap : Using eth0";
    const QByteArray c10 = "[E ProcessGroupNCCL.cpp:737] [Rank 3] Watchdog caught collective operation timeout";
    const qint64 none = kNoTime;
    // Wrappers, each shape with and without a rank or time.
    QTest::newRow("ansi colour") << "\x1b[36m" + nccl + "\x1b[0m" << nccl << -1 << none;
    QTest::newRow("ansi without esc") << "[36m[rank3]:" + c10 + "[0m" << c10 << 3 << none;
    QTest::newRow("erase line") << "\x1b[2K" + nccl << nccl << -1 << none;
    QTest::newRow("erase line without esc") << "[2K" + nccl << nccl << -1 << none;
    QTest::newRow("clear screen") << QByteArray("\x1b[H\x1b[2J\x1b[3J+ srun --jobid 1999618 bash") << QByteArray("+ srun --jobid 1999618 bash") << -1 << none;
    QTest::newRow("[rank3]:") << "[rank3]:" + c10 << c10 << 3 << none;
    QTest::newRow("[default3]: ") << "[default3]: " + nccl << nccl << 3 << none;
    QTest::newRow("srun label") << "3: " + nccl << nccl << 3 << none;
    QTest::newRow("srun padded label") << " 12: " + c10 << c10 << 12 << none;
    QTest::newRow("rank3: ") << "rank3: " + nccl << nccl << 3 << none;
    QTest::newRow("open mpi tag") << "[1,5]<stdout>:" + nccl << nccl << 5 << none;
    QTest::newRow("ray worker") << "(RayWorkerWrapper pid=4009) " + nccl << nccl << -1 << none;
    QTest::newRow("ray pid ip + rank") << "(pid=4009, ip=10.0.0.1) [rank1]:" + c10 << c10 << 1 << none;
    QTest::newRow("ray coloured") << "\x1b[36m(RayWorkerWrapper pid=4009)\x1b[0m " + nccl << nccl << -1 << none;
    QTest::newRow("job runner stream") << "train.nolog [stderr] [rank0]:" + c10 << c10 << 0 << none;
    QTest::newRow("k8s stamp") << "2024-05-01T12:00:00.123456789Z " + nccl << nccl << -1 << qint64(1714564800123456789LL);
    QTest::newRow("rfc3339 offset") << "2024-05-01T14:00:00+02:00 " + nccl << nccl << -1 << qint64(1714564800000000000LL);
    QTest::newRow("compose") << "svc_1  | " + nccl << nccl << -1 << none;
    QTest::newRow("comment") << "# [rank2]: " + nccl << nccl << 2 << none;
    QTest::newRow("quote") << QByteArray("> E1217 08:22:51.326000 1234 torch/distributed/elastic/multiprocessing/api.py:869] failed")
                           << QByteArray("E1217 08:22:51.326000 1234 torch/distributed/elastic/multiprocessing/api.py:869] failed") << -1 << none;
    QTest::newRow("stamp, compose, rank") << "2024-05-01T12:00:00Z svc_1  | [rank4]:" + c10 << c10 << 4 << qint64(1714564800000000000LL);
    QTest::newRow("bracket tag before record") << "[worker-2] " + nccl << nccl << -1 << none;
    // Prose and records' own parts that are not wrappers.
    for (const char *prose : {"Note: the run resumed after a restart", "(see below) the job restarted", "1: first step of the recipe",
                              "[INFO] starting epoch 3", "[WARNING] loss is nan", "# a comment about NCCL tuning", "foo | bar | baz",
                              "> quoted prose from an email", "epoch [train] started", "timeout [10m] exceeded",
                              "2024-05-01 12:00:00,123 - INFO - python logging keeps its own stamp", "+ export NCCL_DEBUG=info",
                              "  File \"train.py\", line 10, in <module>", "[1]:"})
        QTest::newRow(prose) << QByteArray(prose) << QByteArray(prose) << -1 << none;
    QTest::newRow("nccl stamp is the record's") << QByteArray("[2025-03-12 10:11:12] ") + nccl << QByteArray("[2025-03-12 10:11:12] ") + nccl << -1 << none;
}

void TestLogWrappers::peel()
{
    QFETCH(QByteArray, line);
    QFETCH(QByteArray, text);
    QFETCH(int, rank);
    QFETCH(qint64, time);
    LineWrapper w(&RecordBoundaries::startsRecord, "UTC");
    const PeeledLine p = w.peel(std::string_view(line.constData(), std::size_t(line.size())));
    QCOMPARE(QByteArray(p.text.data(), qsizetype(p.text.size())), text);
    QCOMPARE(p.rank, rank);
    QCOMPARE(qint64(p.time), time);
    QCOMPARE(p.shapes == 0, line == text);
}

void TestLogWrappers::peeledBytesAndOrigin()
{
    LineWrapper w(&RecordBoundaries::startsRecord);
    const std::string line = "\x1b[36m(RayWorkerWrapper pid=4009)\x1b[0m h:1:1 [0] NCCL INFO x";
    const PeeledLine p = w.peel(line);
    QCOMPARE(p.peeledBytes, line.find("h:1:1"));
    QCOMPARE(std::string(p.origin), std::string("RayWorkerWrapper pid=4009"));
    QVERIFY(p.shapes & WrapAnsi);
    QVERIFY(p.shapes & WrapParenTag);
    const PeeledLine q = w.peel("svc_1  | h:1:1 [0] NCCL INFO x");
    QCOMPARE(q.peeledBytes, std::size_t(9));
    QCOMPARE(std::string(q.origin), std::string("svc_1"));
    QCOMPARE(q.shapes, std::uint32_t(WrapPipeTag));
}

void TestLogWrappers::recurringShapesAreLearned_data()
{
    QTest::addColumn<QString>("head");
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("rank");
    QString compose;
    for (int i = 0; i < 12; ++i)
        compose += QStringLiteral("web_1  | request %1 served\n").arg(i);
    QTest::newRow("compose on every line") << compose << "web_1  | request 3 served" << "request 3 served" << -1;
    QTest::newRow("srun labels confirmed by a record")
        << "0: loading data\n1: loading data\n1: h:1:1 [0] NCCL INFO x\n0: step 1\n" << "0: step 1" << "step 1" << 0;
    QString list = "Steps:\n1: download the data\n2: train\n3: evaluate\n";
    for (int i = 0; i < 20; ++i)
        list += "prose line\n";
    QTest::newRow("numbered prose list") << list << "2: train" << "2: train" << -1;
    QString comments;
    for (int i = 0; i < 10; ++i)
        comments += "# [rank0]: h:1:1 [0] NCCL INFO x\n# step done\n";
    QTest::newRow("log pasted as comments") << comments << "# step done" << "step done" << -1;
    QTest::newRow("one paren tag, no record") << "(pid=4011, ip=10.1.0.2) warming up\nhello\n"
                                              << "(pid=4011, ip=10.1.0.2) warming up" << "(pid=4011, ip=10.1.0.2) warming up" << -1;
}

void TestLogWrappers::recurringShapesAreLearned()
{
    QFETCH(QString, head);
    QFETCH(QString, line);
    QFETCH(QString, text);
    QFETCH(int, rank);
    LineWrapper w(&RecordBoundaries::startsRecord);
    const std::string h = head.toStdString(), l = line.toStdString();
    w.learn(h);
    const PeeledLine p = w.peel(l);
    QCOMPARE(QString::fromStdString(std::string(p.text)), text);
    QCOMPARE(p.rank, rank);
}

void TestLogWrappers::recordStartsDeep_data()
{
    QTest::addColumn<QString>("preamble");
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("ncclLines");
    std::string trace;
    for (int i = 0; i < 1500; ++i)
        trace += i % 3 == 0 ? "++ dirname /gpfs/work/run" + std::to_string(i) + "\n" : "+ export VAR_" + std::to_string(i) + "=x\n";
    trace += "\x1b[H\x1b[2J\x1b[3J+ srun --jobid 42 bash -c launch\n";
    QTest::newRow("set -x trace, then NCCL") << QString::fromStdString(trace) << "job-log" << 3;
    std::string prose;
    for (int i = 0; i < 1600; ++i)
        prose += "building extension module " + std::to_string(i) + "\n";
    QTest::newRow("long preamble without a launcher") << QString::fromStdString(prose) << "nccl-log" << 3;
    QTest::newRow("markdown quoting NCCL") << "# Incident\n\n## What happened\n\n```\n" << "" << 0;
}

void TestLogWrappers::recordStartsDeep()
{
    QFETCH(QString, preamble);
    QFETCH(QString, format);
    QFETCH(int, ncclLines);
    const std::string text = preamble.toStdString() + "r6i4n5:42471:42471 [0] NCCL INFO Bootstrap : Using ib0\n"
                           + "r6i4n5:42471:42471 [0] NCCL INFO NET/IB : Using [0]hfi1_2:1/IB\n"
                           + "r6i4n5:42471:42600 [0] NCCL INFO comm 0x1 rank 0 nranks 64 cudaDev 0 busId 1c000 - Init COMPLETE\n"
                           + "## Another heading\n";
    const SourceBuilder b = importText(text);
    QCOMPARE(QString::fromStdString(b.source().format), format);
    if (format.isEmpty())
        return;
    QCOMPARE(int(b.source().counts.logLines), ncclLines);
    QCOMPARE(b.source().warningCount(), std::size_t(0)); // ordinary lines are records, not problems
    // Every physical line is kept; the ESC sequence is gone from the launcher line.
    QVERIFY(b.logs().records.size() >= std::size_t(1500));
    bool srun = false;
    for (const LogRecord &r : b.logs().records)
        srun |= std::string(b.logs().text(r)) == "+ srun --jobid 42 bash -c launch";
    QVERIFY(srun || format != "job-log");
}

void TestLogWrappers::wrappedLineJoined()
{
    const SourceBuilder b = importText(
        "[rank0]:[E0909 09:55:35.239719860 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpTy\n"
        "pe=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600051 milliseconds before timing out.\n"
        "[rank0]: next line\n");
    QCOMPARE(b.logs().timeouts.size(), std::size_t(1));
    const WatchdogTimeout &t = b.logs().timeouts[0];
    QCOMPARE(t.opType, std::string("BROADCAST"));
    QCOMPARE(t.seq, std::int64_t(5));
    QCOMPARE(t.ranForMs, std::int64_t(600051));
    QCOMPARE(t.rank, 0);
    QCOMPARE(t.line, 1);
    const Diagnostic *d = diagnostic(b, "wrapped-line-joined");
    QVERIFY(d);
    QCOMPARE(d->severity, Diagnostic::Severity::Warning);
    QCOMPARE(d->line, 1);
    QCOMPARE(b.logs().records.size(), std::size_t(2));
    QCOMPARE(b.logs().records[1].line, 3);
}

void TestLogWrappers::wrappedLineNotJoined_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("records");
    const QString cut = "[rank0]:[E0909 09:55:35.239719860 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpTy\n";
    QTest::newRow("prose after the cut") << cut + "step 3 done\n" << 2;
    QTest::newRow("a record after the cut") << cut + "[rank1]:[E0909 09:55:35.3 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 1] hello\n" << 2;
    QTest::newRow("another rank's continuation") << cut + "[rank1]:pe=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600051 milliseconds\n" << 2;
    QTest::newRow("complete line, then more text") << "[rank0]:[E ProcessGroupNCCL.cpp:1] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=BROADCAST, Timeout(ms)=600000) ran for 600051 milliseconds before\n"
                                                       "timing out.\n" << 2;
}

void TestLogWrappers::wrappedLineNotJoined()
{
    QFETCH(QString, text);
    QFETCH(int, records);
    const SourceBuilder b = importText(text.toStdString());
    QCOMPARE(b.diagnosticCount("wrapped-line-joined"), std::int64_t(0));
    QCOMPARE(int(b.logs().records.size()), records);
}

void TestLogWrappers::wrappedInitLineAtEnd()
{
    // A wrapped Init line (the continuation repeats the collector's wrapper), then a cut line at
    // the very end of the input: finish() still reads it.
    const SourceBuilder b = importText("svc_1  | h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 bu\n"
                                       "svc_1  | sId 7000 commId 0xabc - Init COMPLETE\n"
                                       "svc_1  | h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 7000 commId 0xabc - Init ST\n");
    QCOMPARE(b.source().format, std::string("nccl-log"));
    QCOMPARE(b.logs().comms.size(), std::size_t(1));
    QCOMPARE(b.logs().comms[0].busId, std::int64_t(0x7000));
    QVERIFY(b.logs().comms[0].complete);
    QCOMPARE(b.diagnosticCount("wrapped-line-joined"), std::int64_t(1));
    QCOMPARE(b.logs().records.size(), std::size_t(2));
    QCOMPARE(b.logs().records[1].line, 3);
}

void TestLogWrappers::interleavedRecords_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("pieces");
    QTest::addColumn<int>("lastRank");
    QTest::addColumn<int>("lastKind");
    QTest::newRow("old c10 on an NCCL fragment")
        << "h:1:1 [2] NCCL INFO NVLS multicast supp[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, NumelIn=1, NumelOut=8, Timeout(ms)=120000) ran for 120013 milliseconds before timing out."
        << 2 << 2 << int(LogKind::PyTorch);
    QTest::newRow("new c10 on a progress bar")
        << "Epoch 1: 100%|#####| 5/5 [00:01<00:00][rank3]:[E0909 09:55:35.239719860 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 3] hello"
        << 2 << 3 << int(LogKind::PyTorch);
    QTest::newRow("c10 without rank tag") << "loss 2.0 [E ProcessGroupNCCL.cpp:737] bye" << 2 << -1 << int(LogKind::PyTorch);
    QTest::newRow("glog agent line") << "loss 2.0E1217 08:22:51.326000 1234 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 9) of binary: python"
                                     << 2 << -1 << int(LogKind::Torchrun);
    QTest::newRow("logging module line") << "some outputERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1)" << 2 << -1 << int(LogKind::Torchrun);
    QTest::newRow("rank tags mid-line") << "[rank0]: step 1 loss 2.0[rank1]: step 1 loss 2.1" << 2 << 1 << int(LogKind::Other);
    QTest::newRow("three records") << "h:1:1 [0] NCCL INFO a[rank1]:[E ProcessGroupNCCL.cpp:1] x[rank4]:[E ProcessGroupNCCL.cpp:2] y" << 3 << 4 << int(LogKind::PyTorch);
    QTest::newRow("no split: index") << "the value x[0]: 3 and [rank] docs" << 1 << -1 << int(LogKind::Other);
    QTest::newRow("no split: c10 right after its tag") << "[rank5]:[E ProcessGroupNCCL.cpp:1] [Rank 5] x" << 1 << 5 << int(LogKind::PyTorch);
}

void TestLogWrappers::interleavedRecords()
{
    QFETCH(QString, line);
    QFETCH(int, pieces);
    QFETCH(int, lastRank);
    QFETCH(int, lastKind);
    const std::string l = line.toStdString();
    QCOMPARE(int(RecordBoundaries::splicePoints(l).size()), pieces - 1);
    // Two other ranks make the log multi-rank, so unclaimed pieces read as the job's (-1 here).
    const SourceBuilder b = importText("[rank8]: other rank\n[rank9]: other rank\n" + l + "\n");
    const auto &r = b.logs().records;
    QCOMPARE(int(r.size()), pieces + 2);
    QCOMPARE(r.back().rank, lastRank == -1 ? kJobLevel : lastRank);
    QCOMPARE(int(r.back().kind), lastKind);
    QCOMPARE(r.back().line, 3);
    QCOMPARE(bool(r.back().flags & LogFlagInterleaved), pieces > 1);
}

void TestLogWrappers::collectorStampsTimeRecords()
{
    const SourceBuilder b = importText("2024-05-01T12:00:00.5Z [rank0]: step 1\n"
                                       "2024-05-01T12:00:01Z [rank1]:[W501 12:00:01.250000000 x.cpp:1] hi\n"
                                       "2024-05-01T12:00:02Z [rank1]: untimed text\n");
    QCOMPARE(b.source().format, std::string("job-log"));
    QVERIFY(b.source().hasClock);
    QCOMPARE(b.logs().records[0].time, utc("2024-05-01T12:00:00.500Z"));
    QCOMPARE(std::string(b.logs().text(b.logs().records[0])), std::string("step 1"));
    QCOMPARE(b.logs().records[1].time, utc("2024-05-01T12:00:01.250Z")); // the record's own stamp, year from the collector
    QCOMPARE(b.diagnosticCount("stamp-no-year"), std::int64_t(0));
    QCOMPARE(b.logs().records[2].time, utc("2024-05-01T12:00:02.000Z"));
}

void TestLogWrappers::junkBytesAreCounted()
{
    std::string text;
    for (int i = 0; i < 30; ++i) // NUL runs come where a writer was cut, not at the start
        text += "[rank0]: warming up\n";
    text += "[rank0]: h:1:1 [0] NCCL INFO Bootstrap : Using eth0\n";
    text += std::string(300, '\0') + "\n";
    text += "[rank0]: step 1\n";
    text += std::string("\x01\x02\x03\x04\x05\x06\xff\xfe\x07\x08 ok") + "\n";
    text += "[rank1]: step 1" + std::string(5, '\0') + " done\n";
    text += "an ordinary line\n";
    const SourceBuilder b = importText(text);
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.diagnosticCount("nul-bytes"), std::int64_t(2));
    QCOMPARE(b.diagnosticCount("binary-line"), std::int64_t(1));
    QCOMPARE(b.source().diagnostics.size(), std::size_t(2)); // nothing about the ordinary lines
    const auto &r = b.logs().records;
    QCOMPARE(r.size(), std::size_t(34));
    QCOMPARE(std::string(b.logs().text(r[32])), std::string("step 1 done"));
    QCOMPARE(r[32].line, 35);
    QCOMPARE(std::string(b.logs().text(r[33])), std::string("an ordinary line"));
    QCOMPARE(r[33].kind, LogKind::Other);
}

void TestLogWrappers::fixtureKubernetes()
{
    const SourceBuilder b = importFixture("k8s_torchrun_watchdog.log");
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1}));
    QCOMPARE(b.logs().comms.size(), std::size_t(2));
    QCOMPARE(b.logs().comms[1].time, utc("2024-05-01T12:00:02.100Z"));
    QCOMPARE(b.logs().timeouts.size(), std::size_t(2));
    QCOMPARE(b.logs().timeouts[1].rank, 0);
    QCOMPARE(b.logs().timeouts[1].ranForMs, std::int64_t(600010));
    QCOMPARE(b.logs().timeouts[1].line, 8);
    QCOMPARE(b.diagnosticCount("wrapped-line-joined"), std::int64_t(1));
    QCOMPARE(std::string(b.logs().text(b.logs().records.back())), std::string("Note: pod node-b restarted"));
    QCOMPARE(b.logs().records.back().time, utc("2024-05-01T12:10:07.000Z"));
    QCOMPARE(std::string(b.logs().text(b.logs().records.front())), std::string("Starting training job on 2 pods"));
}

void TestLogWrappers::fixtureRay()
{
    const SourceBuilder b = importFixture("ray_vllm_coloured.log");
    QCOMPARE(b.source().format, std::string("nccl-log"));
    QCOMPARE(b.source().counts.logLines, 4);
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1}));
    const auto &r = b.logs().records;
    QCOMPARE(r.size(), std::size_t(7));
    QCOMPARE(r[1].rank, 1); // by the pid of its Init line
    QVERIFY(b.logs().text(r[0]).rfind("host1:4009:4009 [0] NCCL INFO", 0) == 0);
    // Ray's coloured tag recurs in front of records, so it is peeled from prose lines too.
    QCOMPARE(std::string(b.logs().text(r[4])), std::string("INFO 05-01 12:00:09 worker.py:10] model loaded"));
    QCOMPARE(std::string(b.logs().text(r[6])), std::string("INFO 05-01 12:00:10 worker.py:10] model loaded"));
    // A tag seen once, in front of prose, stays text.
    QCOMPARE(std::string(b.logs().text(r[5])), std::string("(pid=4011, ip=10.1.0.2) warming up"));
    for (const LogRecord &rec : r)
        QVERIFY(b.logs().text(rec).find('\x1b') == std::string::npos);
}

void TestLogWrappers::realAlcfPolaris()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/joblog/alcf_polaris_resnet50_2node_8rank_allgather_timeout.log");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    // SOURCES.md: every rank's watchdog fires on SeqNum 1, with these `ran for` values.
    const std::map<RankId, std::int64_t> ranFor = {{0, 120018}, {1, 120090}, {2, 120013}, {3, 120071},
                                                   {4, 120014}, {5, 120069}, {6, 120093}, {7, 120012}};
    // Where each rank's watchdog line is; ranks 2, 4 and 6 wrote theirs glued onto another
    // process's NCCL line (193, 246, 575), and only splitting finds them there.
    const std::map<RankId, std::int64_t> lineOf = {{0, 384}, {1, 521}, {2, 193}, {3, 475},
                                                   {4, 246}, {5, 430}, {6, 575}, {7, 173}};
    std::map<RankId, std::int64_t> seen, firstLine;
    const WatchdogTimeout *first = nullptr;
    for (const WatchdogTimeout &t : b.logs().timeouts) {
        QCOMPARE(t.seq, std::int64_t(1));
        QCOMPARE(t.opType, std::string("ALLGATHER"));
        QCOMPARE(t.timeoutMs, std::int64_t(120000));
        QVERIFY2(ranFor.count(t.rank), std::to_string(t.rank).c_str());
        QCOMPARE(t.ranForMs, ranFor.at(t.rank));
        seen.emplace(t.rank, t.ranForMs);
        auto [it, added] = firstLine.emplace(t.rank, t.line);
        if (!added)
            it->second = std::min(it->second, t.line);
        if (!first || t.line < first->line)
            first = &t;
    }
    QCOMPARE(seen, ranFor);
    QCOMPARE(firstLine, lineOf);
    QVERIFY(first);
    QCOMPARE(first->rank, 7);
    QCOMPARE(first->line, 173);
    int complete = 0;
    for (const NcclCommInfo &c : b.logs().comms)
        complete += c.complete;
    QCOMPARE(complete, 8);
    QCOMPARE(b.source().counts.warnings, 0);
    QCOMPARE(b.source().counts.oomMessages, 0);
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1, 2, 3, 4, 5, 6, 7}));
}

void TestLogWrappers::realJeanZay()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/joblog/bigscience_jeanzay_slurm_16node_64gpu_megatron_timelimit.out");
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        QSKIP("shared samples are not present");
    const QByteArray bytes = f.readAll();
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(b.source().counts.warnings, 0);
    int ncclInfo = 0;
    for (const LogRecord &r : b.logs().records)
        ncclInfo += r.kind == LogKind::Nccl && b.logs().text(r).find(" NCCL INFO ") != std::string::npos;
    QCOMPARE(ncclInfo, int(bytes.count(" NCCL INFO "))); // SOURCES.md: 8,485
    QCOMPARE(ncclInfo, 8485);
    std::set<std::int32_t> nranks;
    for (const NcclCommInfo &c : b.logs().comms)
        nranks.insert(c.nranks);
    QCOMPARE(nranks, std::set<std::int32_t>({1, 2, 4, 16, 64}));
    QCOMPARE(b.logs().timeouts.size(), std::size_t(0));
    QCOMPARE(int(b.logs().records.size()), int(bytes.count('\n')));
    // The raw clear-screen sequence is peeled off the launcher line it precedes.
    bool srun = false;
    for (const LogRecord &r : b.logs().records)
        srun |= b.logs().text(r).rfind("+ srun --jobid 1999618 ", 0) == 0;
    QVERIFY(srun);
}

QTEST_GUILESS_MAIN(TestLogWrappers)
#include "test_logwrappers.moc"
