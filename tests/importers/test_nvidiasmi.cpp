// nvidia-smi: query-gpu CSV with/without header and units, missing values, time zones, cut-off
// rows, script-written headers, dmon, compute-apps, content after a human-readable table, NUL runs,
// torn rows and two writers on one index, process → GPU joins by uuid, bus id and NCCL busId,
// and the real samples.

#include "importerregistry.h"
#include "nvidiasmi/nvidiasmiparser.h"
#include "sessionbuilder.h"

#include <QDateTime>
#include <QFile>
#include <QTest>
#include <QTimeZone>

using namespace rs;

namespace {

constexpr double MiB = 1024.0 * 1024.0;

SourceBuilder importText(const std::string &text, const std::string &zone = "UTC")
{
    ImportContext ctx;
    ctx.timeZone = zone;
    return ImporterRegistry::instance().importBytes(text, "smi.csv", ctx);
}

const Track *findTrack(const SourceBuilder &b, TrackKind kind, int gpu)
{
    for (const Track &t : b.tracks())
        if (t.kind == kind && t.device == gpu)
            return &t;
    return nullptr;
}

std::string fixture(const char *name)
{
    QFile f(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/nvidiasmi/") + QString::fromLatin1(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

// "code=count" for every diagnostic, sorted, joined by spaces: one string to compare a row with.
QString codes(const SourceBuilder &b)
{
    QStringList out;
    for (const Diagnostic &d : b.source().diagnostics)
        out << QString::fromStdString(d.code) + QLatin1Char('=') + QString::number(d.count);
    out.sort();
    return out.join(QLatin1Char(' '));
}

SessionPtr freezeAll(std::vector<SourceBuilder> builders)
{
    SessionBuilder sb;
    for (auto &b : builders)
        sb.addSource(std::move(b));
    return sb.freeze();
}

TimeNs utc(const char *iso)
{
    return TimeNs(QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs).toMSecsSinceEpoch()) * 1000000;
}

} // namespace

class TestNvidiaSmi : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void timestamps_data();
    void timestamps();
    void timestampsRejected_data();
    void timestampsRejected();
    void missingValues();
    void headerWithUnits();
    void nounitsAndNA();
    void noheaderGuessesColumns();
    void cutOffRowKeepsFields();
    void badTimestampNamesLine();
    void dmon_data();
    void dmon();
    void computeApps();
    void variants_data();
    void variants();
    void tableThenCsv();
    void nulRunOffsets();
    void busIdForms_data();
    void busIdForms();
    void sniffJudgesLines_data();
    void sniffJudgesLines();
    void processJoins_data();
    void processJoins();
    void realSingleGpu();
    void realEightGpuScriptHeader();
    void realTablePlusCsvNulPadded();
};

void TestNvidiaSmi::timestamps_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("expectUtc");
    QTest::newRow("smi local as UTC") << "2024/01/31 12:34:56.789" << "UTC" << "2024-01-31T12:34:56.789Z";
    QTest::newRow("smi local as Berlin (winter, +1)") << "2024/01/31 12:34:56.789" << "Europe/Berlin" << "2024-01-31T11:34:56.789Z";
    QTest::newRow("smi local as Tokyo") << "2024/07/01 09:00:00.000" << "Asia/Tokyo" << "2024-07-01T00:00:00.000Z";
    QTest::newRow("iso with offset ignores zone") << "2025-09-08T17:26:50+08:00" << "Europe/Berlin" << "2025-09-08T09:26:50.000Z";
    QTest::newRow("epoch seconds") << "1706704496.5" << "UTC" << "2024-01-31T12:34:56.500Z";
    QTest::newRow("epoch ms") << "1706704496789" << "UTC" << "2024-01-31T12:34:56.789Z";
    // The hand-written stamp parser (wallclock.h) and its per-thread midnight cache: rows alternate
    // zones and dates here, so a stale cache entry would show.
    QTest::newRow("smi without millis") << "2024/01/31 23:59:59" << "UTC" << "2024-01-31T23:59:59.000Z";
    QTest::newRow("smi leap day, Berlin winter (+1)") << "2024/02/29 00:00:00.001" << "Europe/Berlin" << "2024-02-28T23:00:00.001Z";
    QTest::newRow("smi same date, other zone") << "2024/02/29 00:00:00.001" << "UTC" << "2024-02-29T00:00:00.001Z";
    QTest::newRow("smi Berlin summer") << "2024/07/01 02:00:00.250" << "Europe/Berlin" << "2024-07-01T00:00:00.250Z";
    QTest::newRow("smi Berlin, spring DST day before the switch") << "2024/03/31 01:30:00.000" << "Europe/Berlin" << "2024-03-31T00:30:00.000Z";
    QTest::newRow("smi Berlin, spring DST day after the switch") << "2024/03/31 03:30:00.000" << "Europe/Berlin" << "2024-03-31T01:30:00.000Z";
    QTest::newRow("smi Berlin, autumn DST day after the switch") << "2024/10/27 04:00:00.500" << "Europe/Berlin" << "2024-10-27T03:00:00.500Z";
    QTest::newRow("smi New York, spring DST day") << "2024/03/10 12:00:00.000" << "America/New_York" << "2024-03-10T16:00:00.000Z";
    QTest::newRow("smi trailing text after seconds") << "2024/07/01 02:00:00 GPU0" << "UTC" << "2024-07-01T02:00:00.000Z";
}

