// The incident report (issue 5): sections in their order, findings with their fixes, escaping of
// user text, input hashes streamed from disk, and a golden file of the whole Markdown of a small
// fixed session so any change to the layout is a reviewed change.

#include "incidentstory.h"
#include "report/incidentreport.h"
#include "sessionfixture.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sstream>

using namespace rs;
using namespace rs::test;

namespace {

// Two ranks with steps, collectives and memory; rank 1 runs out of memory.
SessionPtr twoRankSession()
{
    RankTrace r0(0), r1(1);
    for (RankTrace *r : {&r0, &r1}) {
        r->device(80 * kGiB);
        for (int s = 0; s < 3; ++s) {
            r->step(s, kT0 + s * 100 * kMs, 90 * kMs);
            r->microBatch(kT0 + s * 100 * kMs + kMs);
            r->collective(kT0 + s * 100 * kMs + 80 * kMs, 5 * kMs, 1 << 20, s);
        }
        r->allocated(kT0, 2 * kGiB);
        r->reserved(kT0, 3 * kGiB);
    }
    r1.allocated(kT0 + 150 * kMs, 70 * kGiB);
    r1.reserved(kT0 + 150 * kMs, 79 * kGiB);
    r1.oomInstant(kT0 + 250 * kMs);
    std::vector<SourceBuilder> src;
    src.push_back(r0.take());
    src.push_back(r1.take());
    return freeze(std::move(src));
}

// A result written by hand, so the golden file follows the report's layout and not the tuning of
// the analysis rules.
AnalysisResult fixedResult()
{
    AnalysisResult r;
    r.alignment = {{0, 0, AlignmentMethod::WallClock, std::nullopt, 0, 0},
                   {1, 2 * kMs, AlignmentMethod::Collectives, 150'000, 3, 0}};
    RankMetrics m0, m1;
    m0.rank = 0;
    m0.peakAllocatedBytes = 2 * kGiB;
    m0.peakReservedBytes = 3 * kGiB;
    m0.steps = 3;
    m0.stepTimeMedianNs = 90 * kMs;
    m0.microBatches = 3;
    m0.collectives = 3;
    m1 = m0;
    m1.rank = 1;
    m1.peakAllocatedBytes = 70 * kGiB;
    m1.peakReservedBytes = 79 * kGiB;
    m1.gpuUsedPeakBytes = 80 * kGiB;
    m1.oom = true;
    m1.oomCount = 1;
    r.metrics = {m0, m1};
    r.spikes = {{1, kT0 + 102 * kMs, 48 * kMs, 68 * kGiB, 1, "aten::cat | concat", "rank-1.pt.trace.json"}};
    r.divergent = {{1, "peak_allocated_bytes", double(70 * kGiB), double(36 * kGiB), 12.5,
                    "rank 1 peak allocated memory 70.00 GiB vs median 36.00 GiB"}};
    Finding oom;
    oom.id = "oom";
    oom.severity = Severity::High;
    oom.ranks = {1};
    oom.timeNs = kT0 + 252 * kMs;
    oom.title = "Rank 1 ran out of memory | tried to allocate 2.00 GiB";
    oom.evidence = {{"rank-1.pt.trace.json: [OutOfMemory] at step 2", "rank-1.pt.trace.json", -1, kT0 + 252 * kMs, 1},
                    {"job.log:12: `torch.OutOfMemoryError`", "job.log", 12, std::nullopt, 1}};
    oom.fix = "";
    Finding frag;
    frag.id = "allocator-fragmentation";
    frag.severity = Severity::Medium;
    frag.ranks = {1};
    frag.title = "Reserved memory is 9 GiB above allocated on rank 1";
    frag.fix = "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed blocks can be merged.";
    Finding info;
    info.id = "straggler";
    info.severity = Severity::Low;
    info.ranks = {0, 1};
    info.title = "*Rank 0* arrives <late> at [collectives]";
    info.fix = "Inspect the host of rank 0.";
    // Deliberately out of severity order: the report orders them itself.
    r.findings = {frag, oom, info};
    return r;
}

IncidentReport::Options fixedOptions()
{
    IncidentReport::Options o;
    o.title = "Job 42 | OOM on rank 1";
    o.generatedAt = "2026-11-29 12:00:00 UTC";
    o.images = {{"timeline.png", "Memory of every rank"}, {"oom window.svg", "The OOM, zoomed"}};
    o.range = TimeRange{kT0 + 100 * kMs, kT0 + 300 * kMs};
    return o;
}

// The first line where `a` and `b` differ, as "line N:\n- expected\n+ actual".
std::string firstDifference(const std::string &expected, const std::string &actual)
{
    std::istringstream e(expected), a(actual);
    std::string le, la;
    for (int line = 1;; ++line) {
        const bool he = static_cast<bool>(std::getline(e, le));
        const bool ha = static_cast<bool>(std::getline(a, la));
        if (!he && !ha)
            return "(equal)";
        if (!he || !ha || le != la)
            return "line " + std::to_string(line) + ":\n- " + (he ? le : "<end>") + "\n+ " + (ha ? la : "<end>");
    }
}

} // namespace

class TestIncidentReport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sectionsInOrder();
    void findingsFromAnalysis();
    void storyOpensTheReport();
    void numberedInReadingOrder();
    void escapesUserText();
    void codeSpanFence();
    void sha256OfFile();
    void missingInput();
    void golden();
};

void TestIncidentReport::sectionsInOrder()
{
    const SessionPtr s = twoRankSession();
    const std::string md = IncidentReport::markdown(*s, fixedResult(), fixedOptions());
    const std::vector<std::string> headings{"# Job 42", "## Findings", "## Per-rank metrics", "## Clock alignment",
                                            "## Allocation spikes", "## Inputs", "## Images"};
    std::size_t last = 0;
    for (const std::string &h : headings) {
        const std::size_t at = h.starts_with("# ") ? md.find(h) : md.find("\n" + h + "\n", last);
        QVERIFY2(at != std::string::npos && at >= last, ("missing or out of order: " + h + "\n" + md).c_str());
        last = at;
    }
    // Severity order: high before medium before low, whatever the order in the result.
    const std::size_t section = md.find("\n## Findings\n");
    const std::size_t high = md.find("ran out of memory", section), medium = md.find("Reserved memory is", section),
                      low = md.find("arrives", section);
    QVERIFY(high < medium && medium < low);
    // The divergent cell is flagged and its reason is a footnote.
    QVERIFY(md.find("70.00 ⚠[^d1]") != std::string::npos);
    QVERIFY(md.find("[^d1]: rank 1 peak allocated memory") != std::string::npos);
    QVERIFY(md.find("![Memory of every rank](<timeline.png>)") != std::string::npos);
}

void TestIncidentReport::findingsFromAnalysis()
{
    const SessionPtr s = twoRankSession();
    const AnalysisResult r = Analyzer::run(*s);
    QVERIFY2(!r.findings.empty(), describe(r).c_str());
    const std::string md = IncidentReport::markdown(*s, r, {});
    for (const Finding &f : r.findings) {
        QVERIFY2(md.find(IncidentReport::escape(f.title)) != std::string::npos, f.title.c_str());
        if (!f.fix.empty())
            QVERIFY2(md.find(IncidentReport::escape(f.fix)) != std::string::npos, f.fix.c_str());
        for (const Evidence &e : f.evidence)
            QVERIFY2(md.find(IncidentReport::codeSpan(e.text)) != std::string::npos, e.text.c_str());
    }
    // The story is the first paragraph, its first sentence in bold.
    QVERIFY2(md.starts_with("# RankScope incident report\n\n**" + IncidentReport::escape(r.summary.firstSentence()) + ".**"), md.c_str());
    QVERIFY(md.find("2 ranks (0, 1) read from 2 input files") != std::string::npos);
}

// "### 3." must be the finding the viewer shows as ③: findingOrder() — severity, then time, timeless
// last — even for a result whose findings were not sorted by the analysis.
// The report opens with the story even for a result put together by hand; a consequence names its
// cause and carries the cause's fix; with nothing found, the first paragraph says what was read.
void TestIncidentReport::storyOpensTheReport()
{
    const SessionPtr s = twoRankSession();
    const AnalysisResult r = fixedResult();
    const std::string md = IncidentReport::markdown(*s, r, fixedOptions());
    const IncidentSummary told = IncidentStory::build(r, s.get());
    QVERIFY2(md.starts_with("# Job 42 \\| OOM on rank 1\n\n**" + IncidentReport::escape(told.firstSentence()) + ".**"), md.c_str());
    // The straggler followed the OOM (finding 1); the fragmentation behind the OOM (finding 2) is the fix.
    QVERIFY2(md.find("- Consequence of: finding 1\n") != std::string::npos, md.c_str());
    QVERIFY2(md.find("- Led to: finding 1\n") != std::string::npos, md.c_str());
    QVERIFY2(md.find("**Fix (of finding 2, behind the cause):** Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True") != std::string::npos,
             md.c_str());
    QVERIFY(md.find("Inspect the host of rank 0") == std::string::npos);
    // A finding that stands alone keeps its own fix and no story line.
    AnalysisResult alone;
    alone.findings = {r.findings[2]};
    const std::string one = IncidentReport::markdown(*s, alone, {});
    QVERIFY(one.find("**Fix:** Inspect the host of rank 0.") != std::string::npos);
    QVERIFY(one.find("- Consequence of:") == std::string::npos);
    // Nothing found.
    const std::string none = IncidentReport::markdown(*s, AnalysisResult{}, {});
    QVERIFY2(none.starts_with("# RankScope incident report\n\n**No findings: RankScope read 2 input files"), none.c_str());
}

void TestIncidentReport::numberedInReadingOrder()
{
    AnalysisResult r;
    const auto make = [](const char *title, Severity s, std::optional<TimeNs> t) {
        Finding f;
        f.id = "oom";
        f.severity = s;
        f.timeNs = t;
        f.title = title;
        return f;
    };
    r.findings = {make("timeless high", Severity::High, std::nullopt), make("late high", Severity::High, kT0 + 900),
                  make("low", Severity::Low, kT0), make("early high", Severity::High, kT0 + 100)};
    QCOMPARE(findingOrder(r), (std::vector<int>{3, 1, 0, 2}));
    const std::string md = IncidentReport::markdown(*twoRankSession(), r, {});
    const auto at = [&md](const char *heading) { return md.find(heading); };
    QVERIFY(at("### 1. early high") != std::string::npos);
    QVERIFY(at("### 2. late high") != std::string::npos);
    QVERIFY(at("### 3. timeless high") != std::string::npos);
    QVERIFY(at("### 4. low") != std::string::npos);
    QVERIFY(at("### 1. early high") < at("### 4. low"));
}

void TestIncidentReport::escapesUserText()
{
    QCOMPARE(IncidentReport::escape("a | b"), std::string("a \\| b"));
    QCOMPARE(IncidentReport::escape("*x* [y](z) <b>"), std::string("\\*x\\* \\[y\\](z) \\<b\\>"));
    QCOMPARE(IncidentReport::escape("# heading\nnext"), std::string("\\# heading next"));
    // Intraword underscores stay readable; a leading one would start emphasis.
    QCOMPARE(IncidentReport::escape("expandable_segments:True"), std::string("expandable_segments:True"));
    QCOMPARE(IncidentReport::escape("_allgather_base"), std::string("\\_allgather_base"));
    const SessionPtr s = twoRankSession();
    const std::string md = IncidentReport::markdown(*s, fixedResult(), fixedOptions());
    QVERIFY(md.find("# Job 42 \\| OOM on rank 1\n") == 0);
    QVERIFY(md.find("out of memory \\| tried") != std::string::npos);
    QVERIFY(md.find("aten::cat \\| concat") != std::string::npos);
}

void TestIncidentReport::codeSpanFence()
{
    QCOMPARE(IncidentReport::codeSpan("a:1: x"), std::string("`a:1: x`"));
    QCOMPARE(IncidentReport::codeSpan("use `x`"), std::string("`` use `x` ``"));
}

void TestIncidentReport::sha256OfFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("abc.txt"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("abc");
    f.close();
    QCOMPARE(IncidentReport::sha256File(path.toStdString()).value_or("none"),
             std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));

