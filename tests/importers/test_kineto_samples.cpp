// Every real trace under samples/profiler imports without errors, and its counts, ranks, world
// size, steps, clock and time range equal an independent reading: a full nlohmann DOM parse (with
// long double numbers, so absolute µs timestamps keep their ns digits) counted per DESIGN.md §3.
// Then a few facts per sample that only a person reading the file would know.

#include "kinetotesthelpers.h"
#include "sessionbuilder.h"

#include <QDirIterator>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>

using namespace rs;
using namespace rs::test;

namespace {

using Dom = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, long double>;

struct Expected {
    std::int64_t spans = 0, instants = 0, memoryEvents = 0, counterSamples = 0, steps = 0, collectives = 0;
    std::int64_t flowPairs = 0, flowEvents = 0; // ids with both an `s` and an `f`; all `s`/`f` events
    std::vector<RankId> ranks;
    std::int32_t worldSize = 0;
    bool hasClock = false;
    TimeRange range;
};

std::string readAll(const QString &path)
{
    gzFile f = gzopen(path.toLocal8Bit().constData(), "rb"); // zlib reads plain files unchanged
    std::string out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, static_cast<std::size_t>(n));
    gzclose(f);
    return out;
}

TimeNs ns(const Dom &v)
{
    return static_cast<TimeNs>(std::llroundl(v.get<long double>() * 1000.0L));
}

std::string str(const Dom &obj, const char *key)
{
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::int64_t> integer(const Dom &obj, const char *key)
{
    const auto it = obj.find(key);
    if (it == obj.end())
        return std::nullopt;
    if (it->is_number())
        return it->get<std::int64_t>();
    if (it->is_string())
        return std::stoll(it->get<std::string>());
    return std::nullopt;
}

Expected readIndependently(const std::string &text)
{
    const Dom doc = Dom::parse(text);
    const Dom &events = doc.is_array() ? doc : doc.at("traceEvents");
    Expected e;
    const auto isGpu = [](const std::string &cat) {
        return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" || cat == "gpu_memset"
            || cat == "Memset" || cat == "gpu_user_annotation" || cat == "cuda_sync" || cat == "cuda_event";
    };
    std::optional<TimeNs> first;
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    const auto cover = [&](TimeNs b, TimeNs end) {
        lo = std::min(lo, b);
        hi = std::max(hi, end);
    };
    std::optional<std::int64_t> commsRank, commsSize;
    std::map<std::pair<std::string, std::string>, std::pair<int, int>> flowEnds; // (cat, id) → (#s, #f)
    for (const Dom &ev : events) {
        const std::string ph = str(ev, "ph"), cat = str(ev, "cat"), name = str(ev, "name");
        if ((ph == "s" || ph == "f") && ev.contains("id")) {
            ++e.flowEvents;
            auto &n = flowEnds[{cat, ev.at("id").dump()}];
            ++(ph == "s" ? n.first : n.second);
        }
        if (ph == "M" || ph == "s" || ph == "f" || ph == "t")
            continue;
        const TimeNs t = ns(ev.at("ts"));
        if (!first)
            first = t;
        const Dom args = ev.contains("args") ? ev.at("args") : Dom::object();
        if (ph == "X") {
            const TimeNs d = ev.contains("dur") ? ns(ev.at("dur")) : 0;
            ++e.spans;
            cover(t, std::max(t + d, t + 1));
            if (name.rfind("ProfilerStep#", 0) == 0 && !isGpu(cat))
                ++e.steps;
            std::string lower = name.substr(0, 4);
            for (char &c : lower)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if ((cat == "kernel" || cat == "Kernel") && (lower == "nccl" || lower == "rccl" || args.contains("Collective name")))
                ++e.collectives;
            if (name == "record_param_comms" && !commsRank && str(args, "Process Group Description") == "default_pg") {
                commsRank = integer(args, "Rank");
                commsSize = integer(args, "Group size");
            }
        } else if (ph == "i" || ph == "I") {
            if (name == "[memory]") {
                ++e.memoryEvents;
                if (args.contains("Total Allocated") || args.contains("Total Reserved") || args.contains("Bytes"))
                    cover(t, t + 1);
            } else {
                ++e.instants;
                cover(t, t + 1);
            }
        } else if (ph == "C") {
            for (const auto &[k, v] : args.items())
                if (v.is_number()) {
                    ++e.counterSamples;
                    cover(t, t + 1);
                }
        }
    }
    for (const auto &[key, n] : flowEnds)
        e.flowPairs += std::min(n.first, n.second);
    const bool absolute = first && *first > 1'000'000'000'000'000'000;
    const bool hasBase = doc.is_object() && doc.contains("baseTimeNanoseconds");
    e.hasClock = hasBase || absolute;
    const TimeNs shift = hasBase && !absolute ? doc.at("baseTimeNanoseconds").get<std::int64_t>() : 0;
    if (lo <= hi)
        e.range = {lo + shift, hi + shift};
    if (doc.is_object() && doc.contains("distributedInfo")) {
        const Dom &di = doc.at("distributedInfo");
        e.ranks = {static_cast<RankId>(integer(di, "rank").value())};
        e.worldSize = static_cast<std::int32_t>(integer(di, "world_size").value_or(0));
    } else if (commsRank) {
        e.ranks = {static_cast<RankId>(*commsRank)};
        e.worldSize = static_cast<std::int32_t>(commsSize.value_or(0));
    }
    return e;
}

QString sampleDir()
{
    return QStringLiteral(RANKSCOPE_SAMPLES_DIR "/profiler");
}

SourceBuilder importSample(const QString &relative)
{
    ImportContext ctx;
    return ImporterRegistry::instance().importFile(QString(sampleDir() + '/' + relative).toStdString(), ctx);
}

} // namespace