void TestNvidiaSmi::timestampsRejected_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("Feb 29 of a common year") << "2023/02/29 12:00:00.000";
    QTest::newRow("month 13") << "2024/13/01 12:00:00.000";
    QTest::newRow("hour 24") << "2024/01/01 24:00:00.000";
    QTest::newRow("minute 60") << "2024/01/01 23:60:00.000";
    QTest::newRow("letter in the day") << "2024/01/0x 12:00:00.000";
    QTest::newRow("year 9999") << "9999/01/01 12:00:00.000";
    QTest::newRow("year 2 (before 1990)") << "0002/01/01 12:00:00.000";
    QTest::newRow("T instead of space") << "2024/01/01T12:00:00.000";
}

void TestNvidiaSmi::timestampsRejected()
{
    QFETCH(QString, text);
    QVERIFY2(!nvidiasmi::timestamp(text.toStdString(), "UTC"), qPrintable(text));
}

void TestNvidiaSmi::timestamps()
{
    QFETCH(QString, text);
    QFETCH(QString, zone);
    QFETCH(QString, expectUtc);
    const auto t = nvidiasmi::timestamp(text.toStdString(), zone.toStdString());
    QVERIFY(t.has_value());
    QCOMPARE(*t, utc(expectUtc.toLatin1().constData()));
    QVERIFY(!nvidiasmi::timestamp("yesterday", "UTC"));
}

void TestNvidiaSmi::missingValues()
{
    for (const char *v : {"[N/A]", "[Not Supported]", "N/A", "-", "", " [Insufficient Permissions] "})
        QVERIFY2(nvidiasmi::isMissing(v) && !nvidiasmi::number(v), v);
    QCOMPARE(*nvidiasmi::number("85.12 W"), 85.12);
    QCOMPARE(*nvidiasmi::number(" 35 %"), 35.0);
    QCOMPARE(*nvidiasmi::memoryBytes("1234 MiB", ""), 1234 * MiB);
    QCOMPARE(*nvidiasmi::memoryBytes("1234", "MiB"), 1234 * MiB);
    QVERIFY(!nvidiasmi::number("12abc3"));
}

