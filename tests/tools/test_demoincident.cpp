// The demo incident (resources/demo): the committed files are what the generator writes, and
// every kind of evidence tells the same story with the same numbers and times: rank 2's extra
// micro-batch runs out of memory in its forward pass, its peers wait in the step's first gradient
// allreduce until ProcessGroupNCCL's watchdog times it out, and torchrun names rank 2 as the root
// cause. The README's promises are checked here.

#include "allocatorreport.h"
#include "demoincident.h"
#include "jobtimeline.h"
#include "nccllogtext.h"
#include "nvidiasmievidence.h"
#include "textfile.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>

#include <algorithm>
#include <map>

using namespace rs::tracegen;

namespace {

constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kGiB = 1LL << 30;
constexpr std::int64_t kIdleMiB = 4; // nvidia-smi's memory.used of a GPU with no process

const QStringList kFiles = {QStringLiteral("rank-0.pt.trace.json.gz"), QStringLiteral("rank-1.pt.trace.json.gz"),
                            QStringLiteral("rank-2.pt.trace.json.gz"), QStringLiteral("rank-3.pt.trace.json.gz"),
                            QStringLiteral("torchrun.log"), QStringLiteral("nvidia-smi.csv")};

struct SmiRow {
    TimeNs time;
    int gpu;
    QString bus;
    std::int64_t usedMiB;
    int utilization;
};

// A local time stamp of the node (which runs in UTC) → ns since the epoch.
TimeNs utc(const QString &text, const QString &format)
{
    const QDateTime local = QDateTime::fromString(text, format);
    return TimeNs(QDateTime(local.date(), local.time(), QTimeZone::utc()).toMSecsSinceEpoch()) * 1000000;
}

} // namespace

