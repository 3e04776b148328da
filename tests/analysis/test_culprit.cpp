// collective-desync names the rank that CAUSED a hang or desync, not the ranks that waited:
// the rank that never reached the collective (its watchdog silent while its peers' fire), the one
// whose SeqNum lags, the odd one out by majority at the same SeqNum, and nobody when every rank
// waits on the first collective with equal progress. Jobs come from the project's own fixture
// logs read by the log importer, from flight-recorder entries built with SourceBuilder, and from
// the real ALCF sample when present. The waiting ranks stay in the evidence with their rank.

#include "collectiveprogress.h"
#include "importerregistry.h"
#include "importedsession.h"
#include "sessionfixture.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <functional>
#include <limits>
#include <map>

using namespace rs;
using namespace rs::test;

namespace {

const QString kFixtures = QStringLiteral(RANKSCOPE_FIXTURES_DIR "/logs/incidents/");
const QString kSamples = QStringLiteral(RANKSCOPE_SAMPLES_DIR);
const QString kAlcf = QStringLiteral("/joblog/alcf_polaris_resnet50_2node_8rank_allgather_timeout.log");

SessionPtr loadFile(const QString &path)
{
    return QFile::exists(path) ? importSession({path}) : nullptr;
}

// Every file of a folder (one flight-recorder dump per rank), read by the importers.
SessionPtr loadDir(const QString &dir)
{
    QStringList files;
    for (const QString &n : QDir(dir).entryList(QDir::Files, QDir::Name))
        files << dir + QLatin1Char('/') + n;
    return files.isEmpty() ? nullptr : importSession(files);
}

// One rank's flight-recorder dump: `last` entries of one process group, SeqNum 1..last; entries
// after `completedUpTo` are still started (the watchdog dumped while they hung).
SourceBuilder dump(RankId rank, std::int64_t last, std::int64_t completedUpTo, std::vector<RankId> members,
                   std::function<void(FlightRecord &)> edit = {})
{
    SourceBuilder b("nccl_trace_rank_" + std::to_string(rank));
    b.source().format = "flight-recorder";
    b.source().ranks = {rank};
    FlightRecorderGroup g;
    g.rank = rank;
    g.pgId = "0";
    g.name = "0";
    g.desc = "default_pg";
    g.ranks = std::move(members);
    b.flightRecorder().groups.push_back(g);
    for (std::int64_t seq = 1; seq <= last; ++seq) {
        FlightRecord e;
        e.rank = rank;
        e.index = seq - 1;
        e.recordId = seq;
        e.pgId = "0";
        e.pgName = "0";
        e.pgDesc = "default_pg";
        e.collectiveSeq = seq;
        e.profilingName = "nccl:all_reduce";
        e.inputSizes = {{1024, 1024}};
        e.outputSizes = {{1024, 1024}};
        e.inputDtypes = {"Float"};
        e.outputDtypes = {"Float"};
        e.created = kT0 + seq * kSec;
        e.state = seq <= completedUpTo ? FlightRecord::State::Completed : FlightRecord::State::Started;
        if (edit)
            edit(e);
        b.flightRecorder().entries.push_back(std::move(e));
    }
    b.finish();
    return b;
}

SessionPtr frJob(std::function<SourceBuilder(RankId)> rankDump)
{
    std::vector<SourceBuilder> src;
    for (RankId r = 0; r < 4; ++r)
        src.push_back(rankDump(r));
    return freeze(std::move(src));
}

// Every rank of a job log times out on `seq`; rank 3 also prints watchdog progress whose counters
// are `enqueued` / `completed` (garbage in the near miss).
SessionPtr allTimeOut(std::int64_t seq, std::int64_t enqueued, std::int64_t completed)
{
    JobLog log;
    for (RankId r = 0; r < 4; ++r) {
        log.record(r, "NCCL INFO comm 0x1 rank " + std::to_string(r) + " nranks 4 cudaDev 0 busId 7000 - Init COMPLETE", LogFlagNcclInit,
                   LogKind::Nccl);
        const std::int64_t line = log.record(r, "[Rank " + std::to_string(r) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum="
                                                    + std::to_string(seq) + ", OpType=ALLGATHER, NumelIn=1, NumelOut=4, Timeout(ms)=120000)",
                                             LogFlagWatchdogTimeout, LogKind::PyTorch, LogLevel::Error, kT0 + (10 + r) * kSec);
        WatchdogTimeout w;
        w.rank = r;
        w.seq = seq;
        w.opType = "ALLGATHER";
        w.numelIn = 1;
        w.numelOut = 4;
        w.time = kT0 + (10 + r) * kSec;
        w.line = line;
        log.logs().timeouts.push_back(w);
    }
    const std::int64_t line = log.record(3, "Timeout at NCCL work: " + std::to_string(seq) + ", last enqueued NCCL work: " + std::to_string(enqueued)
                                                + ", last completed NCCL work: " + std::to_string(completed),
                                         LogFlagWatchdogProgress, LogKind::PyTorch, LogLevel::Error, kT0 + 14 * kSec);
    WatchdogProgress p;
    p.rank = 3;
    p.work = seq;
    p.lastEnqueued = enqueued;
    p.lastCompleted = completed;
    p.line = line;
    log.logs().progress.push_back(p);
    std::vector<SourceBuilder> src;
    src.push_back(log.take());
    return freeze(std::move(src));
}

// Old watchdog lines without a SeqNum on every rank; NCCL COLL lines show rank 2's communicator
// one AllReduce short (`lastOpCount2` = 0x1d), or level with its peers (0x1e).
SessionPtr opCounts(std::uint64_t lastOpCount2)
{
    JobLog log;
    for (RankId r = 0; r < 4; ++r)
        for (std::uint64_t op = 0x1c; op <= (r == 2 ? lastOpCount2 : 0x1e); ++op) {
            NcclCall c;
            c.rank = r;
            c.op = "AllReduce";
            c.opCount = op;
            c.count = 1024;
            c.comm = "0x55" + std::to_string(r);
            c.time = kT0 + std::int64_t(op) * kSec;
            c.line = log.record(r, "NCCL INFO AllReduce: opCount " + std::to_string(op) + " count 1024 datatype 7 op 0 comm " + c.comm,
                                LogFlagNcclCollective, LogKind::Nccl, LogLevel::Info, c.time);
            log.logs().calls.push_back(c);
        }
    for (RankId r = 0; r < 4; ++r)
        log.record(r, "[Rank " + std::to_string(r) + "] Watchdog caught collective operation timeout", LogFlagWatchdogTimeout,
                   LogKind::PyTorch, LogLevel::Error, kT0 + 100 * kSec);
    std::vector<SourceBuilder> src;
    src.push_back(log.take());
    return freeze(std::move(src));
}

// Ranks 1, 4-7 time out on BROADCAST SeqNum 5; their NCCL Init lines say the world has 8 ranks,
// and ranks 0, 2, 3 wrote nothing at all.
SessionPtr noOutputAtAll()
{
    JobLog log;
    for (RankId r : {1, 4, 5, 6, 7}) {
        NcclCommInfo c;
        c.rank = r;
        c.nranks = 8;
        c.complete = true;
        c.line = log.record(r, "NCCL INFO comm 0x1 rank " + std::to_string(r) + " nranks 8 cudaDev 0 busId 7000 - Init COMPLETE",
                            LogFlagNcclInit, LogKind::Nccl);
        log.logs().comms.push_back(c);
    }
    for (RankId r : {1, 4, 5, 6, 7}) {
        WatchdogTimeout w;
        w.rank = r;
        w.seq = 5;
        w.opType = "BROADCAST";
        w.time = kT0 + 1800 * kSec;
        w.line = log.record(r, "[Rank " + std::to_string(r) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=BROADCAST)",
                            LogFlagWatchdogTimeout, LogKind::PyTorch, LogLevel::Error, w.time);
        log.logs().timeouts.push_back(w);
    }
    std::vector<SourceBuilder> src;
    src.push_back(log.take());
    return freeze(std::move(src));
}

