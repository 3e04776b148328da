// The whole analysis on real files it was not written for (DESIGN.md §6 samples): a healthy
// 8-rank job must produce no finding of medium severity or above, every sample alone and the
// multi-rank sets together must analyse without a crash and raise only what the file really
// shows (the fairseq OOM), and the registry must hold the whole catalog of DESIGN.md §4.

#include "clockalignment.h"
#include "findings/ruleregistry.h"
#include "importerregistry.h"
#include "importedsession.h"
#include "sessionfixture.h"

#include <QDir>
#include <QDirIterator>
#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

const QString kSamples = QStringLiteral(RANKSCOPE_SAMPLES_DIR);

SessionPtr load(const QStringList &files)
{
    return importSession(files);
}

QStringList filesBelow(const QString &relDir)
{
    QStringList out;
    QDirIterator it(kSamples + QLatin1Char('/') + relDir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << it.next();
    // SOURCES.md describes the samples; it is not one.
    out.removeIf([](const QString &f) { return f.endsWith(QLatin1String(".md")); });
    out.sort();
    return out;
}

// "id/severity" of every finding at or above medium, sorted.
QStringList seriousFindings(const AnalysisResult &r)
{
    QStringList out;
    for (const Finding &f : r.findings)
        if (f.severity >= Severity::Medium)
            out << QStringLiteral("%1/%2").arg(qs(f.id), QLatin1String(severityName(f.severity)));
    out.sort();
    return out;
}

} // namespace

class TestSampleFindings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void registryHoldsTheCatalog();
    void healthyDlrmJob();
    void sampleAlone_data();
    void sampleAlone();
    void htaPair();
    void everythingTogether();
};

void TestSampleFindings::registryHoldsTheCatalog()
{
    // Stable ids, in DESIGN.md §4 order; test_memoryrules and test_rankrules cover each one.
    const QStringList catalog{QStringLiteral("oom"), QStringLiteral("uneven-batch"), QStringLiteral("activation-memory"),
                              QStringLiteral("ddp-unused-parameters"), QStringLiteral("allocator-fragmentation"),
                              QStringLiteral("nccl-buffer-memory"), QStringLiteral("init-full-params"),
                              QStringLiteral("non-pytorch-memory"), QStringLiteral("memory-growth"), QStringLiteral("straggler"),
                              QStringLiteral("collective-desync"), QStringLiteral("nccl-error"), QStringLiteral("driver-mismatch"),
                              QStringLiteral("rank-failure")};
    QStringList ids;
    for (const auto &rule : RuleRegistry::instance().rules())
        ids << qs(rule->id());
    QCOMPARE(ids, catalog);
    for (const QString &id : catalog)
        QVERIFY(RuleRegistry::instance().rule(id.toStdString()) != nullptr);
    QVERIFY(RuleRegistry::instance().rule("no-such-rule") == nullptr);
}

void TestSampleFindings::healthyDlrmJob()
{
    const QStringList files = filesBelow(QStringLiteral("profiler/param_dlrm_8rank"));
    if (files.isEmpty())
        QSKIP("shared samples are not present");
    const SessionPtr s = load(files);
    const AnalysisResult r = Analyzer::run(*s);
    logFindings(r);
    QCOMPARE(r.metrics.size(), std::size_t(8));
    for (const RankMetrics &m : r.metrics) {
        QCOMPARE(*m.steps, std::int64_t(1));
        QCOMPARE(*m.collectives, std::int64_t(8));
        QVERIFY(!m.oom);
    }
    for (const RankAlignment &a : r.alignment) {
        QCOMPARE(a.method, AlignmentMethod::Collectives);
        QVERIFY2(a.confidence == RankAlignment::Confidence::High, a.confidenceReason.c_str());
    }
    // A healthy step: the ranks differ by microseconds at collectives (ranks 4 and 5 by half a
    // millisecond), which is no material lateness: no divergent rank, no problem.
    QCOMPARE(seriousFindings(r), QStringList{});
    for (const Divergence &d : r.divergent)
        QVERIFY2(false, d.reason.c_str());
}

