// NCCL debug logs and torchrun job logs: line grammar, rank attribution, spliced lines, c10 and
// glog stamps, watchdog timeouts, tracebacks, the ChildFailedError summary, and the real samples.

#include "importerregistry.h"
#include "nccllog/logline.h"

#include <QDateTime>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

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

std::vector<const LogRecord *> recordsWith(const SourceBuilder &b, std::uint16_t flag)
{
    std::vector<const LogRecord *> out;
    for (const LogRecord &r : b.logs().records)
        if (r.flags & flag)
            out.push_back(&r);
    return out;
}

// An independent count of NCCL records: every occurrence of a header, spliced ones included.
int countNcclHeaders(const QByteArray &text)
{
    static const QRegularExpression re(QStringLiteral(R"([A-Za-z0-9._-]+:\d+:\d+ \[\d+\] (?:\S+ )*?NCCL (?:INFO|WARN|TRACE) )"));
    int n = 0;
    for (const QByteArray &line : text.split('\n')) {
        auto it = re.globalMatch(QString::fromUtf8(line));
        while (it.hasNext()) {
            it.next();
            ++n;
        }
        if (line.startsWith("NCCL version "))
            ++n;
    }
    return n;
}

} // namespace

class TestLogs : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rankPrefix_data();
    void rankPrefix();
    void ncclHeader_data();
    void ncclHeader();
    void sniffing_data();
    void sniffing();
    void ncclInitAndRanksByProcess();
    void timestampedWarnAndSettings();
    void collectiveCalls();
    void splicedLines();
    void jobLogSplitsRanks();
    void watchdogTimeout_data();
    void watchdogTimeout();
    void c10StampsTakeYearFromLog();
    void childFailedSummary();
    void ooomTracebackAndTableGoToRank();
    void realNcclTests();
    void realInterleavedDdp();
};

void TestLogs::rankPrefix_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("skip");
    QTest::newRow("[rank2]:") << "[rank2]:[E321 02:07:08.4 x.cpp:1] m" << 2 << 8;
    QTest::newRow("[default3]: ") << "[default3]: hello" << 3 << 12;
    QTest::newRow("[12]:") << "[12]:x" << 12 << 5;
    QTest::newRow("5: ") << "5: epoch 1" << 5 << 3;
    QTest::newRow("not a prefix: time") << "12:30:01 started" << -1 << 0;
    QTest::newRow("not a prefix: bracket word") << "[INFO]: x" << -1 << 0;
}

void TestLogs::rankPrefix()
{
    QFETCH(QString, line);
    QFETCH(int, rank);
    QFETCH(int, skip);
    const std::string s = line.toStdString();
    const auto p = logline::rankPrefix(s);
    QCOMPARE(p.has_value(), rank >= 0);
    if (p) {
        QCOMPARE(p->rank, rank);
        QCOMPARE(int(p->length), skip);
    }
}

void TestLogs::ncclHeader_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<int>("pid");
    QTest::addColumn<int>("dev");
    QTest::addColumn<QString>("level");
    QTest::addColumn<QString>("message");
    QTest::newRow("info") << "node1:123:456 [3] NCCL INFO Bootstrap : Using eth0" << true << 123 << 3 << "I" << "Bootstrap : Using eth0";
    QTest::newRow("warn <= 2.25") << "node1:123:456 [0] misc/socket.cc:50 NCCL WARN Call to connect returned Connection refused, retrying" << true << 123 << 0 << "W" << "Call to connect returned Connection refused, retrying";
    QTest::newRow("warn with func") << "node1:123:456 [0] enqueue.cc:12 (ncclLaunch) NCCL WARN Cuda failure 2 'out of memory'" << true << 123 << 0 << "W" << "Cuda failure 2 'out of memory'";
    QTest::newRow("trace") << "h:1:2 [1] 12.500000 ncclProxy:10 NCCL TRACE x" << true << 1 << 1 << "T" << "x";
    QTest::newRow("bare version") << "NCCL version 2.21.5+cuda12.4" << true << 0 << -1 << "V" << "NCCL version 2.21.5+cuda12.4";
    QTest::newRow("no nccl") << "node1:123:456 [3] hello" << false << 0 << 0 << "" << "";
    QTest::newRow("time of day") << "12:30:01 [3] NCCL INFO x" << false << 0 << 0 << "" << "";
}

