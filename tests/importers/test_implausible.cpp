// Numbers no real job writes (year 9999, 10^20 MiB, sizes past 1 PiB) are not used: nothing
// overflows, the time range stays in 1990-2100, and the good rows beside them are kept.

#include "importerregistry.h"
#include "plausible.h"

#include <QFile>
#include <QTest>

#include <map>

using namespace rs;

namespace {

SourceBuilder import(const std::string &bytes, const std::string &name)
{
    ImportContext ctx;
    ctx.timeZone = "UTC";
    return ImporterRegistry::instance().importBytes(bytes, name, ctx);
}

double maxCounter(const SourceBuilder &b, TrackKind kind)
{
    double m = -1;
    for (const Track &t : b.tracks())
        if (t.kind == kind)
            for (double v : t.counter.values)
                m = std::max(m, v);
    return m;
}

} // namespace

class TestImplausible : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void values_data();
    void values();
    void distributedInfo_data();
    void distributedInfo();
    void traceValuesAndLocations();
    void stepMemoryPastAPetabyte();
    void hugeNumbersInNvidiaSmiRows();
    void launcherTagWithNoRank_data();
    void launcherTagWithNoRank();
    void initStatementInAVersionBanner();
};

void TestImplausible::values_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("maxUsedMiB"); // largest nvidia-smi memory.used kept, -1 when none
    QTest::addColumn<int>("oomRequestedGiB"); // -1: the OOM's request is not used
    const QString header = QStringLiteral("timestamp, index, memory.used [MiB]\n");
    QTest::newRow("smi year 9999") << "gpu.csv"
                                   << header + "2024/05/01 10:00:00.000, 0, 1000 MiB\n9999/12/31 23:59:59.000, 0, 2000 MiB\n"
                                                "2024/05/01 10:00:01.000, 0, 1500 MiB\n"
                                   << 1500.0 << -1;
    QTest::newRow("smi 10^20 MiB") << "gpu.csv"
                                   << header + "2024/05/01 10:00:00.000, 0, 1000 MiB\n2024/05/01 10:00:01.000, 0, 99999999999999999999 MiB\n"
                                                "2024/05/01 10:00:02.000, 0, 1200 MiB\n"
                                   << 1200.0 << -1;
    QTest::newRow("smi epoch seconds far future") << "gpu.csv"
                                                  << QStringLiteral("timestamp, index, memory.used [MiB]\n1714557600, 0, 900 MiB\n"
                                                                    "99999999999, 0, 950 MiB\n1714557601, 0, 800 MiB\n")
                                                  << 900.0 << -1;
    QTest::newRow("log year 9999") << "train.log"
                                   << QStringLiteral("2024-05-01 10:00:00,000 - INFO - step 1\n9999-12-31 23:59:59,000 - INFO - step 2\n"
                                                     "2024-05-01 10:00:05,000 - INFO - step 3\n")
                                   << -1.0 << -1;
    // Found fuzzing: an nvidia-smi table header of year 2 overflowed in ns.
    {
        QFile f(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/nvidiasmi/table_then_csv.txt"));
        if (f.open(QIODevice::ReadOnly)) {
            QString table = QString::fromUtf8(f.readAll());
            table.replace(QStringLiteral("Tue Mar 12 09:30:05 2024"), QStringLiteral("Tue Mar 12 09:30:05 2"));
            QTest::newRow("smi table header of year 2") << "smi.txt" << table << -1.0 << -1;
        }
    }
    // Found fuzzing: an RFC 3339 wrapper stamp of year 9999 overflowed in ns.
    QTest::newRow("log wrapper stamp year 9999") << "train.log"
                                                 << QStringLiteral("2024-05-01T10:00:00Z node-a:11:12 [0] NCCL INFO Bootstrap : Using eth0\n"
                                                                   "9999-12-31T23:59:59.5Z node-a:11:12 [0] NCCL INFO cudaDriverVersion 12040\n"
                                                                   "9999-12-31T23:59:59 node-a:11:12 [0] NCCL INFO NCCL version 2.21.5\n"
                                                                   "2024-05-01T10:00:05Z node-a:11:12 [0] NCCL INFO comm 0xa0 rank 0 nranks 2 "
                                                                   "cudaDev 0 busId 7000 - Init COMPLETE\n")
                                                 << -1.0 << -1;
    QTest::newRow("oom of 99999999999 GiB") << "train.log"
                                            << QStringLiteral("2024-05-01 10:00:00,000 RuntimeError: CUDA out of memory. Tried to allocate "
                                                              "99999999999.00 GiB (GPU 0; 15.90 GiB total capacity; 14.77 GiB already "
                                                              "allocated; 25.81 MiB free; 14.98 GiB reserved in total by PyTorch)\n")
                                            << -1.0 << -1;
    QTest::newRow("oom near miss") << "train.log"
                                   << QStringLiteral("2024-05-01 10:00:00,000 RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB "
                                                     "(GPU 0; 15.90 GiB total capacity; 14.77 GiB already allocated; 25.81 MiB free; "
                                                     "14.98 GiB reserved in total by PyTorch)\n")
                                   << -1.0 << 2;
}

