// non-pytorch-memory from nvidia-smi's process lists and from samples outside the trace window:
// the finding names the other process on the rank's GPU with its memory; nvidia-smi samples a few
// seconds off the trace still count (and say how far off they were); and the near misses that must
// stay silent: the rank's own process alone, a small helper, listings of two hosts that only share
// an index, samples too far from the trace, and a clock-less file against a wall-clock trace.

#include "rulecheck.h"

using namespace rs;
using namespace rs::test;

namespace {

// Rank 0 on an 80 GiB GPU, its Python process pid 100 (RankTrace's CPU thread), steps from kT0.
RankTrace gpuRank()
{
    RankTrace t(0);
    t.device(80 * kGiB);
    for (int s = 0; s < 3; ++s)
        t.step(s, kT0 + s * kSec, kSec - kMs);
    return t;
}

GpuProcess process(std::int64_t pid, std::string name, std::int64_t bytes, std::int64_t line, RankId rank = 0, int index = 3)
{
    GpuProcess p;
    p.rank = rank;
    p.index = index;
    p.pid = pid;
    p.name = std::move(name);
    p.usedMemory = bytes;
    p.line = line;
    return p;
}

// One compute-apps listing (one file) with `procs`.
SourceBuilder listing(std::string path, std::vector<GpuProcess> procs)
{
    SourceBuilder b(std::move(path));
    b.source().format = "nvidia-smi";
    for (auto &p : procs)
        b.gpus().processes.push_back(std::move(p));
    return b;
}

SessionPtr shared(std::vector<std::vector<GpuProcess>> listings)
{
    RankTrace t = gpuRank();
    t.reserved(kT0, 30 * kGiB);
    std::vector<SourceBuilder> src;
    src.push_back(t.take());
    int n = 0;
    for (auto &l : listings)
        src.push_back(listing("apps" + std::to_string(n++) + ".csv", std::move(l)));
    return freeze(std::move(src));
}

// Reserved 60 GiB from kT0 to kT0 + 3 s; nvidia-smi says `used` at `at`, in a file with or without clock.
SessionPtr sampled(TimeNs at, std::int64_t used, bool smiClock = true)
{
    RankTrace t = gpuRank();
    t.reserved(kT0, 60 * kGiB);
    t.reserved(kT0 + 3 * kSec, 60 * kGiB);
    SourceBuilder smi("gpu.csv");
    smi.source().format = "nvidia-smi";
    smi.source().hasClock = smiClock;
    smi.source().ranks = {0};
    const TrackId id = smi.track(TrackKind::GpuMemoryUsed, 0, 0, 0, 0);
    smi.addCounterSample(id, at, double(used));
    smi.finish();
    std::vector<SourceBuilder> src;
    src.push_back(t.take());
    src.push_back(std::move(smi));
    return freeze(std::move(src));
}

const std::map<QString, Scenario> &scenarios()
{
    static const std::map<QString, Scenario> table = {
        {"vllm beside the trainer", [] {
             return shared({{process(100, "python", 30 * kGiB, 2), process(61877, "/usr/local/bin/vllm-serve", 44 * kGiB, 3)}});
         }},
        {"two others, no pid known", [] {
             return shared({{process(7001, "python", 30 * kGiB, 2), process(7002, "/opt/tritonserver/bin/tritonserver", 12 * kGiB, 3),
                             process(7003, "ollama", 9 * kGiB, 4)}});
         }},
        {"own process only", [] { return shared({{process(100, "python", 70 * kGiB, 2)}}); }},
        {"one unknown process", [] { return shared({{process(5555, "python", 70 * kGiB, 2)}}); }},
        {"small helper", [] { return shared({{process(100, "python", 30 * kGiB, 2), process(4242, "Xorg", 5 * kGiB, 3)}}); }},
        {"two hosts, one index", [] {
             return shared({{process(200, "python", 60 * kGiB, 2)}, {process(300, "python", 60 * kGiB, 2)}});
         }},
        {"sample 12 s after the trace", [] { return sampled(kT0 + 15 * kSec, 78 * kGiB); }},
        {"sample 20 s before the trace", [] { return sampled(kT0 - 20 * kSec, 78 * kGiB); }},
        {"sample 10 min after the trace", [] { return sampled(kT0 + 603 * kSec, 78 * kGiB); }},
        {"near sample, small gap", [] { return sampled(kT0 + 15 * kSec, 66 * kGiB); }},
        {"clock-less file", [] { return sampled(2 * kSec, 78 * kGiB, false); }},
    };
    return table;
}

} // namespace

