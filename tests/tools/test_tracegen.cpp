// The synthetic Kineto traces: the file skeleton and time format of FORMATS.md §1, the internal
// consistency a real profiler guarantees (flows, correlations, memory totals, collectives) and
// determinism. The demo incident itself is tested in test_demoincident.cpp.

#include "kinetotraceevidence.h"
#include "textfile.h"
#include "trainingjob.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

using namespace rs::tracegen;

namespace {


JobConfig tinyJob()
{
    JobConfig job;
    job.worldSize = 2;
    job.visibleDevices = 2;
    job.model = {2, 256, 4, 1000};
    job.ddpBucketBytes = 1 << 20;
    job.seed = 7;
    job.startNs = 1723605165250000000;
    job.baseTimeNs = 1719792000000000000;
    job.firstStep = 5;
    for (int r = 0; r < 2; ++r) {
        RankPlan p;
        p.rank = r;
        p.pid = 1000 + r;
        p.device = r;
        p.clockSkewNs = r * 250000;
        p.steps.assign(2, std::vector<MicroBatchShape>(2, MicroBatchShape{2, 128}));
        job.ranks.push_back(p);
    }
    return job;
}

JobRecord writeJob(const JobConfig &config, const QString &dir, bool gzip)
{
    TrainingJob job(config);
    KinetoTraceEvidence traces(dir.toStdString(), {gzip, 6});
    job.addListener(traces);
    return job.run();
}

QJsonObject parse(const QByteArray &text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << "JSON error at" << error.offset << error.errorString();
    return doc.object();
}

} // namespace