void TestLogs::ncclHeader()
{
    QFETCH(QString, line);
    QFETCH(bool, ok);
    QFETCH(int, pid);
    QFETCH(int, dev);
    QFETCH(QString, level);
    QFETCH(QString, message);
    const std::string s = line.toStdString();
    const auto h = logline::ncclHeader(s);
    QCOMPARE(h.has_value(), ok);
    if (!h)
        return;
    QCOMPARE(int(h->pid), pid);
    QCOMPARE(h->dev, dev);
    QCOMPARE(QString(QChar(h->level)), level);
    QCOMPARE(QString::fromStdString(std::string(h->message)), message);
}

void TestLogs::sniffing_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("format");
    QTest::newRow("nccl") << "h:1:1 [0] NCCL INFO Bootstrap : Using eth0\nh:1:1 [0] NCCL INFO x\n" << "nccl-log";
    QTest::newRow("job with rank prefixes") << "[rank0]: h:1:1 [0] NCCL INFO x\n[rank1]: h:2:2 [0] NCCL INFO x\n" << "job-log";
    QTest::newRow("job with c10 line") << "[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout\n" << "job-log";
    QTest::newRow("agent lines") << "E0801 13:23:20.000000 32974 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 3 (pid: 33054) of binary: /usr/bin/python3\n" << "job-log";
    QTest::newRow("plain text") << "hello\nworld\n" << "";
}

void TestLogs::sniffing()
{
    QFETCH(QString, text);
    QFETCH(QString, format);
    const SourceBuilder b = importText(text.toStdString());
    QCOMPARE(QString::fromStdString(b.source().format), format);
}

void TestLogs::ncclInitAndRanksByProcess()
{
    // Two ranks in one process (nccl-tests style) and a third process: ranks come from Init lines,
    // by pid and device, also for lines printed before the Init line.
    const SourceBuilder b = importText("NCCL version 2.19.3+cuda12.2\n"
                                       "h:10:10 [0] NCCL INFO Bootstrap : Using eth0\n"
                                       "h:10:11 [1] NCCL INFO Channel 00/02 : 0 1 2\n"
                                       "h:10:10 [0] NCCL INFO comm 0x1 rank 0 nranks 3 cudaDev 0 busId 7000 commId 0xabc - Init COMPLETE\n"
                                       "h:10:11 [1] NCCL INFO comm 0x2 rank 1 nranks 3 cudaDev 1 busId 1b000 commId 0xabc - Init COMPLETE\n"
                                       "h:20:20 [0] NCCL INFO ncclCommInitRank comm 0x3 rank 2 nranks 3 cudaDev 0 nvmlDev 0 busId 3000 commId 0xabc - Init COMPLETE\n"
                                       "h:20:21 [0] NCCL INFO Connected all rings\n");
    QCOMPARE(b.source().format, std::string("nccl-log"));
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1, 2}));
    QCOMPARE(b.source().worldSize, 3);
    QCOMPARE(b.source().counts.logLines, 7);
    QCOMPARE(b.source().metadataValue("nccl_version"), std::string("\"2.19.3+cuda12.2\""));
    const auto &recs = b.logs().records;
    QCOMPARE(recs[1].rank, 0);
    QCOMPARE(recs[2].rank, 1);
    QCOMPARE(recs[6].rank, 2);
    QCOMPARE(b.logs().comms.size(), std::size_t(3));
    QCOMPARE(b.logs().comms[1].busId, std::int64_t(0x1b000));
    QCOMPARE(b.logs().comms[1].rank, 1);
    QCOMPARE(b.logs().comms[2].commId, std::string("0xabc"));
    QVERIFY(b.logs().comms[2].complete);
    QVERIFY(!b.source().hasClock);
}

