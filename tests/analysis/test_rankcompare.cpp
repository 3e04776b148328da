// The compare view's analysis (analysis/compare): per-rank op and kernel totals against an
// independent recount on real traces (the demo incident, the 8-rank DLRM sample), allocation bytes
// charged to the innermost op on a hand-made session, the two-rank diff's order and one-sided
// names, steps matched by number, and the median-rank rule on hand-made metrics.

#include "compare/optotals.h"
#include "compare/rankdiff.h"
#include "compare/referencerank.h"
#include "importerregistry.h"
#include "sessionfixture.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTest>

#include <cstdlib>
#include <map>

using namespace rs;
using namespace rs::test;

namespace {

SessionPtr loadDir(const QString &dir)
{
    std::vector<SourceBuilder> src;
    for (const std::string &path : ImporterRegistry::expandPaths({dir.toStdString()})) {
        if (path.ends_with(".md"))
            continue;
        ImportContext ctx;
        ctx.timeZone = "UTC";
        src.push_back(ImporterRegistry::instance().importFile(path, ctx));
    }
    return src.empty() ? nullptr : freeze(std::move(src));
}

// Count and time of `name` on the rank's tracks of `kind`, straight from the session.
OpStats recount(const Session &s, RankId rank, TrackKind kind, StringId name)
{
    OpStats st;
    for (const Track &t : s.tracks())
        if (t.rank == rank && t.kind == kind)
            for (const Span &sp : t.spans)
                if (sp.name == name) {
                    ++st.count;
                    st.time += sp.duration;
                }
    return st;
}

// Sum of the positive steps of the rank's device allocated counters.
std::int64_t risesOf(const Session &s, RankId rank)
{
    std::int64_t sum = 0;
    for (const Track &t : s.tracks())
        if (t.rank == rank && t.kind == TrackKind::MemoryAllocated && t.device >= 0)
            for (std::size_t i = 1; i < t.counter.size(); ++i)
                if (t.counter.values[i] > t.counter.values[i - 1])
                    sum += static_cast<std::int64_t>(t.counter.values[i] - t.counter.values[i - 1]);
    return sum;
}

// The most frequent name of `kind` in the totals (a name that matters, not a one-off).
const OpTotal *busiest(const RankOpTotals &totals, OpKind kind)
{
    const OpTotal *best = nullptr;
    for (const OpTotal &t : totals.totals)
        if (t.kind == kind && (!best || t.stats.count > best->stats.count))
            best = &t;
    return best;
}

bool diffOrdered(const Session &s, const std::vector<OpDiffRow> &rows)
{
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const OpDiffRow &p = rows[i - 1], &c = rows[i];
        const TimeNs tp = std::llabs(p.timeDelta()), tc = std::llabs(c.timeDelta());
        if (tp != tc) {
            if (tp < tc)
                return false;
            continue;
        }
        const std::int64_t bp = std::llabs(p.bytesDelta()), bc = std::llabs(c.bytesDelta());
        if (bp != bc) {
            if (bp < bc)
                return false;
            continue;
        }
        if (s.str(p.name) > s.str(c.name))
            return false;
    }
    return true;
}

void checkTotals(const Session &s, RankId rank, const RankOpTotals &totals)
{
    QVERIFY(!totals.totals.empty());
    for (OpKind kind : {OpKind::CpuOp, OpKind::Kernel}) {
        const OpTotal *t = busiest(totals, kind);
        QVERIFY2(t, opKindName(kind));
        const OpStats want = recount(s, rank, kind == OpKind::CpuOp ? TrackKind::CpuThread : TrackKind::GpuStream, t->name);
        QCOMPARE(t->stats.count, want.count);
        QCOMPARE(t->stats.time, want.time);
        QCOMPARE(totals.find(kind, t->name), t);
    }
    // Every allocated byte is either charged to an op or reported as unattributed.
    QCOMPARE(totals.attributedBytes + totals.unattributedBytes, risesOf(s, rank));
    std::int64_t charged = 0;
    for (const OpTotal &t : totals.totals)
        charged += t.stats.bytes;
    QCOMPARE(charged, totals.attributedBytes);
}

} // namespace