class TestKinetoSamples : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void matchesIndependentReading_data();
    void matchesIndependentReading();
    void dlrmTracksCollectivesDevices();
    void dlrmFlowsJoinLaunchAndKernel();
    void resnetOldVocabularyAndRunningMemory();
    void bertMemoryTracksAndBaseAfterEvents();
    void rocmDeviceTypeSix();
    void cpuOnlyGloo();
    void v100StepsAndMetadata();
};

void TestKinetoSamples::initTestCase()
{
    if (!QFileInfo::exists(sampleDir()))
        QSKIP("samples/profiler is not present");
}

void TestKinetoSamples::matchesIndependentReading_data()
{
    QTest::addColumn<QString>("path");
    QStringList files;
    for (QDirIterator it(sampleDir(), QDir::Files, QDirIterator::Subdirectories); it.hasNext();)
        files << it.next();
    files.sort();
    QCOMPARE(files.size(), 15);
    for (const QString &f : files)
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
}

void TestKinetoSamples::matchesIndependentReading()
{
    QFETCH(QString, path);
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    const Source &src = b.source();
    const Expected e = readIndependently(readAll(path));
    QVERIFY2(countDiagnostics(b, Diagnostic::Severity::Error) == 0, diagnosticsText(b).constData());
    QCOMPARE(QString::fromStdString(src.format), QStringLiteral("pytorch-trace"));
    QCOMPARE(src.compression, path.endsWith(".gz") ? Compression::Gzip : Compression::None);
    QCOMPARE(src.counts.spans, e.spans);
    QCOMPARE(src.counts.instants, e.instants);
    QCOMPARE(src.counts.memoryEvents, e.memoryEvents);
    QCOMPARE(src.counts.counterSamples, e.counterSamples);
    QCOMPARE(src.counts.steps, e.steps);
    QCOMPARE(src.counts.collectives, e.collectives);
    // Every `s`/`f` pair lands on two spans; the ends without a partner are counted, not lost.
    QCOMPARE(src.counts.flows, e.flowPairs);
    QCOMPARE(src.counts.flowEndsUnpaired, e.flowEvents - 2 * e.flowPairs);
    QCOMPARE(std::int64_t(b.flows().size()), e.flowPairs);
    QCOMPARE(src.ranks, e.ranks);
    QCOMPARE(src.worldSize, e.worldSize);
    QCOMPARE(src.hasClock, e.hasClock);
    QCOMPARE(src.timeRange, e.range);
    QCOMPARE(std::int64_t(b.steps().size()), e.steps);
    QCOMPARE(std::int64_t(b.collectives().size()), e.collectives);
    qInfo("%s: spans=%lld instants=%lld memory=%lld counters=%lld steps=%lld collectives=%lld ranks=%s world=%d",
          qPrintable(QFileInfo(path).fileName()), (long long)src.counts.spans, (long long)src.counts.instants,
          (long long)src.counts.memoryEvents, (long long)src.counts.counterSamples, (long long)src.counts.steps,
          (long long)src.counts.collectives, src.ranks.empty() ? "-" : qPrintable(QString::number(src.ranks[0])), src.worldSize);
}