void TestNvidiaSmi::headerWithUnits()
{
    const SourceBuilder b = importText(
        "timestamp, index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%], power.draw [W]\n"
        "2024/01/31 12:00:00.000, 0, NVIDIA A100-SXM4-80GB, 81920 MiB, 1000 MiB, 10 %, 100.50 W\n"
        "2024/01/31 12:00:00.000, 1, NVIDIA A100-SXM4-80GB, 81920 MiB, 2000 MiB, 20 %, 200.25 W\n"
        "2024/01/31 12:00:01.000, 0, NVIDIA A100-SXM4-80GB, 81920 MiB, 3000 MiB, 30 %, 110.00 W\n"
        "2024/01/31 12:00:01.000, 1, NVIDIA A100-SXM4-80GB, 81920 MiB, 4000 MiB, 40 %, 210.00 W\n");
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.gpuSamples, 4);
    QVERIFY(b.source().hasClock);
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1}));
    QCOMPARE(b.source().rankOrigin, RankOrigin::DeviceIndex);
    const Track *mem1 = findTrack(b, TrackKind::GpuMemoryUsed, 1);
    QVERIFY(mem1);
    QCOMPARE(mem1->rank, 1);
    QCOMPARE(mem1->counter.values, std::vector<double>({2000 * MiB, 4000 * MiB}));
    QCOMPARE(mem1->counter.times[1] - mem1->counter.times[0], TimeNs(1000000000));
    QCOMPARE(mem1->counter.times[0], utc("2024-01-31T12:00:00.000Z"));
    QCOMPARE(findTrack(b, TrackKind::GpuUtilization, 0)->counter.values, std::vector<double>({10, 30}));
    QCOMPARE(b.source().devices.size(), std::size_t(2));
    QCOMPARE(b.source().devices[0].totalMemory, std::int64_t(81920 * MiB));
    QCOMPARE(b.source().devices[1].name, std::string("NVIDIA A100-SXM4-80GB"));
}

void TestNvidiaSmi::nounitsAndNA()
{
    const SourceBuilder b = importText("timestamp, index, memory.used, utilization.gpu, power.draw\n"
                                       "2024/01/31 12:00:00.000, 0, 512, [N/A], [Not Supported]\n"
                                       "2024/01/31 12:00:01.000, 0, 1024, 50, 60.5\n");
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.gpuSamples, 2);
    QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 0)->counter.values, std::vector<double>({512 * MiB, 1024 * MiB}));
    QCOMPARE(findTrack(b, TrackKind::GpuUtilization, 0)->counter.values, std::vector<double>({50}));
}

void TestNvidiaSmi::noheaderGuessesColumns()
{
    const SourceBuilder b = importText("2024/01/31 12:00:00.000, 0, 81920 MiB, 1000 MiB, 80920 MiB, 10 %, 5 %\n"
                                       "2024/01/31 12:00:00.000, 1, 81920 MiB, 3000 MiB, 78920 MiB, 30 %, 7 %\n");
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(b.source().diagnostics.size(), std::size_t(1)); // the warning that says what was guessed
    QVERIFY(b.source().diagnostics[0].message.find("memory.used") != std::string::npos);
    QCOMPARE(b.source().counts.gpuSamples, 2);
    QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 1)->counter.values, std::vector<double>({3000 * MiB}));
    QCOMPARE(findTrack(b, TrackKind::GpuUtilization, 0)->counter.values, std::vector<double>({10}));
}

void TestNvidiaSmi::cutOffRowKeepsFields()
{
    const SourceBuilder b = importText("timestamp, memory.used [MiB], utilization.gpu [%]\n"
                                       "2024/01/31 12:00:00.000, 1000 MiB, 10 %\n"
                                       "2024/01/31 12:00:01.000, 2000 Mi");
    // "2000 Mi" is the cut field itself: not trusted; what is left is a time stamp without a value,
    // which is no sample.
    QCOMPARE(b.source().counts.gpuSamples, 1);
    QCOMPARE(codes(b), QStringLiteral("row-fragment=1"));
    QCOMPARE(b.source().diagnostics[0].line, 3);
    QVERIFY(!b.source().diagnostics[0].isError());
    QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 0)->counter.size(), std::size_t(1));
    QCOMPARE(findTrack(b, TrackKind::GpuUtilization, 0)->counter.size(), std::size_t(1));
    // Cut after a complete value: that value is kept.
    const SourceBuilder c = importText("timestamp, memory.used [MiB], utilization.gpu [%], power.draw [W]\n"
                                       "2024/01/31 12:00:00.000, 1000 MiB, 10 %, 50 W\n"
                                       "2024/01/31 12:00:01.000, 2000 MiB, 2");
    QCOMPARE(c.source().counts.gpuSamples, 2);
    QCOMPARE(codes(c), QStringLiteral("row-missing-fields=1"));
    QCOMPARE(findTrack(c, TrackKind::GpuMemoryUsed, 0)->counter.values, std::vector<double>({1000 * MiB, 2000 * MiB}));
}