    // A file larger than one read chunk: SHA-256 of 3 MiB of 'a' (computed with sha256sum).
    const QString big = dir.filePath(QStringLiteral("big.bin"));
    QFile g(big);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write(QByteArray(3 << 20, 'a'));
    g.close();
    QCOMPARE(IncidentReport::sha256File(big.toStdString()).value_or("none"),
             std::string("6f850bc94ae6f7de14297c01616c36d712d22864497b28a63b81d776b035e656"));

    // The Inputs table hashes the source files the session was read from.
    SourceBuilder b(path.toStdString());
    b.source().format = "job-log";
    b.finish();
    std::vector<SourceBuilder> src;
    src.push_back(std::move(b));
    const SessionPtr s = freeze(std::move(src));
    const std::string md = IncidentReport::markdown(*s, AnalysisResult{}, {});
    QVERIFY2(md.find("| 3 | `ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad` |") != std::string::npos,
             md.c_str());
}

void TestIncidentReport::missingInput()
{
    QVERIFY(!IncidentReport::sha256File("/nonexistent/rankscope/file.json").has_value());
    SourceBuilder b("/nonexistent/rankscope/rank-0.json");
    b.source().format = "pytorch-trace";
    b.finish();
    std::vector<SourceBuilder> src;
    src.push_back(std::move(b));
    const SessionPtr s = freeze(std::move(src));
    const std::string md = IncidentReport::markdown(*s, AnalysisResult{}, {});
    QVERIFY2(md.find("| /nonexistent/rankscope/rank-0.json | pytorch-trace | ") != std::string::npos
                 && md.find(" | missing | missing | 0 | 0 |") != std::string::npos,
             md.c_str());
}

