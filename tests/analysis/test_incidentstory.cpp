// The incident as one story (issue 10): which finding caused which, who is to blame, the chain in
// causal order and the paragraph a person reads first. Findings are written by hand (a compact
// "id/severity/ranks/time" per finding) so each row tests the relations, not the rules' tuning;
// near-miss rows check what must NOT be linked (other ranks, wrong order in time, a weak cause).
// The last tests add what only a session tells (the step, the ranks that waited, how the job
// ended), run the whole analyzer once, and read real incidents (the samples and the demo).

#include "incidentstory.h"
#include "storywriter.h"
#include "importedsession.h"
#include "sessionfixture.h"

#include "importerregistry.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QStringList>
#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

// "oom/high/2/30": id, severity, ranks ("0,1,3", "" for none), time in seconds after kT0 ("-" for
// none). Title "<id> title", fix "fix for <id>", so a headline shows whose text it used.
Finding parse(const QString &spec)
{
    const QStringList p = spec.split(QLatin1Char('/'));
    Finding f;
    f.id = p.value(0).toStdString();
    const QString sev = p.value(1);
    f.severity = sev == QLatin1String("high") ? Severity::High : sev == QLatin1String("medium") ? Severity::Medium
        : sev == QLatin1String("low")                                                          ? Severity::Low
                                                                                               : Severity::Info;
    for (const QString &r : p.value(2).split(QLatin1Char(','), Qt::SkipEmptyParts))
        f.ranks.push_back(r.toInt());
    if (p.value(3) != QLatin1String("-"))
        f.timeNs = kT0 + p.value(3).toLongLong() * kSec;
    f.title = f.id + " title";
    f.fix = "fix for " + f.id;
    return f;
}

AnalysisResult resultOf(const QStringList &specs)
{
    AnalysisResult r;
    for (const QString &s : specs)
        r.findings.push_back(parse(s));
    return r;
}

QList<int> toList(const std::vector<int> &v)
{
    return QList<int>(v.begin(), v.end());
}

QString rolesOf(const IncidentSummary &s)
{
    QStringList out;
    for (const FindingStory &r : s.roles)
        out << QString::fromLatin1(storyRoleName(r.role)) + (r.relatedTo >= 0 ? QStringLiteral(":%1").arg(r.relatedTo) : QString());
    return out.join(QLatin1Char(' '));
}

} // namespace

class TestIncidentStory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void chain_data();
    void chain();
    void numbersOfTheCause();
    void aboutItself_data();
    void aboutItself();
    void firstSentence();
    void sessionTellsTheRest();
    void analyzerStoresIt();
    void realIncidents_data();
    void realIncidents();
};