void TestNvidiaSmi::badTimestampNamesLine()
{
    const SourceBuilder b = importText("timestamp, memory.used [MiB]\n"
                                       "2024/01/31 12:00:00.000, 1000 MiB\n"
                                       "garbage, 5 MiB\n"
                                       "2024/01/31 12:00:02.000, 3000 MiB\n");
    QCOMPARE(b.source().errorCount(), std::size_t(1));
    QCOMPARE(b.source().diagnostics[0].line, 3);
    QCOMPARE(b.source().counts.gpuSamples, 2);
}

void TestNvidiaSmi::dmon_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("hasClock");
    QTest::addColumn<int>("samples");
    QTest::newRow("plain dmon") << "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
                                   "# Idx      W      C      C      %      %      %      %    MHz    MHz\n"
                                   "    0     63     34      -     45      0      0      0   1593   1410\n"
                                   "    1     70     36      -     55      0      0      0   1593   1410\n"
                                   "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
                                   "# Idx      W      C      C      %      %      %      %    MHz    MHz\n"
                                   "    0     64     34      -     47      0      0      0   1593   1410\n"
                                << false << 3;
    QTest::newRow("dmon -o DT") << "#Date       Time        gpu    pwr  gtemp     sm    fb\n"
                                   "#YYYYMMDD   HH:MM:SS    Idx      W      C      %    MB\n"
                                   " 20240131   12:00:00      0     63     34     45   1000\n"
                                   " 20240131   12:00:01      0     64     34     47   2000\n"
                                << true << 2;
}

void TestNvidiaSmi::dmon()
{
    QFETCH(QString, text);
    QFETCH(bool, hasClock);
    QFETCH(int, samples);
    const SourceBuilder b = importText(text.toStdString());
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(int(b.source().counts.gpuSamples), samples);
    QCOMPARE(b.source().hasClock, hasClock);
    const Track *util = findTrack(b, TrackKind::GpuUtilization, 0);
    QVERIFY(util);
    QCOMPARE(util->counter.values.front(), 45.0);
    if (hasClock) {
        QCOMPARE(util->counter.times.front(), utc("2024-01-31T12:00:00.000Z"));
        QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 0)->counter.values, std::vector<double>({1000 * MiB, 2000 * MiB}));
    } else {
        QCOMPARE(findTrack(b, TrackKind::GpuUtilization, 1)->counter.values, std::vector<double>({55}));
    }
}

void TestNvidiaSmi::computeApps()
{
    const SourceBuilder b = importText("pid, process_name, used_gpu_memory [MiB], gpu_uuid\n"
                                       "81234, /usr/bin/python, 20480 MiB, GPU-5b2c\n"
                                       "90001, other, 1024 MiB, GPU-5b2c\n");
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QCOMPARE(b.source().counts.gpuSamples, 2);
    QCOMPARE(b.source().metadataValue("compute_app"),
             std::string(R"({"pid":"81234","process_name":"/usr/bin/python","used_gpu_memory":21474836480,"gpu_uuid":"GPU-5b2c"})"));
}