void TestKinetoSamples::dlrmTracksCollectivesDevices()
{
    const SourceBuilder b = importSample("param_dlrm_8rank/worker3_step_12.1694128201557.pt.trace.json");
    const Track *stream = findTrack(b, TrackKind::GpuStream, "stream 84"); // NCCL stream
    QVERIFY(stream);
    QCOMPARE(stream->device, 3); // GPU pid = device index, not the rank's first GPU
    QCOMPARE(stream->pid, std::int64_t(3));
    QCOMPARE(stream->sortIndex, 84);
    const Track *main = findTrack(b, TrackKind::CpuThread, "thread 59814 (python3)");
    QVERIFY(main);
    QCOMPARE(main->sortIndex, 59814);
    QCOMPARE(main->device, -1);
    std::map<std::string, int> ops;
    for (const Collective &c : b.collectives()) {
        ++ops[std::string(b.str(c.op))];
        QCOMPARE(c.track, TrackId(stream - b.tracks().data()));
        QVERIFY(c.end > c.start);
    }
    QCOMPARE(ops, (std::map<std::string, int>{{"AllReduce", 3}, {"SendRecv", 5}}));
    for (const Span &s : stream->spans)
        QVERIFY(s.flags & SpanFlagCollective && s.flags & SpanFlagKernel && s.flags & SpanFlagGpu);
    QCOMPARE(b.source().devices.size(), std::size_t(8));
    QCOMPARE(QString::fromStdString(b.source().devices[3].name), QStringLiteral("Tesla V100-SXM2-32GB"));
    QCOMPARE(b.source().devices[3].totalMemory, std::int64_t(34079899648));
    QCOMPARE(b.source().devices[3].numSms, 80);
    QCOMPARE(b.steps().at(0).number, std::int64_t(10));
}

void TestKinetoSamples::dlrmFlowsJoinLaunchAndKernel()
{
    // Kineto's ac2g id is the CUPTI correlation id that the launch and its GPU op both carry in
    // their args: an arrow bound to the wrong span shows up as two different correlations.
    const SourceBuilder b = importSample("param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json");
    QCOMPARE(b.flows().size(), std::size_t(261));
    QCOMPARE(b.source().counts.flowEndsUnpaired, std::int64_t(264)); // `f` ends on cudaEventQuery with no `s`
    const auto correlation = [&b](const FlowEnd &e) {
        const Span &s = b.tracks()[e.track].spans[e.span];
        return Dom::parse(b.args(s.args)).value("correlation", std::int64_t(-1));
    };
    std::set<std::string> launches;
    for (const Flow &f : b.flows()) {
        QCOMPARE(f.kind, FlowKind::Launch);
        const Track &cpu = b.tracks()[f.from.track];
        const Track &gpu = b.tracks()[f.to.track];
        QCOMPARE(cpu.kind, TrackKind::CpuThread);
        QCOMPARE(gpu.kind, TrackKind::GpuStream);
        const Span &launch = cpu.spans[f.from.span];
        const Span &op = gpu.spans[f.to.span];
        QVERIFY(launch.flags & SpanFlagRuntime);
        QVERIFY(op.flags & SpanFlagGpu);
        QVERIFY(op.start >= launch.start); // a kernel runs after it was queued
        QCOMPARE(correlation(f.from), correlation(f.to));
        QVERIFY(correlation(f.from) > 0);
        launches.insert(std::string(b.str(launch.name)));
    }
    QVERIFY(launches.count("cudaLaunchKernel"));
    QVERIFY(launches.count("cudaMemcpyAsync"));
}