class TestRankCompare : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void bytesGoToInnermostOp();
    void busiestThreadWins();
    void kindsAndOneSidedNames();
    void stepsMatchedByNumber();
    void medianRank_data();
    void medianRank();
    void demoIncident();
    void dlrmEightRanks();
};

void TestRankCompare::bytesGoToInnermostOp()
{
    RankTrace r(0);
    const TimeNs t0 = kT0;
    r.span(r.cpu(), "aten::linear", t0, 10 * kMs);
    r.span(r.cpu(), "aten::addmm", t0 + 2 * kMs, 4 * kMs);
    r.span(r.cpu(), "aten::empty", t0 + 3 * kMs, 1 * kMs);
    r.step(7, t0 - kMs, 20 * kMs);
    r.allocated(t0 - kMs / 2, 100 * kMiB);            // the starting total: not an allocation
    r.allocated(t0 + kMs, 110 * kMiB);                // +10 MiB inside linear only
    r.allocated(t0 + 3 * kMs + kMs / 2, 150 * kMiB);  // +40 MiB inside empty (innermost)
    r.allocated(t0 + 5 * kMs, 120 * kMiB);            // a free
    r.allocated(t0 + 5 * kMs + 1, 125 * kMiB);        // +5 MiB inside addmm
    r.allocated(t0 + 15 * kMs, 126 * kMiB);           // +1 MiB inside the step only: no op
    const SessionPtr s = freeze([&] { std::vector<SourceBuilder> v; v.push_back(r.take()); return v; }());
    const RankOpTotals tot = OpTotals::compute(*s, 0);
    const auto bytes = [&](const char *name) {
        const OpTotal *t = tot.find(OpKind::CpuOp, s->strings().find(name));
        return t ? t->stats.bytes : -1;
    };
    QCOMPARE(bytes("aten::linear"), 10 * kMiB);
    QCOMPARE(bytes("aten::empty"), 40 * kMiB);
    QCOMPARE(bytes("aten::addmm"), 5 * kMiB);
    QCOMPARE(tot.unattributedBytes, 1 * kMiB);
    QCOMPARE(tot.attributedBytes, 55 * kMiB);
    // The step is compared in the step table, not listed as an op.
    QVERIFY(!tot.find(OpKind::CpuOp, s->strings().find("ProfilerStep#7")));
    QCOMPARE(tot.find(OpKind::CpuOp, s->strings().find("aten::linear"))->stats.time, 10 * kMs);
    QCOMPARE(OpTotals::compute(*s, 5).totals.size(), std::size_t(0));
}

void TestRankCompare::busiestThreadWins()
{
    // The Python thread waits in backward() while the autograd thread allocates: the op that
    // started last is the one doing the work.
    RankTrace r(0);
    const TrackId autograd = r.thread(200);
    r.span(r.cpu(), "autograd::engine::evaluate_function", kT0, 100 * kMs);
    r.span(autograd, "aten::mm", kT0 + 50 * kMs, 10 * kMs);
    r.allocated(kT0, 0);
    r.allocated(kT0 + 55 * kMs, 8 * kMiB);
    r.allocated(kT0 + 80 * kMs, 9 * kMiB);
    const SessionPtr s = freeze([&] { std::vector<SourceBuilder> v; v.push_back(r.take()); return v; }());
    const RankOpTotals tot = OpTotals::compute(*s, 0);
    QCOMPARE(tot.find(OpKind::CpuOp, s->strings().find("aten::mm"))->stats.bytes, 8 * kMiB);
    QCOMPARE(tot.find(OpKind::CpuOp, s->strings().find("autograd::engine::evaluate_function"))->stats.bytes, 1 * kMiB);
}