void TestLogs::timestampedWarnAndSettings()
{
    const SourceBuilder b = importText("[2025-03-12 10:11:12.250000] h:1:1 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 16777216.\n"
                                       "h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
                                       "\n"
                                       "[2025-03-12 10:11:13] h:1:1 [0] transport/net_ib.cc:10 (ncclIbConnect) NCCL WARN NET/IB : Got completion from peer 10.0.0.2 with error 12\n");
    QCOMPARE(b.source().counts.warnings, 1);
    QCOMPARE(b.source().counts.logLines, 3);
    QVERIFY(b.source().hasClock);
    QCOMPARE(b.logs().records[0].time, utc("2025-03-12T10:11:12.250Z"));
    QVERIFY2(b.logs().text(b.logs().records[0]).rfind("h:1:1 [0] NCCL INFO", 0) == 0, std::string(b.logs().text(b.logs().records[0])).c_str());
    QCOMPARE(b.logs().records[1].time, kNoTime);
    QCOMPARE(b.logs().records[3].level, LogLevel::Warning);
    QCOMPARE(b.logs().settings.size(), std::size_t(2));
    QCOMPARE(b.logs().settings[0].name, std::string("NCCL_BUFFSIZE"));
    QCOMPARE(b.logs().settings[0].value, std::string("16777216"));
    QCOMPARE(b.logs().settings[1].value, std::string("Ring"));
    QCOMPARE(b.source().timeRange.begin, utc("2025-03-12T10:11:12.250Z"));
}

void TestLogs::collectiveCalls()
{
    const SourceBuilder b = importText(
        "h:1:1 [0] NCCL INFO AllReduce: opCount 1f sendbuff 0x7f00 recvbuff 0x7f00 count 4194304 datatype 7 op 0 root 0 comm 0x55 [nranks=8] stream 0x9\n"
        "h:1:1 [0] NCCL INFO Broadcast: opCount 20 sendbuff 0x7f00 recvbuff 0x7f00 count 10 datatype 0 op 0 root 3 comm 0x55 [nranks=8] stream 0x9\n");
    QCOMPARE(b.logs().calls.size(), std::size_t(2));
    QCOMPARE(b.logs().calls[0].op, std::string("AllReduce"));
    QCOMPARE(b.logs().calls[0].opCount, std::uint64_t(0x1f));
    QCOMPARE(b.logs().calls[0].count, std::int64_t(4194304));
    QCOMPARE(b.logs().calls[0].datatype, 7);
    QCOMPARE(b.logs().calls[1].opCount, std::uint64_t(0x20));
}

void TestLogs::splicedLines()
{
    const SourceBuilder b = importText(
        "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 2000 commId 0x9 - Init COMPLETE\n"
        "a:2:2 [1] NCCL INFO comm 0x2 rank 1 nranks a:1:1 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1\n"
        "a:2:2 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 3000 commId 0x9 - Init COMPLETE\n");
    QCOMPARE(b.source().counts.logLines, 4);
    const auto cut = recordsWith(b, LogFlagInterleaved);
    QCOMPARE(cut.size(), std::size_t(2));
    QCOMPARE(cut[0]->line, 2);
    QCOMPARE(cut[0]->rank, 1);
    QCOMPARE(cut[1]->rank, 0);
    QVERIFY(b.logs().text(*cut[1]).find("Trees") != std::string::npos);
    QCOMPARE(b.logs().comms.size(), std::size_t(2)); // the cut Init line is not mistaken for one
}

void TestLogs::jobLogSplitsRanks()
{
    const SourceBuilder b = importText("[rank0]: step 1 loss 2.0\n"
                                       "[rank1]: [WARNING] step 1 loss 2.1\n"
                                       "[rank1]: h:7:7 [1] NCCL INFO Bootstrap : Using eth0\n"
                                       "W0801 13:23:20.000000 32974 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 33051 closing signal SIGTERM\n"
                                       "+ torchrun --nproc-per-node 2 train.py\n");
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1}));
    const auto &r = b.logs().records;
    QCOMPARE(r.size(), std::size_t(5));
    QCOMPARE(r[0].rank, 0);
    QCOMPARE(r[1].level, LogLevel::Warning); // the logging module's own level word
    QCOMPARE(r[4].rank, kJobLevel);          // a line no rank claimed belongs to the job
    QCOMPARE(r[0].kind, LogKind::Other);
    QCOMPARE(std::string(b.logs().text(r[0])), std::string("step 1 loss 2.0"));
    QCOMPARE(r[2].rank, 1);
    QCOMPARE(r[2].kind, LogKind::Nccl);
    QCOMPARE(r[3].rank, kJobLevel);
    QCOMPARE(r[3].kind, LogKind::Torchrun);
    QCOMPARE(r[3].level, LogLevel::Warning);
    QCOMPARE(b.source().counts.logLines, 2);
}