void TestIncidentStory::chain_data()
{
    QTest::addColumn<QStringList>("findings");
    QTest::addColumn<QList<int>>("chain");
    QTest::addColumn<QList<int>>("culprits");
    QTest::addColumn<QString>("roles"); // role[:relatedTo] per finding
    QTest::addColumn<QStringList>("says");
    QTest::addColumn<QStringList>("never");

    QTest::newRow("oom, its uneven batch, the peers' desync after it")
        << QStringList{"oom/high/2/30", "collective-desync/high/0,1,3/40", "uneven-batch/high/2/25"} << QList<int>{2, 0, 1}
        << QList<int>{2} << "cause consequence:0 contributing:0"
        << QStringList{"oom title.", "Uneven-batch title.", "Then collective-desync title.", "Fix: fix for uneven-batch"}
        << QStringList{"No rank can be blamed", "stand apart"};
    QTest::newRow("rank-failure on rank 0, then the desync")
        << QStringList{"rank-failure/high/0/10", "collective-desync/high/1,2,3/20"} << QList<int>{0, 1} << QList<int>{0}
        << "cause consequence:0" << QStringList{"rank-failure title.", "Then collective-desync title.", "Fix: fix for rank-failure"}
        << QStringList{"No rank can be blamed"};
    QTest::newRow("a desync alone, rank 1 to blame")
        << QStringList{"collective-desync/high/1/20"} << QList<int>{0} << QList<int>{1} << "cause"
        << QStringList{"collective-desync title.", "Fix: fix for collective-desync"} << QStringList{"No rank can be blamed", "Then"};
    QTest::newRow("a desync nobody can be blamed for")
        << QStringList{"collective-desync/high//20"} << QList<int>{0} << QList<int>{} << "cause"
        << QStringList{"No rank can be blamed: collective-desync title."} << QStringList{};
    QTest::newRow("no findings") << QStringList{} << QList<int>{} << QList<int>{} << "" << QStringList{"No findings"}
                                 << QStringList{"Fix:"};
    QTest::newRow("near miss: untimed findings of different ranks stay apart")
        << QStringList{"oom/high/2/-", "uneven-batch/medium/1/-"} << QList<int>{0} << QList<int>{2} << "cause unrelated"
        << QStringList{"oom title.", "1 other finding stands apart", "Fix: fix for oom"} << QStringList{"uneven-batch title"};
    QTest::newRow("near miss: a desync before the OOM did not follow from it")
        << QStringList{"oom/high/2/50", "collective-desync/high/1/40"} << QList<int>{1} << QList<int>{1} << "unrelated cause"
        << QStringList{"collective-desync title."} << QStringList{"Then"};
    QTest::newRow("another rank failing later follows the first failure")
        << QStringList{"rank-failure/high/3/10", "rank-failure/high/1/20"} << QList<int>{0, 1} << QList<int>{3}
        << "cause consequence:0" << QStringList{"Then rank-failure title."} << QStringList{};
    QTest::newRow("near miss: untimed failures of two ranks are both causes")
        << QStringList{"rank-failure/high/3/-", "rank-failure/high/1/-"} << QList<int>{0, 1} << QList<int>{1, 3} << "cause cause"
        << QStringList{"Rank 3: rank-failure title; rank 1: rank-failure title."} << QStringList{"Then"};
    QTest::newRow("near miss: a failure of the same rank later is no consequence of it")
        << QStringList{"rank-failure/high/3/10", "rank-failure/high/3/20"} << QList<int>{0, 1} << QList<int>{3}
        << "cause cause" << QStringList{"Rank 3: rank-failure title; rank 3: rank-failure title."} << QStringList{"Then"};
    QTest::newRow("NCCL errors after a rank died")
        << QStringList{"oom/high/2/30", "nccl-error/medium/0,1/35"} << QList<int>{0, 1} << QList<int>{2} << "cause consequence:0"
        << QStringList{"Then nccl-error title."} << QStringList{};
    QTest::newRow("near miss: a harmless NCCL message before a hang is not its cause")
        << QStringList{"collective-desync/high/1/40", "nccl-error/info/0/30"} << QList<int>{0} << QList<int>{1} << "cause unrelated"
        << QStringList{} << QStringList{"Then"};
    QTest::newRow("a severe NCCL error before the hang is its cause")
        << QStringList{"collective-desync/high//40", "nccl-error/high/0/30"} << QList<int>{1, 0} << QList<int>{0}
        << "consequence:1 cause" << QStringList{"nccl-error title.", "Then collective-desync title."} << QStringList{};
    QTest::newRow("conditions in severity order; the strongest names the fix")
        << QStringList{"oom/high/2/30", "allocator-fragmentation/medium/2/-", "activation-memory/high/2/28"} << QList<int>{2, 1, 0}
        << QList<int>{2} << "cause contributing:0 contributing:0"
        << QStringList{"Activation-memory title and allocator-fragmentation title.", "Fix: fix for activation-memory"}
        << QStringList{"fix for allocator-fragmentation"};
    QTest::newRow("near miss: a condition of another rank does not explain the OOM")
        << QStringList{"oom/high/2/30", "memory-growth/medium/1/5"} << QList<int>{0} << QList<int>{2} << "cause unrelated"
        << QStringList{"Fix: fix for oom"} << QStringList{"memory-growth title"};
    QTest::newRow("near miss: a low condition explains nothing")
        << QStringList{"oom/high/2/30", "nccl-buffer-memory/low/2/-"} << QList<int>{0} << QList<int>{2} << "cause unrelated"
        << QStringList{"Fix: fix for oom"} << QStringList{"nccl-buffer-memory title"};
    QTest::newRow("an untimed OOM: a later failure hangs off an earlier one, and both off the OOM")
        << QStringList{"oom/high/2/-", "rank-failure/high/2/20", "rank-failure/high/3/30"} << QList<int>{0, 1, 2} << QList<int>{2}
        << "cause consequence:0 consequence:0" << QStringList{"Then rank 2's process exited and rank-failure title."} << QStringList{};
    QTest::newRow("every rank ran out of memory: all are the culprits")
        << QStringList{"oom/high/0/10", "oom/high/1/11"} << QList<int>{0, 1} << QList<int>{0, 1} << "cause cause"
        << QStringList{"Rank 0: oom title; rank 1: oom title."} << QStringList{"stand apart"};
    QTest::newRow("the ranks that waited were aborted after the hang")
        << QStringList{"collective-desync/high/1/40", "rank-failure/high/0/50"} << QList<int>{0, 1} << QList<int>{1}
        << "cause consequence:0" << QStringList{"Rank 1: collective-desync title.", "Then rank-failure title."} << QStringList{};
    QTest::newRow("the scheduler ended the hang at its time limit")
        << QStringList{"rank-failure/high//50", "collective-desync/high/1/40"} << QList<int>{1, 0} << QList<int>{1}
        << "consequence:1 cause" << QStringList{"Rank 1: collective-desync title. Then rank-failure title."} << QStringList{};
    QTest::newRow("near miss: a job-level cancel without time neither starts nor ends the hang")
        << QStringList{"rank-failure/high//-", "collective-desync/high/1/40"} << QList<int>{1} << QList<int>{1} << "unrelated cause"
        << QStringList{"1 other finding stands apart"} << QStringList{"Then"};
    QTest::newRow("a title that does not say whose it is gets its rank")
        << QStringList{"driver-mismatch/high/1/-"} << QList<int>{0} << QList<int>{1} << "cause"
        << QStringList{"Rank 1: driver-mismatch title."} << QStringList{"Rank 1: Rank 1"};
}