class TestNonPytorchMemory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rules_data();
    void rules();
    void evidence_data();
    void evidence();
};

void TestNonPytorchMemory::rules_data()
{
    addRuleColumns();
    const Severity L = Severity::Low;
    expectFinding("names the other process", "vllm beside the trainer", "non-pytorch-memory", L, {0}, -1, "--gpu-memory-utilization",
                  "Rank 0's GPU 3 is shared with /usr/local/bin/vllm-serve, pid 61877, 44.00 GiB");
    // No pid of the rank listed: the largest is taken as its own, the rest are the others.
    expectFinding("no pid known: the largest is the rank", "two others, no pid known", "non-pytorch-memory", L, {0}, -1,
                  "CUDA_VISIBLE_DEVICES", "shared with /opt/tritonserver/bin/tritonserver, pid 7002, 12.00 GiB, and 1 more (21.00 GiB in all)");
    expectNothing("own process only", "own process only", "non-pytorch-memory");
    expectNothing("one process of unknown pid", "one unknown process", "non-pytorch-memory");
    expectNothing("a 5 GiB helper on an 80 GiB GPU", "small helper", "non-pytorch-memory");
    expectNothing("two hosts' listings of one index", "two hosts, one index", "non-pytorch-memory");
    expectFinding("sample after the trace", "sample 12 s after the trace", "non-pytorch-memory", L, {0}, kT0 + 15 * kSec,
                  "set_per_process_memory_fraction", "18.00 GiB that PyTorch did not allocate");
    expectFinding("sample before the trace", "sample 20 s before the trace", "non-pytorch-memory", L, {0}, kT0 - 20 * kSec,
                  "NCCL_BUFFSIZE", "18.00 GiB that PyTorch did not allocate");
    expectNothing("sample 10 min away", "sample 10 min after the trace", "non-pytorch-memory");
    expectNothing("near sample, 6 GiB over", "near sample, small gap", "non-pytorch-memory");
    expectNothing("clock-less nvidia-smi against a trace", "clock-less file", "non-pytorch-memory");
}

void TestNonPytorchMemory::rules()
{
    checkRule(scenarios());
}

void TestNonPytorchMemory::evidence_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("needle");
    QTest::newRow("process line") << "vllm beside the trainer" << "apps0.csv:3: pid 61877 /usr/local/bin/vllm-serve uses 44.00 GiB of GPU 3";
    QTest::newRow("assumed own process") << "two others, no pid known" << "pid 7001 python uses 30.00 GiB of GPU 3 (no listed pid";
    QTest::newRow("how far the sample was") << "sample 12 s after the trace" << "12.00 s after its last reserved sample";
    QTest::newRow("before the trace") << "sample 20 s before the trace" << "20.00 s before its first reserved sample";
}

void TestNonPytorchMemory::evidence()
{
    QFETCH(QString, scenario);
    QFETCH(QString, needle);
    const SessionPtr s = scenarios().at(scenario)();
    const AnalysisResult r = Analyzer::run(*s);
    const auto found = findingsOf(r, "non-pytorch-memory");
    QCOMPARE(found.size(), std::size_t(1));
    QString all;
    for (const Evidence &e : found.front()->evidence)
        all += qs(e.text) + QLatin1Char('\n');
    QVERIFY2(all.contains(needle), qPrintable(all));
}

QTEST_GUILESS_MAIN(TestNonPytorchMemory)
#include "test_nonpytorchmemory.moc"