void TestNvidiaSmi::variants_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("samples");
    QTest::addColumn<int>("gpuRecords");
    QTest::addColumn<int>("memoryTracks");
    QTest::addColumn<QString>("codes");
    const QByteArray head = "timestamp, index, memory.used [MiB]\n";
    const QByteArray r1 = "2024/01/31 12:00:00.000, 0, 100 MiB\n";
    const QByteArray r2 = "2024/01/31 12:00:01.000, 0, 200 MiB\n";
    const QByteArray r3 = "2024/01/31 12:00:02.000, 0, 300 MiB\n";
    QTest::newRow("text before the header") << "job 1234 started on node-7\n" + head + r1 + r2 << 2 << 1 << 1 << "text-skipped=1";
    QTest::newRow("NUL run between rows") << head + r1 + QByteArray(500, '\0') + r2 << 2 << 1 << 1 << "nul-bytes=1";
    QTest::newRow("NUL run inside a line splits it") << head + r1.chopped(1) + QByteArray(20, '\0') + r2 + r3 << 3 << 1 << 1
                                                     << "nul-bytes=1";
    QTest::newRow("NUL runs before the header") << QByteArray(3000, '\0') + "\n" + head + r1 << 1 << 1 << 1 << "nul-bytes=1";
    QTest::newRow("torn head of a row") << head + r1 + " P0, 10 %\n" + r2 << 2 << 1 << 1 << "row-fragment=1";
    const QByteArray named = "index, name, memory.used [MiB], memory.free [MiB]\n";
    const QByteArray a = "0, Tesla V100-SXM2-32GB, 30000 MiB, 2510 MiB\n";
    const QByteArray b = "0, Tesla V100-PCIE-32GB, 31000 MiB, 1510 MiB\n";
    QTest::newRow("two writers on one index, one torn row")
        << named + a + b + a + b + a + "0, Tesla V10-PCIE-32GB, 31000 MiB, 1510 MiB\n" + b + a + b << 9 << 2 << 2
        << "gpu-identity-conflict=1 no-timestamps=1 torn-row=1";
    QTest::newRow("a near name that keeps coming is another GPU")
        << named + a + a + "0, Tesla V100-SXM2-16GB, 9000 MiB, 7000 MiB\n" + a + "0, Tesla V100-SXM2-16GB, 9000 MiB, 7000 MiB\n"
               + "0, Tesla V100-SXM2-16GB, 9100 MiB, 6900 MiB\n"
        << 6 << 2 << 2 << "gpu-identity-conflict=1 no-timestamps=1";
    QTest::newRow("a far name seen once is another GPU")
        << named + a + a + a + "0, NVIDIA H100 80GB HBM3, 100 MiB, 81000 MiB\n" << 4 << 2 << 2 << "gpu-identity-conflict=1 no-timestamps=1";
    QTest::newRow("one GPU per uuid")
        << QByteArray("timestamp, index, uuid, memory.used [MiB]\n"
                      "2024/01/31 12:00:00.000, 0, GPU-aaaa, 100 MiB\n2024/01/31 12:00:00.000, 1, GPU-bbbb, 100 MiB\n"
                      "2024/01/31 12:00:01.000, 0, GPU-aaaa, 150 MiB\n2024/01/31 12:00:01.000, 1, GPU-bbbb, 150 MiB\n")
        << 4 << 2 << 2 << "";
    QTest::newRow("compute-apps after query-gpu in one file")
        << head + r1 + r2 + "pid, process_name, used_gpu_memory [MiB], gpu_uuid\n71, python, 90 MiB, GPU-aaaa\n72, python, 9 MiB, GPU-aaaa\n"
        << 4 << 1 << 1 << "";
    QTest::newRow("a header repeated by a restart") << head + r1 + head + r2 << 2 << 1 << 1 << "";
}

void TestNvidiaSmi::variants()
{
    QFETCH(QByteArray, text);
    QFETCH(int, samples);
    QFETCH(int, gpuRecords);
    QFETCH(int, memoryTracks);
    QFETCH(QString, codes);
    const SourceBuilder b = importText(text.toStdString());
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QCOMPARE(int(b.source().counts.gpuSamples), samples);
    QCOMPARE(int(b.gpus().gpus.size()), gpuRecords);
    QCOMPARE(int(std::count_if(b.tracks().begin(), b.tracks().end(), [](const Track &t) { return t.kind == TrackKind::GpuMemoryUsed; })),
             memoryTracks);
    QCOMPARE(::codes(b), codes);
    for (const Diagnostic &d : b.source().diagnostics)
        QVERIFY2(d.code == "no-timestamps" || d.line > 0, d.code.c_str()); // every row problem names its line
}

