// nvidia-smi: query-gpu CSV with/without header and units, missing values, time zones, cut-off
// rows, script-written headers, dmon, compute-apps, and the real samples.

#include "importerregistry.h"
#include "nvidiasmi/nvidiasmiparser.h"

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
    void missingValues();
    void headerWithUnits();
    void nounitsAndNA();
    void noheaderGuessesColumns();
    void cutOffRowKeepsFields();
    void badTimestampNamesLine();
    void dmon_data();
    void dmon();
    void computeApps();
    void realSingleGpu();
    void realEightGpuScriptHeader();
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
    QCOMPARE(b.source().counts.gpuSamples, 2);
    QCOMPARE(b.source().diagnostics.size(), std::size_t(1));
    QCOMPARE(b.source().diagnostics[0].line, 3);
    QVERIFY(!b.source().diagnostics[0].isError());
    // "2000 Mi" is the cut field itself: not trusted, so only the first row's values are kept.
    QCOMPARE(findTrack(b, TrackKind::GpuMemoryUsed, 0)->counter.size(), std::size_t(1));
    QCOMPARE(findTrack(b, TrackKind::GpuUtilization, 0)->counter.size(), std::size_t(1));
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

QTEST_GUILESS_MAIN(TestNvidiaSmi)
#include "test_nvidiasmi.moc"