const std::map<QString, std::function<SessionPtr()>> &scenarios()
{
    static const std::map<QString, std::function<SessionPtr()>> table{
        {"rank 1 stalls on a data shard", [] { return loadFile(kFixtures + "hang_rank1_data_shard.log"); }},
        {"8 ranks, 3 silent", [] { return loadFile(kFixtures + "hang_8rank_broadcast_silent.log"); }},
        {"reduce vs allgather", [] { return loadFile(kFixtures + "desync_reduce_vs_allgather.log"); }},
        {"rank 7 lags", [] { return loadFile(kFixtures + "hang_rank7_seq_lag.log"); }},
        {"opCount: rank 2 one call short", [] { return opCounts(0x1d); }},
        {"opCount: all level", [] { return opCounts(0x1e); }},
        {"8 ranks, 3 without any output", noOutputAtAll},
        {"healthy log", [] { return loadFile(kFixtures + "healthy_4rank_with_warnings.log"); }},
        {"alcf sample", [] { return loadFile(kSamples + kAlcf); }},
        {"alcf and another job", [] { return loadDir(kSamples + QStringLiteral("/joblog")); }},
        {"fr: rank 2 missing", [] {
             return frJob([](RankId r) { return r == 2 ? dump(r, 10, 10, {0, 1, 2, 3}) : dump(r, 11, 10, {0, 1, 2, 3}); });
         }},
        {"fr: rank 1 other size", [] {
             return frJob([](RankId r) {
                 return dump(r, 6, 3, {0, 1, 2, 3}, [r](FlightRecord &e) {
                     if (r == 1 && e.collectiveSeq == 4)
                         e.inputSizes = e.outputSizes = {{512, 1024}};
                 });
             });
         }},
        {"fr dumps: rank 1 never reaches #67", [] { return loadDir(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/flightrecorder/hang")); }},
        {"fr dumps: rank 2 broadcasts", [] { return loadDir(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/flightrecorder/desync")); }},
        {"fr dumps: two ranks, two sizes", [] { return loadDir(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/flightrecorder/sizemismatch")); }},
        {"fr: all completed", [] { return frJob([](RankId r) { return dump(r, 12, 12, {0, 1, 2, 3}); }); }},
        {"all on the first collective", [] { return allTimeOut(1, 1, 0); }},
        {"all equal, garbage progress", [] { return allTimeOut(20, 94904856301872, 3904955349522264369); }},
    };
    return table;
}

} // namespace

class TestCulprit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void culprit_data();
    void culprit();
    void garbageIsNotProgress();
    void oddValuesNeverCrash();
    void progressPerGroupAndSeq();
};

void TestCulprit::culprit_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<bool>("expected");  // a collective-desync finding at all
    QTest::addColumn<QList<int>>("ranks");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("evidence"); // a culprit's evidence line (rank set) contains this
    QTest::addColumn<QList<int>>("waiting"); // ranks that must appear in the evidence as waiting

    QTest::newRow("data shard stall: rank 1, its last lines") << "rank 1 stalls on a data shard" << true << QList<int>{1}
                                                              << "never reached ALLREDUCE SeqNum 67" << "shard-00017.tar: read stalled"
                                                              << QList<int>{0, 2, 3};
    QTest::newRow("silent ranks 0, 2, 3") << "8 ranks, 3 silent" << true << QList<int>{0, 2, 3} << "never reached BROADCAST SeqNum 5"
                                          << "reported no watchdog timeout" << QList<int>{1, 4, 5, 6, 7};
    QTest::newRow("no output at all: world size names them") << "8 ranks, 3 without any output" << true << QList<int>{0, 2, 3}
                                                              << "never reached BROADCAST SeqNum 5" << "left no output in these files"
                                                              << QList<int>{1, 4, 5, 6, 7};
    QTest::newRow("odd op by majority") << "reduce vs allgather" << true << QList<int>{0} << "ran REDUCE" << "REDUCE"
                                        << QList<int>{1, 5};
    QTest::newRow("seq lags 32000") << "rank 7 lags" << true << QList<int>{7} << "lags 32000 collectives behind" << "SeqNum=8123"
                                    << QList<int>{0, 6};
    QTest::newRow("fr: missing from SeqNum 11") << "fr: rank 2 missing" << true << QList<int>{2} << "never reached nccl:all_reduce SeqNum 11"
                                                << "flight recorder" << QList<int>{0, 1, 3};
    QTest::newRow("fr: size mismatch at SeqNum 4") << "fr: rank 1 other size" << true << QList<int>{1} << "at SeqNum 4" << "[[512, 1024]]"
                                                   << QList<int>{};
    QTest::newRow("fr dumps: rank 1 missing from #67") << "fr dumps: rank 1 never reaches #67" << true << QList<int>{1}
                                                      << "never reached nccl:all_reduce SeqNum 67" << "SeqNum 66"
                                                      << QList<int>{0, 2, 3};
    QTest::newRow("fr dumps: broadcast among all_reduce") << "fr dumps: rank 2 broadcasts" << true << QList<int>{2}
                                                          << "ran nccl:broadcast" << "nccl:broadcast" << QList<int>{0, 1, 3};
    // Two ranks, two sizes: no majority, so both are named and the title says they disagree.
    QTest::newRow("fr dumps: 1 vs 1 sizes, no majority") << "fr dumps: two ranks, two sizes" << true << QList<int>{0, 1}
                                                         << "disagree at SeqNum 12" << "[[512]]" << QList<int>{};
    QTest::newRow("nccl opCount: rank 2 behind") << "opCount: rank 2 one call short" << true << QList<int>{2} << "never reached"
                                                 << "opCount 0x1d where 3 of 4 ranks reached 0x1e" << QList<int>{0, 1, 3};
    QTest::newRow("nccl opCount level: nobody") << "opCount: all level" << true << QList<int>{} << "no rank can be blamed" << ""
                                                << QList<int>{0, 1, 2, 3};
    QTest::newRow("all on SeqNum 1: nobody") << "all on the first collective" << true << QList<int>{} << "no rank can be blamed" << ""
                                             << QList<int>{0, 1, 2, 3};
    QTest::newRow("equal progress, garbage counters: nobody") << "all equal, garbage progress" << true << QList<int>{}
                                                              << "equal progress" << "" << QList<int>{0, 1, 2, 3};
    QTest::newRow("alcf sample: nobody, init evidence") << "alcf sample" << true << QList<int>{} << "the first collective" << ""
                                                        << QList<int>{0, 7};
    // The SLURM job in the same folder has 64 ranks and no watchdog report: its ranks 8-63 belong
    // to another world (its file states 64) and are not blamed for the ALCF hang.
    QTest::newRow("unrelated job in the folder: still nobody") << "alcf and another job" << true << QList<int>{}
                                                               << "the first collective" << "" << QList<int>{0, 7};
    QTest::newRow("near miss: healthy log") << "healthy log" << false << QList<int>{} << "" << "" << QList<int>{};
    QTest::newRow("near miss: fr all completed") << "fr: all completed" << false << QList<int>{} << "" << "" << QList<int>{};
}

void TestCulprit::culprit()
{
    QFETCH(QString, scenario);
    QFETCH(bool, expected);
    QFETCH(QList<int>, ranks);
    QFETCH(QString, title);
    QFETCH(QString, evidence);
    QFETCH(QList<int>, waiting);
    const SessionPtr s = scenarios().at(scenario)();
    if (!s)
        QSKIP("input not present");
    const AnalysisResult r = Analyzer::run(*s);
    logFindings(r);
    const auto found = findingsOf(r, "collective-desync");
    if (!expected) {
        QVERIFY2(found.empty(), describe(r).c_str());
        return;
    }
    QVERIFY2(found.size() == 1, describe(r).c_str());
    const Finding &f = *found.front();
    QCOMPARE(QList<int>(f.ranks.begin(), f.ranks.end()), ranks);
    QCOMPARE(f.severity, Severity::High);
    QVERIFY2(qs(f.title).contains(title), f.title.c_str());
    QVERIFY(!f.fix.empty());
    // The ALCF job's PyTorch lines carry no date: nothing to time the finding by.
    QCOMPARE(f.timeNs.has_value(), !scenario.startsWith(QLatin1String("alcf")));
    bool culpritEvidence = evidence.isEmpty();
    for (const Evidence &e : f.evidence)
        if (qs(e.text).contains(evidence) && (ranks.isEmpty() || ranks.contains(e.rank)))
            culpritEvidence = true;
    QVERIFY2(culpritEvidence, qPrintable(evidence));
    for (int w : waiting) {
        bool seen = false;
        for (const Evidence &e : f.evidence)
            seen |= e.rank == w;
        QVERIFY2(seen, qPrintable(QStringLiteral("waiting rank %1 not in the evidence").arg(w)));
    }
    if (ranks.isEmpty() && scenario != QLatin1String("all equal, garbage progress") && !scenario.startsWith(QLatin1String("opCount"))) {
        // No culprit: the init/network evidence is what is left to read.
        bool init = false;
        for (const Evidence &e : f.evidence)
            init |= qs(e.text).contains(QLatin1String("Init COMPLETE"));
        QVERIFY(init);
    }
}

void TestCulprit::garbageIsNotProgress()
{
    // Uninitialised watchdog counters must not become a rank's progress.
    const CollectiveProgress p = CollectiveProgress::gather(*allTimeOut(20, 94904856301872, 3904955349522264369));
    const RankProgress *r3 = p.progress(3, "0");
    QVERIFY(r3);
    QCOMPARE(r3->reached, std::int64_t(20));
    QCOMPARE(r3->completed, std::int64_t(-1));
    QCOMPARE(r3->waitingOn, std::int64_t(20));
    // Plausible counters are read.
    const CollectiveProgress q = CollectiveProgress::gather(*allTimeOut(20, 21, 19));
    QCOMPARE(q.progress(3, "0")->reached, std::int64_t(21));
    QCOMPARE(q.progress(3, "0")->completed, std::int64_t(19));
}

void TestCulprit::oddValuesNeverCrash()
{
    // Reports a broken importer or a hand-made session could hold: extreme SeqNums, unknown ranks,
    // reports without a line, failures of nobody. The analysis must neither crash nor blame a
    // rank that is no rank.
    JobLog log;
    log.record(0, "step 1", 0, LogKind::Other, LogLevel::Info, kT0);
    for (RankId r : {0, 1, kNoRank, kJobLevel}) {
        WatchdogTimeout w;
        w.rank = r;
        w.seq = r == 1 ? std::numeric_limits<std::int64_t>::max() : 3;
        w.opType = r == 0 ? "" : "ALLREDUCE";
        w.pgId = r == 1 ? 1 << 30 : -1;
        log.logs().timeouts.push_back(w);
        WatchdogProgress g;
        g.rank = r;
        g.work = std::numeric_limits<std::int64_t>::max();
        g.lastEnqueued = std::numeric_limits<std::int64_t>::max();
        g.lastCompleted = -7;
        log.logs().progress.push_back(g);
    }
    ChildFailure c;
    c.rank = kJobLevel;
    c.exitCode = std::numeric_limits<std::int32_t>::min();
    log.logs().failures.push_back(c);
    JobEvent e;
    e.kind = JobEventKind::OomKill;
    log.logs().jobEvents.push_back(e);
    NcclCall call;
    call.rank = kNoRank;
    log.logs().calls.push_back(call);
    std::vector<SourceBuilder> src;
    src.push_back(log.take());
    src.push_back(dump(2, 3, 1, {0, 1, 2, -5}, [](FlightRecord &f) {
        f.collectiveSeq = f.index == 2 ? -1 : f.collectiveSeq;
        f.inputSizes = {{}, {-1}};
    }));
    const SessionPtr s = freeze(std::move(src));
    const AnalysisResult r = Analyzer::run(*s);
    for (const Finding &f : r.findings)
        for (RankId k : f.ranks)
            QVERIFY2(k >= 0, f.title.c_str());
    QVERIFY(!findingsOf(r, "collective-desync").empty());
    QVERIFY(!findingsOf(r, "rank-failure").empty()); // the host's OOM killer ended the job
}

void TestCulprit::progressPerGroupAndSeq()
{
    const SessionPtr s = scenarios().at("reduce vs allgather")();
    const CollectiveProgress p = CollectiveProgress::gather(*s);
    // Each evidence kind names the group its way; the watchdog's "[PG 1 Rank R]" is group "1".
    const GroupSeqOps *at = p.at("1", 9);
    QVERIFY(at);
    QCOMPARE(at->ops.size(), std::size_t(3));
    QCOMPARE(at->ops[0].rank, 0);
    QCOMPARE(at->ops[0].opKey, std::string("reduce"));
    QCOMPARE(at->ops[1].opKey, std::string("allgatherbase"));
    QCOMPARE(p.members("1"), (std::vector<RankId>{0, 1, 5}));
    QCOMPARE(p.members("0").size(), std::size_t(8)); // world size from NCCL Init lines
    QCOMPARE(CollectiveProgress::opKey("nccl:_allgather_base"), std::string("allgatherbase"));
    QVERIFY(CollectiveProgress::sizesMustMatch("allreduce"));
    QVERIFY(!CollectiveProgress::sizesMustMatch("alltoallbase"));
    QVERIFY(!CollectiveProgress::sizesMustMatch("send"));
    QVERIFY(CollectiveProgress::sizesMustMatch("allgatherbase"));
}

QTEST_GUILESS_MAIN(TestCulprit)
#include "test_culprit.moc"