void TestLogs::watchdogTimeout_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("rank");
    QTest::addColumn<qint64>("seq");
    QTest::addColumn<qint64>("numelIn");
    QTest::addColumn<qint64>("ranFor");
    QTest::newRow("new with numel") << "[rank3]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out."
                                    << 3 << qint64(1580) << qint64(466119168) << qint64(600060);
    QTest::newRow("old without numel") << "[E ProcessGroupNCCL.cpp:475] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800429 milliseconds before timing out."
                                       << 5 << qint64(469508) << qint64(-1) << qint64(1800429);
}

void TestLogs::watchdogTimeout()
{
    QFETCH(QString, line);
    QFETCH(int, rank);
    QFETCH(qint64, seq);
    QFETCH(qint64, numelIn);
    QFETCH(qint64, ranFor);
    const SourceBuilder b = importText(line.toStdString() + "\n");
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.logs().timeouts.size(), std::size_t(1));
    const WatchdogTimeout &w = b.logs().timeouts[0];
    QCOMPARE(w.rank, rank);
    QCOMPARE(qint64(w.seq), seq);
    QCOMPARE(w.opType, std::string("ALLREDUCE"));
    QCOMPARE(qint64(w.numelIn), numelIn);
    QCOMPARE(qint64(w.ranForMs), ranFor);
    QCOMPARE(b.logs().records[0].level, LogLevel::Error);
    QVERIFY(b.logs().records[0].flags & LogFlagWatchdogTimeout);
}

void TestLogs::c10StampsTakeYearFromLog()
{
    const SourceBuilder b = importText("[rank0]:[W321 02:07:08.500000000 ProcessGroupNCCL.cpp:1] [PG 0 Rank 0] desync debug report follows\n"
                                       "[2024-03-21 02:00:00] job started\n");
    QCOMPARE(b.logs().records[0].time, utc("2024-03-21T02:07:08.500Z"));
    QVERIFY(b.logs().records[0].flags & LogFlagDesync);
    const SourceBuilder untimed = importText("[rank0]:[W321 02:07:08.500000000 ProcessGroupNCCL.cpp:1] hello\n");
    QCOMPARE(untimed.logs().records[0].time, kNoTime);
    QCOMPARE(untimed.source().diagnostics.size(), std::size_t(1)); // says why it stayed untimed
}