void TestNvidiaSmi::tableThenCsv()
{
    const std::string text = fixture("table_then_csv.txt");
    QVERIFY(!text.empty());
    const SourceBuilder b = importText(text);
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QCOMPARE(codes(b), QString());
    QCOMPARE(b.source().counts.gpuSamples, 4);
    QVERIFY(b.source().hasClock);
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1}));
    QCOMPARE(b.source().metadataValue("nvidia_smi_driver_version"), std::string("\"535.129.03\""));
    QCOMPARE(b.source().metadataValue("nvidia_smi_cuda_version"), std::string("\"12.2\""));
    // The table's GPUs are the CSV's (same bus id): two records, not four.
    QCOMPARE(b.gpus().gpus.size(), std::size_t(2));
    QCOMPARE(b.gpus().gpus[1].busId, std::int64_t(0x47000));
    QCOMPARE(b.gpus().gpus[1].maxUsed, std::int64_t(65100 * MiB));
    QCOMPARE(b.gpus().gpus[1].freeAtMax, std::int64_t(16820 * MiB));
    QCOMPARE(b.gpus().gpus[1].utilAtMax, 99.0);
    const auto &procs = b.gpus().processes;
    QCOMPARE(procs.size(), std::size_t(3));
    QCOMPARE(procs[0].index, 0);
    QCOMPARE(procs[0].name, std::string("python train.py"));
    QCOMPARE(procs[2].pid, std::int64_t(61877));
    QCOMPARE(procs[2].index, 1);
    QCOMPARE(procs[2].rank, 1);
    QCOMPARE(procs[2].type, std::string("C"));
    QCOMPARE(procs[2].name, std::string("/usr/local/bin/vllm-serve"));
    QCOMPARE(procs[2].usedMemory, std::int64_t(44000 * MiB));
    QCOMPARE(procs[2].time, utc("2024-03-12T09:30:05.000Z"));
    QCOMPARE(procs[2].line, 25);
    // The table alone is read too (a `nvidia-smi -l` log of tables).
    const SourceBuilder t = importText(text.substr(0, text.find("timestamp,")));
    QCOMPARE(t.source().format, std::string("nvidia-smi"));
    QCOMPARE(t.gpus().processes.size(), std::size_t(3));
    QCOMPARE(t.gpus().gpus.size(), std::size_t(2));
    QCOMPARE(t.gpus().gpus[0].name, std::string("NVIDIA A100-SXM4-80GB"));
    QCOMPARE(t.gpus().gpus[0].maxUsed, std::int64_t(20485 * MiB));
    QCOMPARE(t.source().ranks, std::vector<RankId>({0, 1}));
}

void TestNvidiaSmi::nulRunOffsets()
{
    std::string text = "timestamp, memory.used [MiB], utilization.gpu [%]\n2024/01/31 12:00:00.000, 1000 MiB, 5 %\n";
    const std::size_t first = text.size();
    text += std::string(300, '\0') + "2024/01/31 12:00:01.000, 2000 MiB, 6 %\n";
    // A writer cut inside a row, then the next row written over the rest of it.
    text += "2024/01/31 12:00:02.000, 30" + std::string(4, '\0') + "2024/01/31 12:00:03.000, 4000 MiB, 8 %\n";
    const SourceBuilder b = importText(text);
    const Diagnostic *nul = nullptr;
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code == "nul-bytes")
            nul = &d;
    QVERIFY(nul);
    QCOMPARE(nul->count, 2);
    QCOMPARE(nul->offset, std::int64_t(first));
    QCOMPARE(nul->line, 3);
    QVERIFY(nul->message.find("300") != std::string::npos);
    QCOMPARE(nul->examples.size(), std::size_t(1));
    QCOMPARE(nul->examples[0].offset, std::int64_t(text.find('\0', first + 300)));
    QCOMPARE(nul->examples[0].line, 4);
    // The piece before the second run is a row fragment, the piece after it a whole row.
    QCOMPARE(b.source().counts.gpuSamples, 3);
    QCOMPARE(b.diagnosticCount("row-fragment"), 1);
    QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 0)->counter.values, std::vector<double>({1000 * MiB, 2000 * MiB, 4000 * MiB}));
}

void TestNvidiaSmi::busIdForms_data()
{
    QTest::addColumn<QString>("pci");
    QTest::addColumn<qint64>("nccl");
    QTest::newRow("nvidia-smi 8-digit domain") << "00000000:47:00.0" << qint64(0x47000);
    QTest::newRow("4-digit domain") << "0000:07:00.0" << qint64(0x7000);
    QTest::newRow("domain 1, bus 1b, function 1") << "00000001:1B:00.1" << qint64(0x11b001);
    QTest::newRow("no domain") << "47:00.0" << qint64(-1);
    QTest::newRow("not hex") << "0000:zz:00.0" << qint64(-1);
}