class TestTraceGen : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QByteArray m_rank0;
    QByteArray m_rank1;
    QJsonObject m_doc0;
    JobRecord m_record;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_record = writeJob(tinyJob(), m_dir.path(), false);
        m_rank0 = readText(m_dir.filePath(QStringLiteral("rank-0.pt.trace.json")));
        m_rank1 = readText(m_dir.filePath(QStringLiteral("rank-1.pt.trace.json")));
        QVERIFY(!m_rank0.isEmpty());
        m_doc0 = parse(m_rank0);
        QVERIFY(!m_doc0.isEmpty());
    }

    void skeletonFollowsKineto()
    {
        QVERIFY(m_rank0.startsWith(" {\n    \"schemaVersion\": 1,\n"));
        QCOMPARE(m_doc0.value(QStringLiteral("displayTimeUnit")).toString(), QStringLiteral("ms"));
        QCOMPARE(m_doc0.value(QStringLiteral("baseTimeNanoseconds")).toInteger(), qint64(1719792000000000000));
        const QJsonArray devices = m_doc0.value(QStringLiteral("deviceProperties")).toArray();
        QCOMPARE(devices.size(), 2);
        QCOMPARE(devices[0].toObject().value(QStringLiteral("totalGlobalMem")).toInteger(), qint64(84987740160));
        const QJsonObject dist = m_doc0.value(QStringLiteral("distributedInfo")).toObject();
        QCOMPARE(dist.value(QStringLiteral("backend")).toString(), QStringLiteral("nccl"));
        QCOMPARE(dist.value(QStringLiteral("rank")).toInt(), 0);
        QCOMPARE(dist.value(QStringLiteral("world_size")).toInt(), 2);
        const QJsonArray events = m_doc0.value(QStringLiteral("traceEvents")).toArray();
        const QJsonObject last = events.last().toObject();
        QCOMPARE(last.value(QStringLiteral("name")).toString(), QStringLiteral("Record Window End"));
        QCOMPARE(last.value(QStringLiteral("pid")).toString(), QString());
        QVERIFY(m_rank0.contains("  \"traceName\": \"/tmp/libkineto_activities_1000.json\"\n}\n"));
    }

    void timesAreRelativeMicrosecondsWithNanosecondDigits()
    {
        static const QRegularExpression field(QStringLiteral("\"(ts|dur)\": ([^,\\n}]*)"));
        static const QRegularExpression value(QStringLiteral("^\\d+\\.\\d{3}$"));
        int seen = 0;
        for (auto it = field.globalMatch(QString::fromUtf8(m_rank0)); it.hasNext(); ++seen) {
            const QString v = it.next().captured(2);
            QVERIFY2(value.match(v).hasMatch(), qPrintable(v));
        }
        QVERIFY(seen > 1000);
        // Relative to the quarter base: about 44 days into it, far below epoch microseconds.
        const double firstTs = m_doc0.value(QStringLiteral("traceEvents")).toArray()[0].toObject()
                                   .value(QStringLiteral("ts")).toDouble();
        QVERIFY(firstTs > 3.8e12 && firstTs < 3.9e12);
    }

    void eventsAreConsistent()
    {
        const QJsonArray events = m_doc0.value(QStringLiteral("traceEvents")).toArray();
        std::map<qint64, int> flows;
        QSet<qint64> launches;
        QList<QJsonObject> memory, nccl;
        int paramComms = 0, steps = 0, gpuSteps = 0;
        for (const auto &v : events) {
            const QJsonObject e = v.toObject();
            const QString ph = e.value(QStringLiteral("ph")).toString();
            const QString cat = e.value(QStringLiteral("cat")).toString();
            const QString name = e.value(QStringLiteral("name")).toString();
            const QJsonObject args = e.value(QStringLiteral("args")).toObject();
            if (cat == QLatin1String("ac2g"))
                flows[e.value(QStringLiteral("id")).toInteger()] += ph == QLatin1String("s") ? 1 : 10;
            if (cat == QLatin1String("cuda_runtime") && name == QLatin1String("cudaLaunchKernel"))
                launches.insert(args.value(QStringLiteral("correlation")).toInteger());
            if (name == QLatin1String("[memory]"))
                memory.append(e);
            if (cat == QLatin1String("kernel") && name.startsWith(QLatin1String("ncclDevKernel_AllReduce")))
                nccl.append(e);
            paramComms += name == QLatin1String("record_param_comms");
            steps += cat == QLatin1String("user_annotation") && name.startsWith(QLatin1String("ProfilerStep#"));
            gpuSteps += cat == QLatin1String("gpu_user_annotation") && name.startsWith(QLatin1String("ProfilerStep#"));
        }
        for (const auto &[id, count] : flows)
            QVERIFY2(count == 11, qPrintable(QStringLiteral("flow %1 is not one s + one f").arg(id)));
        for (const auto &v : events) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("cat")).toString() == QLatin1String("kernel"))
                QVERIFY(launches.contains(e.value(QStringLiteral("args")).toObject().value(QStringLiteral("correlation")).toInteger()));
        }
        QCOMPARE(steps, 2);
        QCOMPARE(gpuSteps, 2);
        // Memory totals move by exactly each event's Bytes, in time order.
        QVERIFY(memory.size() > 100);
        std::stable_sort(memory.begin(), memory.end(), [](const QJsonObject &a, const QJsonObject &b) {
            return a.value(QStringLiteral("ts")).toDouble() < b.value(QStringLiteral("ts")).toDouble();
        });
        for (int i = 1; i < memory.size(); ++i) {
            const QJsonObject a = memory[i - 1].value(QStringLiteral("args")).toObject();
            const QJsonObject b = memory[i].value(QStringLiteral("args")).toObject();
            QCOMPARE(b.value(QStringLiteral("Total Allocated")).toInteger(),
                     a.value(QStringLiteral("Total Allocated")).toInteger() + b.value(QStringLiteral("Bytes")).toInteger());
            QVERIFY(b.value(QStringLiteral("Total Reserved")).toInteger() >= b.value(QStringLiteral("Total Allocated")).toInteger());
            QCOMPARE(b.value(QStringLiteral("Device Type")).toInt(), 1);
        }
        // One NCCL kernel per record_param_comms, carrying the c10d metadata in sequence.
        QVERIFY(!nccl.isEmpty());
        QCOMPARE(nccl.size(), paramComms);
        qint64 previousSeq = 0;
        for (const QJsonObject &k : nccl) {
            const QJsonObject args = k.value(QStringLiteral("args")).toObject();
            QCOMPARE(args.value(QStringLiteral("Collective name")).toString(), QStringLiteral("allreduce"));
            QCOMPARE(args.value(QStringLiteral("Group size")).toInt(), 2);
            QCOMPARE(args.value(QStringLiteral("Process Group Ranks")).toString(), QStringLiteral("[0, 1]"));
            QVERIFY(args.value(QStringLiteral("Seq")).toInteger() > previousSeq);
            previousSeq = args.value(QStringLiteral("Seq")).toInteger();
            QCOMPARE(k.value(QStringLiteral("tid")).toInt(), 20);
        }
    }

    void ranksDisagreeOnlyByTheirClocks()
    {
        // A collective ends at the same true time everywhere; the traces differ by the clock skew.
        const QJsonObject doc1 = parse(m_rank1);
        auto ends = [](const QJsonObject &doc) {
            QList<double> out;
            for (const auto &v : doc.value(QStringLiteral("traceEvents")).toArray()) {
                const QJsonObject e = v.toObject();
                if (e.value(QStringLiteral("name")).toString().startsWith(QLatin1String("ncclDevKernel")))
                    out.append(e.value(QStringLiteral("ts")).toDouble() + e.value(QStringLiteral("dur")).toDouble());
            }
            std::sort(out.begin(), out.end());
            return out;
        };
        const QList<double> a = ends(m_doc0), b = ends(doc1);
        QCOMPARE(a.size(), b.size());
        for (int i = 0; i < a.size(); ++i)
            QVERIFY2(std::abs((b[i] - a[i]) - 250.0) < 10.0, qPrintable(QString::number(b[i] - a[i])));
    }

    void outputIsDeterministicAndGzipMatchesPlain()
    {
        QTemporaryDir again;
        writeJob(tinyJob(), again.path(), true);
        QCOMPARE(readText(again.filePath(QStringLiteral("rank-0.pt.trace.json.gz"))), m_rank0);
        QCOMPARE(readText(again.filePath(QStringLiteral("rank-1.pt.trace.json.gz"))), m_rank1);
    }

    void outOfMemoryEndsTheRankAndTimesOutItsPeers()
    {
        // Rank 1's last step gets a micro-batch whose attention scores do not fit a 256 MiB GPU.
        JobConfig c = tinyJob();
        c.gpu.totalMemory = 256LL << 20;
        c.gpu.contextMemory = 0;
        c.gpu.ncclMemory = 0;
        c.collectiveTimeoutNs = 5000000000;
        c.ranks[1].steps.back().push_back(MicroBatchShape{2, 2048});
        QTemporaryDir dir;
        const JobRecord record = writeJob(c, dir.path(), false);
        const RankRecord &failed = record.ranks[1];
        const RankRecord &peer = record.ranks[0];
        QVERIFY(failed.oom.has_value());
        QCOMPARE(failed.oom->step, c.firstStep + 1);
        QCOMPARE(failed.oom->microBatch, 3);
        QVERIFY(!failed.oom->python.empty());
        QVERIFY(peer.timeout.has_value());
        QVERIFY(peer.timeout->detected - peer.timeout->workStart >= c.collectiveTimeoutNs);
        QVERIFY(peer.windowEnd > failed.windowEnd);
        // The failed rank's trace is still whole: its open ops were closed by the exception, every
        // flow has both ends, and the OOM is an instant without an address.
        const QJsonObject doc = parse(readText(dir.filePath(QStringLiteral("rank-1.pt.trace.json"))));
        std::map<qint64, int> flows;
        int ooms = 0;
        for (const auto &v : doc.value(QStringLiteral("traceEvents")).toArray()) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("cat")).toString() == QLatin1String("ac2g"))
                flows[e.value(QStringLiteral("id")).toInteger()] += e.value(QStringLiteral("ph")).toString() == QLatin1String("s") ? 1 : 10;
            if (e.value(QStringLiteral("name")).toString() == QLatin1String("[OutOfMemory]")) {
                ++ooms;
                QCOMPARE(e.value(QStringLiteral("args")).toObject().value(QStringLiteral("Bytes")).toInteger(), failed.oom->rounded);
            }
        }
        QCOMPARE(ooms, 1);
        for (const auto &[id, count] : flows)
            QVERIFY2(count == 11, qPrintable(QStringLiteral("flow %1 is not one s + one f").arg(id)));
    }

    void rejectsPlansThatCannotFormAJob()
    {
        JobConfig c = tinyJob();
        c.ranks[1].steps.pop_back();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TrainingJob{c});
        c = tinyJob();
        c.ranks[1].rank = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TrainingJob{c});
    }
};

QTEST_GUILESS_MAIN(TestTraceGen)
#include "test_tracegen.moc"