void TestLogs::childFailedSummary()
{
    const std::string eq(60, '='), dash(60, '-');
    const SourceBuilder b = importText(
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + eq + "\ntrain.py FAILED\n" + dash
        + "\nFailures:\n[1]:\n  time      : 2023-09-04_10:10:24\n  host      : node2\n  rank      : 3 (local_rank: 1)\n"
          "  exitcode  : -9 (pid: 3669031)\n  error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) received by PID 3669031\n"
        + dash + "\nRoot Cause (first observed failure):\n[0]:\n  time      : 2023-09-04_10:10:23\n  host      : node1\n"
          "  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 3669030)\n  error_file: <N/A>\n"
          "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        + eq + "\nafter the summary\n");
    QCOMPARE(b.source().format, std::string("job-log"));
    QVERIFY(b.source().diagnostics.empty());
    const auto &f = b.logs().failures;
    QCOMPARE(f.size(), std::size_t(2));
    QCOMPARE(f[0].rank, 3); // "[1]:" numbers the entry; the rank is on the "rank" line
    QCOMPARE(f[0].exitCode, -9);
    QCOMPARE(f[0].signal, std::string("SIGKILL"));
    QCOMPARE(f[0].host, std::string("node2"));
    QVERIFY(!f[0].rootCause);
    QCOMPARE(f[1].rank, 0);
    QCOMPARE(f[1].exitCode, 1);
    QCOMPARE(f[1].pid, std::int64_t(3669030));
    QCOMPARE(f[1].localRank, 0);
    QVERIFY(f[1].rootCause);
    QCOMPARE(f[1].line, 15);
    QCOMPARE(std::string(b.logs().text(b.logs().records.back())), std::string("after the summary"));
    QCOMPARE(b.logs().records.back().rank, kJobLevel); // a multi-rank log: unclaimed lines are the job's
}

void TestLogs::ooomTracebackAndTableGoToRank()
{
    const std::string rule = "|===========================================================================|";
    std::string log;
    log += "[rank2]: Traceback (most recent call last):\n";
    log += "[rank2]:   File \"train.py\", line 10, in <module>\n";
    log += "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of 79.15 GiB of which 1.00 GiB is free. Of the allocated memory 70.00 GiB is allocated by PyTorch, and 6.00 GiB is reserved by PyTorch but unallocated.\n";
    log += "[rank2]: " + rule + "\n";
    log += "[rank2]: |                  PyTorch CUDA memory summary, device ID 2                 |\n";
    log += "[rank2]: |---------------------------------------------------------------------------|\n";
    log += "[rank0]: step 3 done\n";
    log += "[rank2]: |            CUDA OOMs: 1            |        cudaMalloc retries: 2         |\n";
    log += "[rank2]: " + rule + "\n";
    log += "[rank2]: |        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n";
    log += "[rank2]: | Allocated memory      |  71680 MiB |  76800 MiB |    900 GiB |    889 GiB |\n";
    log += "[rank2]: " + rule + "\n";
    const SourceBuilder b = importText(log);
    QCOMPARE(b.source().format, std::string("job-log"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(b.source().counts.oomMessages, 1);
    QCOMPARE(b.source().counts.memorySummaries, 1);
    QCOMPARE(b.ooms()[0].rank, 2);
    QCOMPARE(b.ooms()[0].device, 2);
    QCOMPARE(b.memorySummaries()[0].rank, 2);
    QCOMPARE(b.memorySummaries()[0].oom, 0);
    const auto ooms = recordsWith(b, LogFlagOom);
    QCOMPARE(ooms.size(), std::size_t(1));
    QCOMPARE(ooms[0]->kind, LogKind::Python);
    QCOMPARE(ooms[0]->level, LogLevel::Error);
    QCOMPARE(ooms[0]->line, 3);
}

void TestLogs::realNcclTests()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/nccl/nccl-tests_all_reduce_2gpu_nccl2.27.7.log");
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        QSKIP("shared samples are not present");
    const QByteArray text = f.readAll();
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("nccl-log"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(int(b.source().counts.logLines), countNcclHeaders(text));
    QCOMPARE(int(b.source().counts.warnings), int(text.count(" NCCL WARN ")));
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1}));
    QCOMPARE(b.source().worldSize, 2);
    QCOMPARE(b.source().metadataValue("nccl_version"), std::string("\"2.27.7+cuda13.0\""));
    int complete = 0;
    for (const NcclCommInfo &c : b.logs().comms) {
        complete += c.complete;
        QCOMPARE(c.commId, std::string("0x54fe282d32a87d85"));
        QCOMPARE(c.busId, c.rank == 0 ? std::int64_t(0x17000) : std::int64_t(0x65000));
    }
    QCOMPARE(complete, 2);
    // Every NCCL record of device [1] belongs to rank 1.
    for (const LogRecord &r : b.logs().records)
        if (r.kind == LogKind::Nccl && b.logs().text(r).find(" [1] NCCL") != std::string::npos)
            QCOMPARE(r.rank, 1);
}

void TestLogs::realInterleavedDdp()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/nccl/raddet_ddp_2rank_nccl_debug.log");
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        QSKIP("shared samples are not present");
    const QByteArray text = f.readAll();
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("nccl-log"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(int(b.source().counts.logLines), countNcclHeaders(text));
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1}));
    QCOMPARE(b.logs().comms.size(), std::size_t(2));
    for (const NcclCommInfo &c : b.logs().comms)
        QCOMPARE(c.busId, c.rank == 0 ? std::int64_t(0x2000) : std::int64_t(0x3000));
    QVERIFY(!recordsWith(b, LogFlagInterleaved).empty());
    for (const LogRecord &r : b.logs().records)
        if (r.kind == LogKind::Nccl && b.logs().text(r).find(":803564:") != std::string::npos)
            QCOMPARE(r.rank, 1);
}

QTEST_GUILESS_MAIN(TestLogs)
#include "test_logs.moc"