void TestIncidentStory::chain()
{
    QFETCH(QStringList, findings);
    QFETCH(QList<int>, chain);
    QFETCH(QList<int>, culprits);
    QFETCH(QString, roles);
    QFETCH(QStringList, says);
    QFETCH(QStringList, never);
    const IncidentSummary s = IncidentStory::build(resultOf(findings));
    const QString headline = QString::fromStdString(s.headline);
    QCOMPARE(toList(s.chain), chain);
    QCOMPARE(QList<int>(s.culpritRanks.begin(), s.culpritRanks.end()), culprits);
    QCOMPARE(rolesOf(s), roles);
    for (const QString &w : says)
        QVERIFY2(headline.contains(w), qPrintable(QStringLiteral("'%1' not in: %2").arg(w, headline)));
    for (const QString &w : never)
        QVERIFY2(!headline.contains(w), qPrintable(QStringLiteral("'%1' in: %2").arg(w, headline)));
    // Every chain entry is a finding, once; a consequence's fix is its cause's (or that cause's condition's).
    QCOMPARE(QSet<int>(chain.begin(), chain.end()).size(), chain.size());
    for (int i = 0; i < findings.size(); ++i) {
        const FindingStory r = s.roleOf(i);
        if (r.role == StoryRole::Consequence)
            QVERIFY(r.fixFrom == r.relatedTo || s.roleOf(r.fixFrom).relatedTo == r.relatedTo);
        else
            QCOMPARE(r.fixFrom, i);
    }
}

// The OOM is told with its message's numbers, the uneven batch with its micro-batches and the
// activations with their rise (each from the metrics and spikes, not from the titles).
void TestIncidentStory::numbersOfTheCause()
{
    AnalysisResult r = resultOf({"oom/high/2/30", "uneven-batch/high/2/25", "activation-memory/high/2/26", "collective-desync/high/0,1,3/40"});
    for (RankId k : {0, 1, 2, 3}) {
        RankMetrics m;
        m.rank = k;
        m.microBatchesPerStep = {{4, 2}, {5, k == 2 ? 3 : 2}};
        r.metrics.push_back(m);
    }
    r.metrics[2].oomRequestedBytes = 5'615'000'000;
    r.metrics[2].oomFreeBytes = 120 * kMiB;
    r.metrics[2].oomCount = 1;
    r.spikes = {{2, kT0 + 26 * kSec, kSec, 12 * kGiB + 900 * kMiB, 5, "aten::bmm", "rank-2.json"},
                {1, kT0 + 26 * kSec, kSec, 13 * kGiB, 5, "aten::bmm", "rank-1.json"}};
    const std::string h = IncidentStory::build(r).headline;
    QVERIFY2(h.starts_with("Rank 2 ran out of GPU memory (tried 5.23 GiB, 120 MiB free). "), h.c_str());
    QVERIFY2(h.find("It got 3 micro-batches in step 5 where its peers got 2 and its activations rose 12.88 GiB in the forward pass of step 5.")
                 != std::string::npos,
             h.c_str());
    // Without per-step counts the condition is told by its title, about the culprit.
    r.metrics[2].microBatchesPerStep.clear();
    r.findings[1].title = "Rank 2 processed more data than its peers";
    const std::string t = IncidentStory::build(r).headline;
    QVERIFY2(t.find("It processed more data than its peers and its activations rose") != std::string::npos, t.c_str());

    // Near miss of the rank prefix: a title that names its ranks stays as it is.
    AnalysisResult named = resultOf({"straggler/medium/1,3/-"});
    named.findings[0].title = "Ranks 1, 3 arrive late at collectives";
    const std::string n = IncidentStory::build(named).headline;
    QVERIFY2(n.starts_with("Ranks 1, 3 arrive late at collectives. Fix:"), n.c_str());
    named.findings[0].title = "Rank 13 arrives late";
    const std::string other = IncidentStory::build(named).headline;
    QVERIFY2(other.starts_with("Ranks 1, 3: Rank 13 arrives late."), other.c_str());
}