void TestRankCompare::kindsAndOneSidedNames()
{
    RankTrace a(0), b(1);
    for (RankTrace *r : {&a, &b}) {
        r->span(r->cpu(), "aten::mm", kT0, 2 * kMs);
        r->span(r->cpu(), "cudaLaunchKernel", kT0 + kMs, 10'000, {}, SpanFlagRuntime, "cuda_runtime");
        r->span(r->cpu(), "PyTorch Profiler (0)", kT0 - kMs, 50 * kMs, {}, 0, "Trace");
    }
    a.span(a.cpu(), "aten::gelu", kT0 + 3 * kMs, 3 * kMs);                        // only on A
    b.span(b.cpu(), "aten::mm", kT0 + 10 * kMs, 7 * kMs);                         // B runs mm twice
    b.span(b.cpu(), "aten::dropout", kT0 + 20 * kMs, kMs);                        // only on B
    // GPU-stream spans of each kind, on the fixture's stream 7.
    const auto gpu = [](RankTrace &r, const char *name, TimeNs start, TimeNs dur, std::uint16_t flags, const char *cat) {
        r.span(r.builder().track(TrackKind::GpuStream, 0, 7, 0), name, start, dur, {}, flags, cat);
    };
    gpu(a, "sm80_gemm", kT0, 2 * kMs, SpanFlagGpu | SpanFlagKernel, "kernel");
    gpu(b, "sm80_gemm", kT0, 3 * kMs, SpanFlagGpu | SpanFlagKernel, "kernel");
    gpu(b, "Memcpy HtoD (Pageable -> Device)", kT0 + 5 * kMs, kMs, SpanFlagGpu | SpanFlagMemcpy, "gpu_memcpy");
    gpu(a, "ProfilerStep#1", kT0, 9 * kMs, SpanFlagGpu | SpanFlagAnnotation, "gpu_user_annotation");
    const SessionPtr s = freeze([&] { std::vector<SourceBuilder> v; v.push_back(a.take()); v.push_back(b.take()); return v; }());
    const RankOpTotals ta = OpTotals::compute(*s, 0), tb = OpTotals::compute(*s, 1);
    QVERIFY(!ta.find(OpKind::CpuOp, s->strings().find("PyTorch Profiler (0)")));
    QVERIFY(!ta.find(OpKind::Kernel, s->strings().find("ProfilerStep#1"))); // a GPU annotation is no kernel
    QVERIFY(ta.find(OpKind::CpuOp, s->strings().find("cudaLaunchKernel")));
    QCOMPARE(tb.find(OpKind::GpuMemory, s->strings().find("Memcpy HtoD (Pageable -> Device)"))->stats.count, std::int64_t(1));
    const std::vector<OpDiffRow> rows = RankDiff::ops(*s, ta, tb);
    QVERIFY(diffOrdered(*s, rows));
    std::map<std::string, const OpDiffRow *> byName;
    for (const OpDiffRow &r : rows)
        byName[std::string(s->str(r.name)) + "/" + opKindName(r.kind)] = &r;
    QCOMPARE(rows.front().name, s->strings().find("aten::mm")); // +7 ms, the largest change
    QCOMPARE(rows.front().countDelta(), std::int64_t(1));
    QVERIFY(byName.at("aten::gelu/op")->oneSided());
    QCOMPARE(byName.at("aten::gelu/op")->timeDelta(), -3 * kMs);
    QCOMPARE(byName.at("aten::dropout/op")->a.count, std::int64_t(0));
    QCOMPARE(byName.at("sm80_gemm/kernel")->timeDelta(), kMs);
    QCOMPARE(byName.at("Memcpy HtoD (Pageable -> Device)/memcpy/memset")->b.time, kMs);
    QVERIFY(!byName.at("cudaLaunchKernel/op")->oneSided());
    QCOMPARE(byName.at("cudaLaunchKernel/op")->timeDelta(), TimeNs(0));
    QCOMPARE(rows.size(), byName.size());
}

void TestRankCompare::stepsMatchedByNumber()
{
    RankTrace a(0), b(1);
    a.step(10, kT0, 100 * kMs);
    a.step(11, kT0 + 100 * kMs, 110 * kMs);
    b.step(11, kT0 + 1000 * kMs, 150 * kMs);
    b.step(12, kT0 + 1150 * kMs, 90 * kMs);
    const SessionPtr s = freeze([&] { std::vector<SourceBuilder> v; v.push_back(a.take()); v.push_back(b.take()); return v; }());
    const std::vector<StepDiffRow> rows = RankDiff::steps(*s, 0, 1);
    QCOMPARE(rows.size(), std::size_t(3));
    QCOMPARE(rows[0].number, std::int64_t(10));
    QCOMPARE(*rows[0].a, 100 * kMs);
    QVERIFY(!rows[0].b && !rows[0].delta());
    QCOMPARE(rows[1].number, std::int64_t(11));
    QCOMPARE(*rows[1].delta(), 40 * kMs);
    QCOMPARE(*rows[1].startB, kT0 + 1000 * kMs);
    QCOMPARE(rows[2].number, std::int64_t(12));
    QVERIFY(!rows[2].a);
    QCOMPARE(*rows[2].b, 90 * kMs);
    QVERIFY(RankDiff::steps(*s, 0, 9).size() == 2); // a missing rank is an empty side
}

void TestRankCompare::medianRank_data()
{
    // Rows: per rank "peakAllocGiB,stepMs,steps,oom" (-1 = missing), and the rank expected.
    QTest::addColumn<QStringList>("ranks");
    QTest::addColumn<int>("expected");
    QTest::newRow("empty") << QStringList{} << int(kNoRank);
    QTest::newRow("one rank") << QStringList{"10,100,3,0"} << 0;
    QTest::newRow("all equal: lowest rank") << QStringList{"10,100,3,0", "10,100,3,0", "10,100,3,0"} << 0;
    QTest::newRow("middle of a spread") << QStringList{"10,100,3,0", "12,110,3,0", "14,120,3,0"} << 1;
    QTest::newRow("outlier pulls nothing") << QStringList{"70,100,3,1", "10,101,3,0", "10,100,3,0", "11,99,3,0"} << 2;
    QTest::newRow("structural outlier loses") << QStringList{"10,100,4,0", "10,100,3,0", "10,100,3,0"} << 1;
    QTest::newRow("missing metrics cannot compete") << QStringList{"-1,-1,-1,0", "10,100,3,0", "30,300,3,0", "20,200,3,0"} << 3;
    QTest::newRow("even count: nearest the mean of the middles") << QStringList{"10,100,3,0", "13,130,3,0", "16,160,3,0", "30,300,3,0"} << 1;
    QTest::newRow("symmetric tie: lowest rank") << QStringList{"10,100,3,0", "20,200,3,0"} << 0;
}

void TestRankCompare::medianRank()
{
    QFETCH(QStringList, ranks);
    QFETCH(int, expected);
    std::vector<RankMetrics> metrics;
    for (int i = 0; i < ranks.size(); ++i) {
        const QStringList v = ranks[i].split(QLatin1Char(','));
        RankMetrics m;
        m.rank = i;
        if (v[0].toDouble() >= 0)
            m.peakAllocatedBytes = static_cast<std::int64_t>(v[0].toDouble() * double(kGiB));
        if (v[1].toDouble() >= 0)
            m.stepTimeMedianNs = static_cast<TimeNs>(v[1].toDouble() * double(kMs));
        if (v[2].toInt() >= 0)
            m.steps = v[2].toInt();
        m.oom = v[3].toInt() == 1;
        metrics.push_back(m);
    }
    QCOMPARE(ReferenceRank::pick(metrics), RankId(expected));
    // The scores say why: the winner has the smallest distance among the ranks that compete.
    const auto scores = ReferenceRank::scores(metrics);
    QCOMPARE(scores.size(), metrics.size());
    for (const auto &sc : scores)
        if (sc.competes && expected != kNoRank)
            QVERIFY(sc.distance >= scores[std::size_t(expected)].distance - 1e-9);
}

void TestRankCompare::demoIncident()
{
    const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    if (!QDir(demo).exists())
        QSKIP("resources/demo is not present");
    const SessionPtr s = loadDir(demo);
    QVERIFY(s);
    QCOMPARE(s->ranks().size(), std::size_t(4));
    std::vector<RankOpTotals> totals;
    QElapsedTimer timer;
    timer.start();
    for (const Rank &r : s->ranks())
        totals.push_back(OpTotals::compute(*s, r.id));
    qInfo("demo: op totals of 4 ranks in %lld ms", static_cast<long long>(timer.elapsed()));
    for (std::size_t i = 0; i < totals.size(); ++i) {
        checkTotals(*s, s->ranks()[i].id, totals[i]);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(totals[i].attributedBytes > 0);
    }
    // Rank 2 ran a fourth micro-batch in step 414 and ran out of memory: against rank 0 it has
    // more of the forward ops, and allocated more.
    const std::vector<OpDiffRow> rows = RankDiff::ops(*s, totals[0], totals[2]);
    QVERIFY(diffOrdered(*s, rows));
    QVERIFY(!rows.empty());
    std::int64_t bytesA = 0, bytesB = 0;
    for (const OpDiffRow &r : rows) {
        bytesA += r.a.bytes;
        bytesB += r.b.bytes;
    }
    QCOMPARE(bytesA, totals[0].attributedBytes);
    QCOMPARE(bytesB, totals[2].attributedBytes);
    const StringId gelu = s->strings().find("aten::gelu");
    QVERIFY(gelu != StringPool::npos);
    const auto geluRow = std::find_if(rows.begin(), rows.end(), [&](const OpDiffRow &r) { return r.name == gelu && r.kind == OpKind::CpuOp; });
    QVERIFY(geluRow != rows.end());
    QVERIFY2(geluRow->b.count > geluRow->a.count, "rank 2 ran one more micro-batch");
    qInfo("demo diff 0 vs 2: %zu rows, top: %s %+lld ns", rows.size(), std::string(s->str(rows.front().name)).c_str(),
          static_cast<long long>(rows.front().timeDelta()));

    const std::vector<StepDiffRow> steps = RankDiff::steps(*s, 0, 2);
    QCOMPARE(steps.size(), std::size_t(3));
    for (std::size_t i = 0; i < steps.size(); ++i) {
        QCOMPARE(steps[i].number, std::int64_t(412 + int(i)));
        QCOMPARE(*steps[i].a, s->rank(0)->steps[i].range.duration());
        QCOMPARE(*steps[i].b, s->rank(2)->steps[i].range.duration());
    }
    const AnalysisResult r = Analyzer::run(*s);
    const RankId ref = ReferenceRank::pick(r.metrics);
    QVERIFY2(ref != 2, "the OOM rank is no reference");
    QVERIFY(ref >= 0 && ref <= 3);
}

void TestRankCompare::dlrmEightRanks()
{
    const QString dir = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/profiler/param_dlrm_8rank");
    if (!QDir(dir).exists())
        QSKIP("shared samples are not present");
    const SessionPtr s = loadDir(dir);
    QVERIFY(s);
    QCOMPARE(s->ranks().size(), std::size_t(8));
    QElapsedTimer timer;
    timer.start();
    std::vector<RankOpTotals> totals;
    std::size_t spans = 0;
    for (const Rank &r : s->ranks()) {
        totals.push_back(OpTotals::compute(*s, r.id));
        spans += totals.back().spansVisited;
    }
    qInfo("dlrm: op totals of 8 ranks (%zu spans) in %lld ms", spans, static_cast<long long>(timer.elapsed()));
    for (std::size_t i = 0; i < totals.size(); ++i) {
        checkTotals(*s, s->ranks()[i].id, totals[i]);
        if (QTest::currentTestFailed())
            return;
    }
    const std::vector<OpDiffRow> rows = RankDiff::ops(*s, totals[0], totals[7]);
    QVERIFY(diffOrdered(*s, rows));
    const std::vector<StepDiffRow> steps = RankDiff::steps(*s, 0, 7);
    QCOMPARE(steps.size(), std::size_t(1));
    QVERIFY(steps[0].a && steps[0].b);
    const AnalysisResult r = Analyzer::run(*s);
    const RankId ref = ReferenceRank::pick(r.metrics);
    QVERIFY(ref >= 0 && ref < 8);
    QCOMPARE(ReferenceRank::pick(r.metrics), ref); // deterministic
}

QTEST_GUILESS_MAIN(TestRankCompare)
#include "test_rankcompare.moc"