void TestNvidiaSmi::busIdForms()
{
    QFETCH(QString, pci);
    QFETCH(qint64, nccl);
    QCOMPARE(qint64(nvidiasmi::busIdToNccl(pci.toStdString()).value_or(-1)), nccl);
}

void TestNvidiaSmi::sniffJudgesLines_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("smi");
    const QByteArray table = QByteArray::fromStdString(fixture("table_then_csv.txt"));
    QTest::newRow("table then CSV") << table << true;
    QByteArray log = table.left(table.indexOf("timestamp,"));
    for (int i = 0; i < 80; ++i)
        log += "epoch " + QByteArray::number(i) + ": loss 0.41, lr 3e-4, throughput 812 samples/s\n";
    QTest::newRow("a job log that printed one table") << log << false;
    QTest::newRow("NULs before the header")
        << QByteArray(100000, '\0') + "timestamp, memory.used [MiB]\n2024/01/31 12:00:00.000, 1 MiB\n" << true;
    QByteArray binary("\x80\x04\x95memory.used, utilization.gpu\n", 32);
    for (int i = 0; i < 200; ++i)
        binary += char(i % 32);
    QTest::newRow("binary with the words") << binary << false;
}

void TestNvidiaSmi::sniffJudgesLines()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, smi);
    const SourceBuilder b = importText(text.toStdString());
    QCOMPARE(b.source().format == "nvidia-smi", smi);
}

void TestNvidiaSmi::processJoins_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QList<int>>("ranks");
    QTest::addColumn<QList<int>>("indexes");
    QTest::newRow("uuid through a query-gpu file") << "uuid" << QList<int>{0, 1, 1} << QList<int>{0, 1, 1};
    QTest::newRow("bus id through the table+CSV file") << "bus" << QList<int>{1, 1} << QList<int>{1, 1};
    QTest::newRow("bus id through NCCL's busId") << "nccl" << QList<int>{5, 5} << QList<int>{-1, -1};
    QTest::newRow("NCCL busId on two hosts says nothing") << "nccl two hosts" << QList<int>{-1, -1} << QList<int>{-1, -1};
}

void TestNvidiaSmi::processJoins()
{
    QFETCH(QString, scenario);
    QFETCH(QList<int>, ranks);
    QFETCH(QList<int>, indexes);
    ImportContext ctx;
    ctx.timeZone = "UTC";
    const auto &reg = ImporterRegistry::instance();
    std::vector<SourceBuilder> src;
    std::string apps = "compute_apps_busid.csv";
    if (scenario == QLatin1String("uuid")) {
        apps = "compute_apps_uuid.csv";
        src.push_back(reg.importBytes(fixture("query_gpu_uuid.csv"), "query_gpu_uuid.csv", ctx));
    } else if (scenario == QLatin1String("bus")) {
        src.push_back(reg.importBytes(fixture("table_then_csv.txt"), "table_then_csv.txt", ctx));
    } else {
        SourceBuilder log("job.log");
        log.source().format = "nccl-log";
        for (RankId r : scenario == QLatin1String("nccl") ? std::vector<RankId>{5} : std::vector<RankId>{1, 5}) {
            NcclCommInfo c;
            c.rank = r;
            c.nranks = 8;
            c.cudaDev = 1;
            c.busId = 0x47000; // "busId 47000"
            c.complete = true;
            log.logs().comms.push_back(c);
        }
        log.finish();
        src.push_back(std::move(log));
    }
    src.push_back(reg.importBytes(fixture(apps.c_str()), apps, ctx));
    QCOMPARE(src.back().source().format, std::string("nvidia-smi"));
    QVERIFY(src.back().source().ranks.empty()); // compute-apps rows name no GPU index
    const SessionPtr s = freezeAll(std::move(src));
    QList<int> gotRanks, gotIndexes;
    for (const GpuProcess &p : s->gpus().processes)
        if (s->sources()[p.source].path == apps) {
            gotRanks << p.rank;
            gotIndexes << p.index;
        }
    QCOMPARE(gotRanks, ranks);
    QCOMPARE(gotIndexes, indexes);
}