void TestIncidentStory::aboutItself_data()
{
    QTest::addColumn<QString>("title");
    QTest::addColumn<int>("rank");
    QTest::addColumn<QString>("told");
    QTest::newRow("possessive") << "Rank 2's caching allocator is fragmented" << 2 << "its caching allocator is fragmented";
    QTest::newRow("subject") << "Rank 2 keeps more memory every step: +1 GiB" << 2 << "it keeps more memory every step: +1 GiB";
    QTest::newRow("inside") << "Activations drive rank 2's memory peak" << 2 << "activations drive its memory peak";
    QTest::newRow("acronym kept") << "NCCL_BUFFSIZE is 8 MiB on rank 2" << 2 << "NCCL_BUFFSIZE is 8 MiB on rank 2";
    QTest::newRow("near miss: another rank") << "Rank 12 keeps more memory" << 1 << "rank 12 keeps more memory";
    QTest::newRow("near miss: a longer number") << "Rank 21's GPU holds 3 GiB" << 2 << "rank 21's GPU holds 3 GiB";
}

void TestIncidentStory::aboutItself()
{
    QFETCH(QString, title);
    QFETCH(int, rank);
    QFETCH(QString, told);
    QCOMPARE(QString::fromStdString(StoryWriter::aboutItself(title.toStdString(), rank)), told);
}

void TestIncidentStory::firstSentence()
{
    IncidentSummary s;
    s.headline = "Rank 2 ran out of GPU memory (tried 5.23 GiB, 120 MiB free). It got 3 micro-batches. Fix: x.";
    QCOMPARE(s.firstSentence(), std::string("Rank 2 ran out of GPU memory (tried 5.23 GiB, 120 MiB free)"));
    s.headline = "No full stop";
    QCOMPARE(s.firstSentence(), std::string("No full stop"));
    s.headline.clear();
    QCOMPARE(s.firstSentence(), std::string());
}

// The step of the OOM, the ranks that waited (their watchdog timeouts) and how torchrun ended the
// job come from the session; a rank that timed out but is the culprit is not among the waiters.
void TestIncidentStory::sessionTellsTheRest()
{
    RankTrace r2(2);
    r2.step(4, kT0 + 20 * kSec, 5 * kSec);
    r2.step(5, kT0 + 25 * kSec, 10 * kSec);
    JobLog log("torchrun.log");
    for (RankId k : {0, 1, 2, 3})
        log.record(k, "rank " + std::to_string(k) + " started");
    for (RankId k : {0, 1, 3, 2}) {
        WatchdogTimeout w;
        w.rank = k;
        w.seq = 67;
        w.opType = "ALLREDUCE";
        log.logs().timeouts.push_back(w);
    }
    ChildFailure c;
    c.rank = 2;
    c.exitCode = 1;
    c.rootCause = true;
    c.launcher = "torchrun";
    log.logs().failures.push_back(c);
    std::vector<SourceBuilder> src;
    src.push_back(r2.take());
    src.push_back(log.take());
    const SessionPtr session = freeze(std::move(src));

    AnalysisResult r = resultOf({"oom/high/2/30", "collective-desync/high/2/40", "rank-failure/high/2/45"});
    RankMetrics m;
    m.rank = 2;
    m.oomRequestedBytes = 2 * kGiB;
    m.oomCount = 2;
    r.metrics = {m};
    const std::string h = IncidentStory::build(r, session.get()).headline;
    QVERIFY2(h.starts_with("Rank 2 ran out of GPU memory 2 times in step 5 (tried 2.00 GiB). "), h.c_str());
    QVERIFY2(h.find("Then ranks 0, 1, 3 waited in allreduce until their watchdogs timed out, rank 2's process exited with code 1 "
                    "and torchrun stopped the job.")
                 != std::string::npos,
             h.c_str());

    // Nothing found: the story says what was read.
    const std::string none = IncidentStory::build(AnalysisResult{}, session.get()).headline;
    QVERIFY2(none.starts_with("No findings: RankScope read 2 input files (ranks 0, 1, 2, 3)"), none.c_str());
}