void TestIncidentReport::golden()
{
    const SessionPtr s = twoRankSession();
    const std::string actual = IncidentReport::markdown(*s, fixedResult(), fixedOptions());
    const QString expectedPath = QStringLiteral(RANKSCOPE_FIXTURES_DIR "/report/expected.md");
    if (qEnvironmentVariableIsSet("RANKSCOPE_UPDATE_GOLDEN")) {
        QFile out(expectedPath);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(actual.data(), qint64(actual.size()));
    }
    QFile in(expectedPath);
    QVERIFY2(in.open(QIODevice::ReadOnly), qPrintable(expectedPath));
    const std::string expected = in.readAll().toStdString();
    if (expected != actual) {
        // Left beside the test binary so `diff -u` against the fixture shows the whole change.
        const QString actualPath = QCoreApplication::applicationDirPath() + QStringLiteral("/expected.md.actual");
        QFile out(actualPath);
        if (out.open(QIODevice::WriteOnly))
            out.write(actual.data(), qint64(actual.size()));
        QFAIL(qPrintable(QStringLiteral("report differs from %1 (actual written to %2; RANKSCOPE_UPDATE_GOLDEN=1 "
                                        "rewrites the fixture), first difference at %3")
                             .arg(expectedPath, actualPath, QString::fromStdString(firstDifference(expected, actual)))));
    }
}

QTEST_GUILESS_MAIN(TestIncidentReport)
#include "test_incidentreport.moc"