void TestImplausible::values()
{
    QFETCH(QString, name);
    QFETCH(QString, text);
    QFETCH(double, maxUsedMiB);
    QFETCH(int, oomRequestedGiB);
    const SourceBuilder b = import(text.toStdString(), name.toStdString());
    QVERIFY(!b.source().format.empty());
    const TimeRange r = b.source().timeRange;
    if (!r.isEmpty()) {
        QVERIFY2(plausible::epochNs(r.begin), qPrintable(QString::number(r.begin)));
        QVERIFY2(plausible::epochNs(r.end - 1), qPrintable(QString::number(r.end)));
    }
    if (maxUsedMiB >= 0)
        QCOMPARE(maxCounter(b, TrackKind::GpuMemoryUsed), maxUsedMiB * 1024 * 1024);
    for (const OomEvent &o : b.ooms())
        QCOMPARE(o.requested, oomRequestedGiB < 0 ? std::int64_t(-1) : std::int64_t(oomRequestedGiB) << 30);
}

void TestImplausible::distributedInfo_data()
{
    QTest::addColumn<QString>("info");
    QTest::addColumn<int>("rank");       // -1: no rank from the content
    QTest::addColumn<int>("worldSize");
    QTest::addColumn<QString>("warning"); // "" none
    QTest::newRow("good") << R"({"rank": 3, "world_size": 8})" << 3 << 8 << "";
    QTest::newRow("negative rank") << R"({"rank": -1, "world_size": 8})" << -1 << 8 << "rank-implausible";
    QTest::newRow("rank 2^40") << R"({"rank": 1099511627776, "world_size": 8})" << -1 << 8 << "rank-implausible";
    QTest::newRow("string rank") << R"({"rank": "three", "world_size": 8})" << -1 << 8 << "rank-implausible";
    QTest::newRow("rank 7 of 2") << R"({"rank": 7, "world_size": 2})" << 7 << 0 << "rank-outside-world";
    QTest::newRow("world size 0") << R"({"rank": 0, "world_size": 0})" << 0 << 0 << "world-size-implausible";
}

void TestImplausible::distributedInfo()
{
    QFETCH(QString, info);
    QFETCH(int, rank);
    QFETCH(int, worldSize);
    QFETCH(QString, warning);
    const std::string trace = R"({"schemaVersion": 1, "distributedInfo": )" + info.toStdString()
        + R"(, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]})";
    const SourceBuilder b = import(trace, "trace.json");
    QCOMPARE(b.source().format, std::string("pytorch-trace"));
    QCOMPARE(b.source().ranks, rank < 0 ? std::vector<RankId>{} : std::vector<RankId>{rank});
    QCOMPARE(b.source().worldSize, worldSize);
    bool found = warning.isEmpty();
    for (const Diagnostic &d : b.source().diagnostics)
        found = found || d.code == warning.toStdString();
    QVERIFY2(found, qPrintable(warning));
}

void TestImplausible::traceValuesAndLocations()
{
    // A [memory] total of 1e300 B and one of 2^60 would set every rank's memory scale; a year-9999
    // ts would stretch the window: none is used, and each warning points at its first event.
    const std::string head = R"({"schemaVersion": 1, "traceEvents": [)";
    const std::string good = R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1700000000000000, "args": {"Device Type": 1, "Device Id": 0, "Total Allocated": 1073741824, "Total Reserved": 2147483648, "Bytes": 1024}})";
    const std::string huge = R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1700000000000001, "args": {"Device Type": 1, "Device Id": 0, "Total Allocated": 1e300, "Total Reserved": 1152921504606846976, "Bytes": 1024}})";
    const std::string future = R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 253402300799000000, "dur": 5})";
    const std::string op = R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1700000000000002, "dur": 5})";
    const std::string trace = head + good + ", " + huge + ", " + future + ", " + op + "]}";
    const SourceBuilder b = import(trace, "trace.json");
    QCOMPARE(maxCounter(b, TrackKind::MemoryAllocated), 1073741824.0);
    QCOMPARE(maxCounter(b, TrackKind::MemoryReserved), 2147483648.0);
    QVERIFY(plausible::epochNs(b.source().timeRange.end - 1));
    const auto offsetOf = [&](const std::string &event) { return std::int64_t(trace.find(event)); };
    std::map<std::string, std::int64_t> located;
    for (const Diagnostic &d : b.source().diagnostics)
        located[d.code] = d.offset;
    QCOMPARE(located.count("memory-value-implausible"), std::size_t(1));
    QCOMPARE(located["memory-value-implausible"], offsetOf(huge));
    QCOMPARE(located.count("event-bad-time"), std::size_t(1));
    QCOMPARE(located["event-bad-time"], offsetOf(future));
}