void TestKinetoSamples::resnetOldVocabularyAndRunningMemory()
{
    const SourceBuilder b = importSample("kineto_tb_resnet50_mem/worker0.1623143089861.pt.trace.json.gz");
    const Track *stream = findTrack(b, TrackKind::GpuStream, "stream 7"); // tid was the string "stream 7"
    QVERIFY(stream);
    QCOMPARE(stream->spans.size(), std::size_t(8772 + 12 + 312));
    QVERIFY(findTrack(b, TrackKind::CpuThread, "thread 25738 (python)"));
    const Track *gpuMem = findTrack(b, TrackKind::MemoryAllocated, "GPU 0 memory allocated");
    const Track *cpuMem = findTrack(b, TrackKind::MemoryAllocated, "CPU memory allocated");
    QVERIFY(gpuMem && cpuMem);
    QCOMPARE(gpuMem->counter.size(), std::size_t(8220));
    QCOMPARE(cpuMem->counter.size(), std::size_t(4618));
    QCOMPARE(cpuMem->device, -1);
    QVERIFY(!findTrack(b, TrackKind::MemoryReserved, "GPU 0 memory reserved")); // never recorded then
    QVERIFY(findDiagnostic(b, "running sum"));
    std::vector<std::int64_t> steps;
    for (const Step &s : b.steps())
        steps.push_back(s.number);
    QCOMPARE(steps, (std::vector<std::int64_t>{5, 6, 7, 8, 9, 10}));
    const Span *op = findSpan(b, "aten::conv2d");
    QVERIFY(op);
    QCOMPARE(qs(b.str(op->category)), QStringLiteral("Operator"));
    QVERIFY(b.source().ranks.empty()); // no distributedInfo: the file name decides later
}

void TestKinetoSamples::bertMemoryTracksAndBaseAfterEvents()
{
    const SourceBuilder b = importSample("tracelens_h100_bert_mem/gaunernst_bert-small-uncased__1016001.json.gz");
    const Track *alloc = findTrack(b, TrackKind::MemoryAllocated, "GPU 0 memory allocated");
    const Track *reserved = findTrack(b, TrackKind::MemoryReserved, "GPU 0 memory reserved");
    QVERIFY(alloc && reserved);
    QCOMPARE(alloc->counter.size(), std::size_t(218));
    QCOMPARE(reserved->counter.size(), std::size_t(218));
    QCOMPARE(alloc->counter.values.back(), 91360768.0); // the last event's Total Allocated
    QCOMPARE(reserved->counter.values.back(), 121634816.0);
    // baseTimeNanoseconds comes after traceEvents in this file; times are wall clock (2025).
    QCOMPARE(alloc->counter.times.back(), TimeNs(1751410836000000000) + TimeNs(1419247337341006));
    QVERIFY(b.source().metadataValue("baseTimeNanoseconds") == "1751410836000000000");
    int gpuSteps = 0;
    for (const Track &t : b.tracks())
        for (const Span &s : t.spans)
            gpuSteps += (s.flags & SpanFlagStep) && (s.flags & SpanFlagGpu);
    QCOMPARE(gpuSteps, 1); // the gpu_user_annotation copy is flagged but not a Step
    QCOMPARE(b.steps().size(), std::size_t(1));
}