class TestDemoIncident : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    DemoIncident::Result m_demo;
    QStringList m_log;
    QList<SmiRow> m_smi;
    QString m_smiText;

    const RankRecord &rank(int r) const { return m_demo.record.ranks[std::size_t(r)]; }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_demo = DemoIncident::write(m_dir.path().toStdString(), true);
        QCOMPARE(m_demo.files.size(), std::size_t(6));
        m_log = QString::fromUtf8(readText(m_dir.filePath(QStringLiteral("torchrun.log")))).split(QLatin1Char('\n'));
        QCOMPARE(m_log.takeLast(), QString()); // the log ends with a newline
        m_smiText = QString::fromUtf8(readText(m_dir.filePath(QStringLiteral("nvidia-smi.csv"))));
        const QStringList lines = m_smiText.split(QLatin1Char('\n'));
        for (qsizetype i = 1; i + 1 < lines.size(); ++i) { // the header, and the cut last row, are not data
            const QStringList f = lines[i].split(QStringLiteral(", "));
            QCOMPARE(f.size(), 8);
            m_smi.append({utc(f[0], QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz")), f[1].toInt(), f[3], f[5].chopped(4).toLongLong(), f[6].chopped(2).toInt()});
        }
    }

    void committedDemoIsCurrent()
    {
        // resources/demo is generated; a generator change must come with regenerated files.
        // Decompressed text is compared, so a different zlib build cannot fail this.
        const QString committed = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
        if (!QFile::exists(committed + QStringLiteral("/rank-0.pt.trace.json.gz")))
            QSKIP("resources/demo is not present");
        qint64 bytes = 0;
        for (const QString &name : kFiles) {
            QVERIFY2(readText(committed + QLatin1Char('/') + name) == readText(m_dir.filePath(name)),
                     qPrintable(name + QStringLiteral(" is stale: regenerate it with "
                                                      "build/release/tools/demogen/rankscope-demogen --out resources/demo")));
            bytes += QFileInfo(committed + QLatin1Char('/') + name).size();
        }
        QVERIFY2(bytes < 6000000, qPrintable(QString::number(bytes)));
    }

    void rankTwoRunsOutOfMemoryInItsExtraMicroBatch()
    {
        const RankRecord &straggler = rank(2);
        QVERIFY(straggler.oom.has_value());
        const OomRecord &oom = *straggler.oom;
        const JobConfig config = DemoIncident::config();
        QCOMPARE(oom.step, config.firstStep + 2);
        QCOMPARE(oom.microBatch, 4);
        QCOMPARE(oom.microBatches, 4);
        QVERIFY(oom.shape.seqLen > 1024);
        // In the model's forward pass, at an ATen op, with the device full: the segment it needed
        // did not fit beside what is reserved and what the process holds outside PyTorch.
        QVERIFY(oom.ops.size() >= 3);
        QCOMPARE(oom.ops[1], std::string("DistributedDataParallel.forward"));
        QVERIFY(oom.ops.back().rfind("aten::", 0) == 0);
        QVERIFY(oom.reserved + oom.segment > config.gpu.totalMemory - config.gpu.nonPytorchMemory());
        QCOMPARE(oom.stats.numOoms, std::int64_t(1));
        for (int r : {0, 1, 3}) {
            QVERIFY(!rank(r).oom);
            QVERIFY(straggler.peakAllocated > rank(r).peakAllocated + 15 * kGiB);
        }

        // The profiler's [OutOfMemory] instant carries the same numbers at the same moment.
        const QJsonObject doc = QJsonDocument::fromJson(readText(m_dir.filePath(kFiles[2]))).object();
        const qint64 base = doc.value(QStringLiteral("baseTimeNanoseconds")).toInteger();
        int found = 0;
        for (const auto &v : doc.value(QStringLiteral("traceEvents")).toArray()) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("name")).toString() != QLatin1String("[OutOfMemory]"))
                continue;
            ++found;
            QCOMPARE(e.value(QStringLiteral("ph")).toString(), QStringLiteral("i"));
            QCOMPARE(e.value(QStringLiteral("cat")).toString(), QStringLiteral("cpu_instant_event"));
            const QJsonObject args = e.value(QStringLiteral("args")).toObject();
            QCOMPARE(args.value(QStringLiteral("Bytes")).toInteger(), oom.rounded);
            QCOMPARE(args.value(QStringLiteral("Total Allocated")).toInteger(), oom.allocated);
            QCOMPARE(args.value(QStringLiteral("Total Reserved")).toInteger(), oom.reserved);
            QCOMPARE(args.value(QStringLiteral("Device Type")).toInt(), 1);
            QCOMPARE(args.value(QStringLiteral("Device Id")).toInt(), 2);
            QVERIFY(!args.contains(QStringLiteral("Addr")));
            const double ts = e.value(QStringLiteral("ts")).toDouble() * 1000.0 + double(base);
            QVERIFY(std::abs(ts - double(straggler.setup.hostClock(oom.time))) < 2000.0);
        }
        QCOMPARE(found, 1);
    }

    void peersWaitInTheAllreduceUntilTheWatchdog()
    {
        const JobConfig config = DemoIncident::config();
        const std::int64_t seq = rank(0).timeout ? rank(0).timeout->seq : -1;
        QVERIFY(!rank(2).timeout);
        for (int r : {0, 1, 3}) {
            const RankRecord &peer = rank(r);
            QVERIFY(peer.timeout.has_value());
            const CollectiveTimeout &t = *peer.timeout;
            QCOMPARE(t.seq, seq);
            QVERIFY(t.detected - t.workStart >= config.collectiveTimeoutNs);
            QVERIFY(t.detected - t.workStart < config.collectiveTimeoutNs + 150000000);
            // The hung kernel runs until the watchdog's abort, and the trace ends soon after,
            // later than rank 2's.
            const auto hung = std::find_if(peer.collectives.begin(), peer.collectives.end(),
                                           [&](const CollectiveTiming &c) { return c.seq == seq; });
            QVERIFY(hung != peer.collectives.end() && hung->aborted);
            QVERIFY(hung->end - hung->start > 5000000000);
            QVERIFY(hung->end >= t.detected && hung->end < t.detected + 1000000);
            QVERIFY(peer.windowEnd - hung->end < 1000000000);
            QVERIFY(peer.windowEnd > rank(2).windowEnd + 5000000000);
            // The peers got there first: the allreduce was enqueued before rank 2 failed.
            QVERIFY(t.workStart < rank(2).oom->time);
        }
    }

    void jobLogTellsTheSameStory()
    {
        static const QRegularExpression prefix(QStringLiteral(R"(^\[rank([0-3])\]:)"));
        std::map<int, int> perRank;
        for (const QString &l : m_log) {
            const auto m = prefix.match(l);
            if (m.hasMatch())
                ++perRank[m.captured(1).toInt()];
        }
        QCOMPARE(perRank.size(), std::size_t(4));

        const OomRecord &oom = *rank(2).oom;
        const QString exception = QStringLiteral("[rank2]:torch.OutOfMemoryError: ")
                                  + QString::fromStdString(AllocatorReport::oomMessage(oom, DemoIncident::config().gpu, 2));
        QCOMPARE(m_log.count(exception), 1);
        // The memory summary follows the traceback: the allocator's counters at the error.
        const qsizetype table = m_log.indexOf(QStringLiteral("[rank2]:|===========================================================================|"));
        QVERIFY(table > m_log.indexOf(exception));
        for (qsizetype i = table; i < table + 47; ++i) {
            QVERIFY(m_log[i].startsWith(QLatin1String("[rank2]:|")));
            QCOMPARE(m_log[i].size(), 8 + 77);
        }
        QVERIFY(m_log[table + 3].contains(QLatin1String("CUDA OOMs: 1 ")));
        QVERIFY(m_log[table + 7].startsWith(QStringLiteral("[rank2]:| Allocated memory      | %1 MiB |")
                                                .arg(oom.allocated / kMiB, 6)));

        static const QRegularExpression watchdog(QStringLiteral(
            R"(^\[rank(\d)\]:\[E\d{3,4} \d\d:\d\d:\d\d\.\d{9} ProcessGroupNCCL\.cpp:\d+\] \[Rank (\d)\] Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=ALLREDUCE, NumelIn=(\d+), NumelOut=(\d+), Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds before timing out\.$)"));
        QList<int> timedOut;
        for (const QString &l : m_log) {
            const auto m = watchdog.match(l);
            if (!m.hasMatch())
                continue;
            const int r = m.captured(1).toInt();
            timedOut.append(r);
            QCOMPARE(m.captured(2).toInt(), r);
            QCOMPARE(m.captured(3).toLongLong(), rank(r).timeout->seq);
            QCOMPARE(m.captured(4).toLongLong(), rank(r).timeout->nelems);
            QVERIFY(m.captured(7).toLongLong() >= m.captured(6).toLongLong());
        }
        std::sort(timedOut.begin(), timedOut.end());
        QCOMPARE(timedOut, QList<int>({0, 1, 3}));

        const qsizetype root = m_log.indexOf(QStringLiteral("Root Cause (first observed failure):"));
        QVERIFY(root > 0);
        QCOMPARE(m_log[root + 1], QStringLiteral("[0]:")); // torchrun numbers failures, it does not name ranks here
        QCOMPARE(m_log[root + 4], QStringLiteral("  rank      : 2 (local_rank: 2)"));
        QCOMPARE(m_log[root + 5], QStringLiteral("  exitcode  : 1 (pid: %1)").arg(rank(2).setup.pid));
        QCOMPARE(m_log[root - 2], QStringLiteral("  <NO_OTHER_FAILURES>"));
        QCOMPARE(m_log.last(), QString(60, QLatin1Char('=')));
    }

    void jobLogTimesFollowTheSimulation()
    {
        // Python logging stamps are in order, and a step's line is written when the step ends.
        static const QRegularExpression stamp(QStringLiteral(R"(^\[rank(\d)\]:\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] \[\w+\] train: (.*)$)"));
        static const QRegularExpression step(QStringLiteral(R"(^step (\d+) \|)"));
        TimeNs previous = 0;
        int steps = 0;
        for (const QString &l : m_log) {
            const auto m = stamp.match(l);
            if (!m.hasMatch())
                continue;
            const TimeNs ns = utc(m.captured(2), QStringLiteral("yyyy-MM-dd HH:mm:ss,zzz"));
            QVERIFY(ns >= previous);
            previous = ns;
            if (const auto s = step.match(m.captured(3)); s.hasMatch()) {
                const RankRecord &r = rank(m.captured(1).toInt());
                const auto k = std::size_t(s.captured(1).toLongLong() - DemoIncident::config().firstStep);
                QVERIFY(std::abs(ns - r.stepEnds[k]) < 2000000);
                ++steps;
            }
        }
        QCOMPARE(steps, 8); // steps 412 and 413 on every rank; nobody finishes 414
    }

    void nvidiaSmiSamplesTheSameGpus()
    {
        QVERIFY(m_smiText.startsWith(QLatin1String(
            "timestamp, index, name, pci.bus_id, memory.total [MiB], memory.used [MiB], utilization.gpu [%], power.draw [W]\n")));
        QVERIFY(!m_smiText.endsWith(QLatin1Char('\n'))); // killed in the middle of a row
        QCOMPARE(std::int64_t(m_smi.size()), m_demo.smiRows);
        for (qsizetype i = 0; i < m_smi.size(); ++i) {
            QCOMPARE(m_smi[i].gpu, int(i % 4));
            if (i % 4)
                QCOMPARE(m_smi[i].time, m_smi[i - 1].time);
            else if (i)
                QVERIFY(m_smi[i].time - m_smi[i - 4].time >= 500000000 && m_smi[i].time - m_smi[i - 4].time < 506000000);
        }
        // The bus ids NCCL printed for each rank's device.
        for (int r = 0; r < 4; ++r) {
            const QString busId = QString::fromStdString(NvidiaSmiEvidence::busId(rank(r).setup.pciBus));
            QCOMPARE(m_smi[r].bus, busId);
            const QString nccl = QStringLiteral(" cudaDev %1 nvmlDev %1 busId %2 ").arg(r).arg(QString::fromStdString(NcclLogText::busId(rank(r).setup.pciBus)));
            QVERIFY(std::any_of(m_log.begin(), m_log.end(), [&](const QString &l) { return l.contains(nccl); }));
        }
    }

    void nvidiaSmiMatchesTheAllocatorAndTheKernels()
    {
        const JobConfig config = DemoIncident::config();
        const JobTimeline timeline(config, m_demo.record);
        const GpuSpec gpu = config.gpu;
        const OomRecord &oom = *rank(2).oom;
        const JobTimeline::Rank &failed = timeline.rank(2);
        bool sawOom = false, sawWait = false, sawExit = false;
        for (const SmiRow &s : m_smi) {
            const JobTimeline::Rank &life = timeline.rank(s.gpu);
            if (s.gpu == 2 && s.time > rank(2).windowEnd + NvidiaSmiEvidence::kIntervalNs && s.time < failed.exited) {
                // After the error: the cache as the allocator left it, and an idle GPU.
                QCOMPARE(s.usedMiB, (oom.reserved + gpu.nonPytorchMemory()) / kMiB + kIdleMiB);
                QCOMPARE(s.utilization, 0);
                sawOom = true;
            }
            if (s.gpu != 2 && s.time > oom.time && s.time < rank(s.gpu).timeout->detected) {
                QCOMPARE(s.utilization, 100); // the NCCL kernel spins while it waits
                sawWait = true;
            }
            if (s.time >= life.exited || s.time < life.cudaReady) {
                QCOMPARE(s.usedMiB, kIdleMiB);
                sawExit = sawExit || s.time >= life.exited;
            }
            QVERIFY(s.usedMiB <= (rank(s.gpu).peakReserved + gpu.nonPytorchMemory()) / kMiB + kIdleMiB);
        }
        QVERIFY(sawOom && sawWait && sawExit);
    }
};

QTEST_GUILESS_MAIN(TestDemoIncident)
#include "test_demoincident.moc"