// Found fuzzing: a 30-digit pid or GPU index threw std::out_of_range out of the importer (a crash).
void TestImplausible::hugeNumbersInNvidiaSmiRows()
{
    QFile f(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/nvidiasmi/compute_apps_busid.csv"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    QVERIFY(lines.size() >= 2);
    QString row = lines[1];
    const int comma = row.indexOf(QLatin1Char(','));
    QVERIFY(comma > 0);
    row = QStringLiteral("999999999999999999999999999999") + row.mid(comma); // the first column (pid) too long
    const std::string text = QString(lines[0] + QLatin1Char('\n') + row + QLatin1Char('\n') + lines.mid(1).join(QLatin1Char('\n'))).toStdString();
    const SourceBuilder b = import(text, "apps.csv"); // must not throw
    QVERIFY(!b.source().format.empty());
    const std::string table = "Tue Mar 12 09:30:05 2024\n|  99999999999999999999  N/A  N/A  123456789012345678901234567890  C  python  100MiB |\n";
    (void)import(table, "smi.txt");
}

// Found fuzzing: a per-step memory line of 462048 TB became a counter far past any GPU.
void TestImplausible::stepMemoryPastAPetabyte()
{
    const SourceBuilder b = import("[rank0]: iter 1 | memory_allocated=2304.0MB memory_reserved=4096.0MB\n"
                                   "[rank0]: iter 2 | memory_allocated=462048000000.0MB memory_reserved=4096.0MB\n"
                                   "[rank0]: iter 3 | memory_allocated=2304.0MB memory_reserved=4096.0MB\n",
                                   "train.log");
    QVERIFY(maxCounter(b, TrackKind::MemoryAllocated) > 0);
    QCOMPARE(maxCounter(b, TrackKind::MemoryAllocated), 2304.0 * 1024 * 1024); // training logs mean MiB by "MB"
    bool warned = false;
    for (const Diagnostic &d : b.source().diagnostics)
        warned |= d.code == "memory-value-implausible" && d.line == 2;
    QVERIFY(warned);
}

// "[rank999999999]: ... OutOfMemoryError" is a tag, but no rank: the OOM is read, credited to no
// rank (not to rank 0 or to the number cut short), and the line is reported. A real tag still works.
void TestImplausible::launcherTagWithNoRank_data()
{
    QTest::addColumn<QString>("tag");
    QTest::addColumn<int>("rank"); // -1: none
    QTest::addColumn<bool>("warned");
    QTest::newRow("rank 999999999") << QStringLiteral("[rank999999999]:") << -1 << true;
    QTest::newRow("default 2^63") << QStringLiteral("[default9223372036854775808]:") << -1 << true;
    QTest::newRow("rank 3") << QStringLiteral("[rank3]:") << 3 << false;
    QTest::newRow("rank 999999 (6 digits)") << QStringLiteral("[rank999999]:") << 999999 << false;
}

void TestImplausible::launcherTagWithNoRank()
{
    QFETCH(QString, tag);
    QFETCH(int, rank);
    QFETCH(bool, warned);
    const std::string line = tag.toStdString()
        + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB "
          "of which 1.00 GiB is free. Of the allocated memory 70.00 GiB is allocated by PyTorch\n";
    const SourceBuilder b = import("2024-05-01 10:00:00,000 INFO start\n" + line, "train.log");
    QCOMPARE(b.ooms().size(), std::size_t(1));
    QCOMPARE(b.ooms().front().rank, RankId(rank));
    QCOMPARE(b.ooms().front().requested, std::int64_t(2) << 30);
    bool found = false;
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code == "rank-implausible") {
            found = true;
            QCOMPARE(d.line, std::int64_t(2));
        }
    QCOMPARE(found, warned);
}

// Found fuzzing: an NCCL Init statement spliced into a line with no host:pid header ("NCCL version
// ..." banner) belongs to no process; among several processes it indexed the process table at -1.
void TestImplausible::initStatementInAVersionBanner()
{
    const SourceBuilder b = import("node-a:1000:1000 [0] NCCL INFO Bootstrap : Using eth0\n"
                                   "node-a:1001:1001 [1] NCCL INFO Bootstrap : Using eth0\n"
                                   "NCCL version 52386:852484 [1] NCCL INFO comm 0x5642027cb570 rank 5 nranks 8 cudaDev 1 "
                                   "busId 46000 commId 0x6511a811a4dab60c - Init START\n"
                                   "node-a:1001:1001 [1] NCCL INFO comm 0xa1 rank 1 nranks 8 cudaDev 1 busId 8000 "
                                   "commId 0xbeef - Init COMPLETE\n",
                                   "nccl.log");
    QCOMPARE(b.logs().comms.size(), std::size_t(2));
    // The process with a header still gets its rank from its own communicator.
    QCOMPARE(b.logs().comms.back().rank, RankId(1));
}

QTEST_GUILESS_MAIN(TestImplausible)
#include "test_implausible.moc"