void TestKinetoSamples::rocmDeviceTypeSix()
{
    const SourceBuilder b = importSample("tracelens_rocm_sglang_mem/bs_32_rank0.json.gz");
    const Track *alloc = findTrack(b, TrackKind::MemoryAllocated, "GPU 0 memory allocated");
    QVERIFY(alloc);
    QCOMPARE(alloc->counter.size(), std::size_t(1014));
    QCOMPARE(alloc->device, 0);
    const Track *stream = findTrack(b, TrackKind::GpuStream, "stream 1");
    QVERIFY(stream);
    QCOMPARE(stream->device, 9);
    const Track *on = nullptr;
    const Span *launch = findSpan(b, "hipLaunchKernel", &on);
    QVERIFY(launch);
    QVERIFY(launch->flags & SpanFlagRuntime);
    QCOMPARE(on->kind, TrackKind::CpuThread);
    QCOMPARE(b.source().devices.at(0).name, std::string("AMD Instinct MI300X"));
}

void TestKinetoSamples::cpuOnlyGloo()
{
    const SourceBuilder b = importSample("hta_cpu_only_gloo/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
    for (const Track &t : b.tracks())
        QVERIFY(t.kind != TrackKind::GpuStream);
    QCOMPARE(b.source().ranks, (std::vector<RankId>{34}));
    QCOMPARE(b.source().worldSize, 300);
    QVERIFY(b.source().devices.empty());
    QVERIFY(findTrack(b, TrackKind::CpuThread, "PyTorch Profiler")); // pid "Spans", tid "PyTorch Profiler"
    const Track *markers = findTrack(b, TrackKind::Markers, "markers");
    QVERIFY(markers);
    QCOMPARE(markers->instants.size(), std::size_t(2));
}

void TestKinetoSamples::v100StepsAndMetadata()
{
    const SourceBuilder b = importSample("hta_v100_rank0/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    std::vector<std::int64_t> steps;
    for (const Step &s : b.steps())
        steps.push_back(s.number);
    QCOMPARE(steps, (std::vector<std::int64_t>{101, 102, 103, 104, 105}));
    QCOMPARE(b.source().metadataValue("host_name"), std::string("\"twshared39868.02.pnb3.facebook.com\""));
    QVERIFY(b.source().metadataValue("INFO").starts_with("[\"INFO:2024-04-03"));
    const Span *comms = findSpan(b, "record_param_comms");
    QVERIFY(comms && (comms->flags & SpanFlagCollective));
    QVERIFY(b.collectives().empty()); // world size 1: no NCCL kernels ran
    QVERIFY(findTrack(b, TrackKind::CpuThread, "thread 1262 (pt_autograd_0)")); // the later thread_name wins

    // The pretty-printed args are stored compact and parse back with every key.
    SessionBuilder sb;
    sb.addSource(SourceBuilder(importSample("hta_v100_rank0/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")));
    const auto session = sb.freeze();
    int checked = 0;
    for (TrackId id = 0; id < session->tracks().size(); ++id) {
        const Track &t = session->tracks()[id];
        if (t.kind != TrackKind::GpuStream)
            continue;
        for (const Span &s : t.spans) {
            const std::string_view text = session->args(id, s.args);
            QVERIFY(!text.empty());
            QVERIFY2(text.find(": ") == std::string_view::npos && text.find('\n') == std::string_view::npos, text.data());
            const auto args = nlohmann::json::parse(text, nullptr, false);
            QVERIFY(!args.is_discarded());
            if (s.flags & SpanFlagKernel)
                QVERIFY(args.contains("correlation") && args.contains("grid"));
            ++checked;
        }
    }
    QCOMPARE(checked, 4350 + 1600 + 145 + 15);
}

QTEST_GUILESS_MAIN(TestKinetoSamples)
#include "test_kineto_samples.moc"