void TestSampleFindings::sampleAlone_data()
{
    QTest::addColumn<QString>("relPath");
    QTest::addColumn<QStringList>("serious");
    if (!QDir(kSamples).exists())
        return;
    for (const QString &f : filesBelow(QString())) {
        const QString rel = QDir(kSamples).relativeFilePath(f);
        // The samples with a problem in them (SOURCES.md): fairseq has 58 OOMs, 614 MiB reserved but
        // unallocated when 62 MiB was asked for, 66 cudaMalloc retries, so both findings are what
        // PyTorch's own message says; evofill's table follows one OOM (its 65 GiB reserved vs 0.65 GiB
        // allocated is cached memory after the OOM, not fragmentation: the peaks are 63.9 vs 65.4 GiB);
        // every rank of the ALCF job times out on its first ALLGATHER; SLURM cancelled the bigscience
        // job at its time limit. Every other sample is healthy.
        QStringList serious;
        if (rel.startsWith(QLatin1String("memory_summary/fairseq")))
            serious = {QStringLiteral("allocator-fragmentation/high"), QStringLiteral("oom/high")};
        else if (rel.startsWith(QLatin1String("memory_summary/evofill")))
            serious = {QStringLiteral("oom/high")};
        else if (rel.startsWith(QLatin1String("joblog/alcf")))
            serious = {QStringLiteral("collective-desync/high")};
        else if (rel.startsWith(QLatin1String("joblog/bigscience"))) // SLURM cancelled it at its time limit
            serious = {QStringLiteral("rank-failure/high")};
        QTest::newRow(qPrintable(rel)) << rel << serious;
    }
}

void TestSampleFindings::sampleAlone()
{
    if (!QDir(kSamples).exists())
        QSKIP("shared samples are not present");
    QFETCH(QString, relPath);
    QFETCH(QStringList, serious);
    const SessionPtr s = load({kSamples + QLatin1Char('/') + relPath});
    const AnalysisResult r = Analyzer::run(*s);
    logFindings(r);
    QCOMPARE(seriousFindings(r), serious);
    QCOMPARE(r.alignment.size(), s->ranks().size());
    QCOMPARE(r.metrics.size(), s->ranks().size());
    for (const RankAlignment &a : r.alignment)
        QCOMPARE(a.offsetNs, TimeNs(0)); // one source per rank: nothing to align against
}

void TestSampleFindings::htaPair()
{
    const QStringList files = filesBelow(QStringLiteral("profiler/hta_sampled_2rank"));
    if (files.isEmpty())
        QSKIP("shared samples are not present");
    const AnalysisResult r = Analyzer::run(*load(files));
    logFindings(r);
    QCOMPARE(r.alignment.size(), std::size_t(2));
    QCOMPARE(r.alignment[1].method, AlignmentMethod::Collectives);
    // Two ranks of one host (one clock): the collectives agree to tens of microseconds.
    QVERIFY2(std::llabs(r.alignment[1].offsetNs) < 100'000, qPrintable(QString::number(r.alignment[1].offsetNs)));
    QVERIFY2(r.alignment[1].confidence == RankAlignment::Confidence::High, r.alignment[1].confidenceReason.c_str());
    QCOMPARE(seriousFindings(r), QStringList{});
    QVERIFY(r.divergent.empty()); // two ranks cannot say which one is odd
}

void TestSampleFindings::everythingTogether()
{
    // Every sample in one session: unrelated jobs whose rank numbers collide. The findings mean
    // little, but nothing may crash, and no clock may be moved by more than a believable skew.
    const QStringList files = filesBelow(QString());
    if (files.isEmpty())
        QSKIP("shared samples are not present");
    const SessionPtr s = load(files);
    const AnalysisResult r = Analyzer::run(*s);
    logFindings(r);
    QCOMPARE(r.alignment.size(), s->ranks().size());
    for (const RankAlignment &a : r.alignment)
        QVERIFY2(std::llabs(a.offsetNs) <= ClockAlignment::kMaxClockSkewNs,
                 qPrintable(QStringLiteral("rank %1 moved by %2 ns (%3)").arg(a.rank).arg(a.offsetNs).arg(QLatin1String(alignmentMethodName(a.method)))));
    QVERIFY(!findingsOf(r, "oom").empty());
    for (const Finding &f : r.findings) {
        QVERIFY(!f.fix.empty());
        QVERIFY(!f.evidence.empty());
        QVERIFY2(f.title.find(" in step ") == f.title.rfind(" in step "), f.title.c_str());
    }
}

QTEST_GUILESS_MAIN(TestSampleFindings)
#include "test_samplefindings.moc"