void TestNvidiaSmi::realSingleGpu()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/nvidia_smi/balance-budget_gpu_usage.csv");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    ctx.timeZone = "UTC";
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.gpuSamples, 1639);
    const Track *mem = findTrack(b, TrackKind::GpuMemoryUsed, 0);
    QCOMPARE(mem->counter.size(), std::size_t(1639));
    QCOMPARE(mem->counter.values.front(), 17092 * MiB);
    QCOMPARE(mem->counter.times.front(), utc("2026-02-02T01:07:37.100Z"));
    const double peak = *std::max_element(mem->counter.values.begin(), mem->counter.values.end());
    QCOMPARE(peak, 71162 * MiB); // the largest memory.used of the file, read with awk
}

void TestNvidiaSmi::realEightGpuScriptHeader()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/nvidia_smi/gpu_glasses_nvidia_smi_8gpu.csv");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.gpuSamples, 43);
    // The "index" column is 0 on every row; the "gpu" column tells the 8 GPUs apart.
    QCOMPARE(b.source().ranks, std::vector<RankId>({0, 1, 2, 3, 4, 5, 6, 7}));
    QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 0)->counter.size(), std::size_t(6));
    QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 7)->counter.size(), std::size_t(5));
    QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 0)->counter.times.front(), utc("2025-09-08T09:26:50.000Z"));
    QCOMPARE(b.source().devices.size(), std::size_t(8));
    QCOMPARE(b.source().devices[3].totalMemory, std::int64_t(81559 * MiB));
}

void TestNvidiaSmi::realTablePlusCsvNulPadded()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/nvidia_smi/semi_active_seizure_v100_table_plus_csv_nul_padded.csv");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("nvidia-smi"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(b.source().counts.gpuSamples, 913); // SOURCES.md: 913 data rows, all index 0
    QCOMPARE(b.source().ranks, std::vector<RankId>({0}));
    QVERIFY(!b.source().hasClock);
    QCOMPARE(b.source().metadataValue("nvidia_smi_driver_version"), std::string("\"495.44\""));
    QCOMPARE(b.source().metadataValue("nvidia_smi_cuda_version"), std::string("\"11.5\""));
    // 121 NUL runs (253,119 bytes), the first of 248,022 at byte 1834; the two pieces of rows
    // around them; the two torn names; one conflict.
    QCOMPARE(codes(b), QStringLiteral("gpu-identity-conflict=1 no-timestamps=1 nul-bytes=121 row-fragment=2 torn-row=2"));
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code == "nul-bytes") {
            QCOMPARE(d.offset, std::int64_t(1834));
            QVERIFY(d.message.find("248022") != std::string::npos);
        } else if (d.code == "gpu-identity-conflict") {
            QVERIFY(d.message.find("'Tesla V100-SXM2-32GB' 616 rows") != std::string::npos);
            QVERIFY(d.message.find("'Tesla V100-PCIE-32GB' 297 rows (2 torn)") != std::string::npos);
        }
    const auto &gpus = b.gpus().gpus;
    QCOMPARE(gpus.size(), std::size_t(2));
    QCOMPARE(gpus[0].name, std::string("Tesla V100-SXM2-32GB"));
    QCOMPARE(gpus[0].rows, 616);
    QCOMPARE(gpus[0].maxUsed, std::int64_t(30062 * MiB));
    QCOMPARE(gpus[0].busId, std::int64_t(0x16000)); // from the table printed by that job
    QCOMPARE(gpus[1].name, std::string("Tesla V100-PCIE-32GB"));
    QCOMPARE(gpus[1].rows, 297);
    QCOMPARE(gpus[1].tornRows, 2);
    QCOMPARE(gpus[1].maxUsed, std::int64_t(31639 * MiB));
    QCOMPARE(gpus[1].freeAtMax, std::int64_t(871 * MiB));
    QCOMPARE(gpus[1].utilAtMax, 100.0);
    std::vector<double> maxima;
    for (const Track &t : b.tracks())
        if (t.kind == TrackKind::GpuMemoryUsed)
            maxima.push_back(*std::max_element(t.counter.values.begin(), t.counter.values.end()) / MiB);
    std::sort(maxima.begin(), maxima.end());
    QCOMPARE(maxima, std::vector<double>({30062, 31639}));
}

QTEST_GUILESS_MAIN(TestNvidiaSmi)
#include "test_nvidiasmi.moc"