// The analyzer tells the story after its rules: rank 1 ran out of memory, so it is the culprit.
void TestIncidentStory::analyzerStoresIt()
{
    RankTrace r0(0), r1(1);
    for (RankTrace *r : {&r0, &r1}) {
        r->device(80 * kGiB);
        for (int s = 0; s < 3; ++s)
            r->step(s, kT0 + s * 100 * kMs, 90 * kMs);
        r->allocated(kT0, 2 * kGiB);
    }
    r1.oomInstant(kT0 + 250 * kMs);
    std::vector<SourceBuilder> src;
    src.push_back(r0.take());
    src.push_back(r1.take());
    const SessionPtr s = freeze(std::move(src));
    const AnalysisResult r = Analyzer::run(*s);
    QVERIFY2(!findingsOf(r, "oom").empty(), describe(r).c_str());
    QCOMPARE(r.summary.culpritRanks, std::vector<RankId>{1});
    QCOMPARE(r.summary.roles.size(), r.findings.size());
    QVERIFY(!r.summary.chain.empty());
    QCOMPARE(r.findings[static_cast<std::size_t>(r.summary.chain.back())].id, std::string("oom"));
    QVERIFY2(r.summary.headline.starts_with("Rank 1 ran out of GPU memory"), r.summary.headline.c_str());
}

// Real files (../shared/samples, and the project's demo): who is blamed and how the story opens.
void TestIncidentStory::realIncidents_data()
{
    QTest::addColumn<QString>("path"); // under the samples, or "demo"
    QTest::addColumn<QList<int>>("culprits");
    QTest::addColumn<QStringList>("says");
    QTest::newRow("demo: rank 2's OOM, its peers' hang")
        << "demo" << QList<int>{2}
        << QStringList{"Rank 2 ran out of GPU memory in step 414 (tried 576 MiB, 117 MiB free).", "It got 4 micro-batches where its peers got 3",
                       "Then ", "ranks 0, 1, 3 waited in allreduce", "torchrun stopped the job.", "Fix: Give every rank the same work"};
    QTest::newRow("all 8 ranks time out on the first collective: nobody")
        << "joblog/alcf_polaris_resnet50_2node_8rank_allgather_timeout.log" << QList<int>{} << QStringList{"no rank can be blamed"};
    QTest::newRow("SLURM's time limit: nobody")
        << "joblog/bigscience_jeanzay_slurm_16node_64gpu_megatron_timelimit.out" << QList<int>{} << QStringList{"No rank can be blamed: "};
    QTest::newRow("fairseq's OOMs and the fragmentation behind them")
        << "memory_summary/fairseq_roberta_oom_58_ooms.txt" << QList<int>{0}
        << QStringList{"Rank 0 ran out of GPU memory 58 times (tried 62 MiB, 10 MiB free).", "Its allocator held"};
    QTest::newRow("near miss: a healthy 8-rank job") << "profiler/param_dlrm_8rank" << QList<int>{}
                                                     << QStringList{"No findings: RankScope read 8 input files"};
}

void TestIncidentStory::realIncidents()
{
    QFETCH(QString, path);
    QFETCH(QList<int>, culprits);
    QFETCH(QStringList, says);
    const QString root = path == QLatin1String("demo") ? QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo")
                                                       : QStringLiteral(RANKSCOPE_SAMPLES_DIR "/") + path;
    QStringList files;
    if (QFileInfo(root).isDir()) {
        for (QDirIterator it(root, QDir::Files, QDirIterator::Subdirectories); it.hasNext();)
            if (const QString f = it.next(); !f.endsWith(QLatin1String(".md")))
                files << f;
    } else if (QFileInfo::exists(root)) {
        files << root;
    }
    if (files.isEmpty())
        QSKIP("sample not in this checkout");
    files.sort();
    // UTC: the demo's nvidia-smi CSV and log carry UTC stamps without a zone.
    const SessionPtr session = importSession(files);
    const AnalysisResult r = Analyzer::run(*session);
    const QString headline = qs(r.summary.headline);
    QCOMPARE(QList<int>(r.summary.culpritRanks.begin(), r.summary.culpritRanks.end()), culprits);
    for (const QString &w : says)
        QVERIFY2(headline.contains(w), qPrintable(QStringLiteral("'%1' not in: %2").arg(w, headline)));
    // The chain starts with a cause or a condition of one, never with what followed.
    if (!r.summary.chain.empty())
        QVERIFY(r.summary.roleOf(r.summary.chain.front()).role != StoryRole::Consequence);
}

QTEST_GUILESS_MAIN(TestIncidentStory)
#include "test_incidentstory.moc"
