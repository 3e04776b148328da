// How Kineto records become model data: memory events and OOM instants, counters, collectives
// with number-or-string args, steps, the rank fallback, metadata, track names, and the import's
// progress reports and cancellation.

#include "kinetotesthelpers.h"

#include <QElapsedTimer>
#include <QTest>

#include <set>

#include <atomic>

using namespace rs;
using namespace rs::test;

namespace {

// A plain trace of `n` CPU spans, large enough to take many chunks.
std::string manySpans(int n)
{
    std::string s = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    for (int i = 0; i < n; ++i)
        s += R"({"ph": "X", "cat": "cpu_op", "name": "aten::op)" + std::to_string(i % 97) + R"(", "pid": 1, "tid": 2, "ts": )"
             + std::to_string(1000 + i) + R"(.5, "dur": 0.25, "args": {"External id": )" + std::to_string(i) + "}},\n";
    return s + "{\"ph\": \"i\", \"s\": \"g\", \"name\": \"end\", \"ts\": 1}]}";
}

} // namespace

class TestKinetoMapping : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void memoryEventsAndOom();
    void counters();
    void collectives();
    void steps();
    void flowsBindToTheirSpans();
    void rankFromRecordParamComms();
    void distributedInfoWins();
    void metadataKept();
    void trackNamesFromMetadataEvents();
    void progressReported();
    void cancelStopsEarly();
};

void TestKinetoMapping::memoryEventsAndOom()
{
    const SourceBuilder b = importText(R"({"schemaVersion": 1, "traceEvents": [
      {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 9, "tid": 9, "ts": 10,
       "args": {"Total Reserved": 4096, "Total Allocated": 512, "Bytes": 512, "Addr": 1, "Device Type": 1, "Device Id": 2}},
      {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 9, "tid": 9, "ts": 20,
       "args": {"Total Reserved": 4096, "Total Allocated": 0, "Bytes": -512, "Addr": 1, "Device Type": 1, "Device Id": 2}},
      {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 9, "tid": 9, "ts": 15,
       "args": {"Total Reserved": 64, "Total Allocated": 16, "Bytes": 16, "Addr": 2, "Device Type": 0, "Device Id": -1}},
      {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[OutOfMemory]", "pid": 9, "tid": 9, "ts": 30,
       "args": {"Total Reserved": 4096, "Total Allocated": 4000, "Bytes": 1048576, "Device Type": 1, "Device Id": 2}}
    ]})");
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    QCOMPARE(b.source().counts.memoryEvents, std::int64_t(3));
    QCOMPARE(b.source().counts.instants, std::int64_t(1));
    const Track *alloc = findTrack(b, TrackKind::MemoryAllocated, "GPU 2 memory allocated");
    const Track *reserved = findTrack(b, TrackKind::MemoryReserved, "GPU 2 memory reserved");
    const Track *cpu = findTrack(b, TrackKind::MemoryAllocated, "CPU memory allocated");
    QVERIFY(alloc && reserved && cpu);
    QCOMPARE(alloc->device, 2);
    QCOMPARE(alloc->counter.times, (std::vector<TimeNs>{10000, 20000}));
    QCOMPARE(alloc->counter.values, (std::vector<double>{512.0, 0.0}));
    QCOMPARE(reserved->counter.values, (std::vector<double>{4096.0, 4096.0}));
    QCOMPARE(cpu->device, -1);
    QCOMPARE(cpu->counter.values, (std::vector<double>{16.0}));
    QVERIFY(findTrack(b, TrackKind::MemoryReserved, "CPU memory reserved"));
    const Track *thread = findTrack(b, TrackKind::CpuThread, "thread 9");
    QVERIFY(thread);
    QCOMPARE(thread->instants.size(), std::size_t(1)); // only the OOM; [memory] events are samples
    QCOMPARE(qs(b.str(thread->instants[0].name)), QStringLiteral("[OutOfMemory]"));
    QVERIFY(thread->instants[0].flags & SpanFlagOutOfMemory);
    QVERIFY(thread->instants[0].args != kNoArgs);
}

void TestKinetoMapping::counters()
{
    const SourceBuilder b = importText(R"({"traceEvents": [
      {"ph": "C", "cat": "hardware_counters", "name": "GPU 0 Counters", "pid": "GPU 0 Counters", "tid": 0, "ts": 1, "args": {"sm": 50, "dram": "10.5"}},
      {"ph": "C", "cat": "hardware_counters", "name": "GPU 0 Counters", "pid": "GPU 0 Counters", "tid": 0, "ts": 2, "args": {"sm": 70, "dram": "inf"}},
      {"ph": "C", "name": "queue", "pid": 1, "tid": 1, "ts": 3, "args": {"": 4}}
    ]})");
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    QCOMPARE(b.source().counts.counterSamples, std::int64_t(4)); // "inf" is not a sample
    const Track *sm = findTrack(b, TrackKind::Counter, "GPU 0 Counters sm");
    const Track *dram = findTrack(b, TrackKind::Counter, "GPU 0 Counters dram");
    const Track *queue = findTrack(b, TrackKind::Counter, "queue");
    QVERIFY(sm && dram && queue);
    QCOMPARE(sm->counter.values, (std::vector<double>{50.0, 70.0}));
    QCOMPARE(sm->counter.times, (std::vector<TimeNs>{1000, 2000}));
    QCOMPARE(dram->counter.values, (std::vector<double>{10.5}));
    QCOMPARE(queue->counter.values, (std::vector<double>{4.0}));
}

void TestKinetoMapping::collectives()
{
    const SourceBuilder b = importText(R"JSON({"schemaVersion": 1, "traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
       "pid": 0, "tid": 7, "ts": 100, "dur": 812.352,
       "args": {"Collective name": "allreduce", "In msg nelems": "4194304", "Out msg nelems": 4194304, "Group size": "8",
                "dtype": "\"Float\"", "Process Group Name": "0", "Seq": 12}},
      {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
       "pid": 0, "tid": 7, "ts": 2000, "dur": 10},
      {"ph": "X", "cat": "kernel", "name": "my_send_kernel", "pid": 0, "tid": 8, "ts": 3000, "dur": 10,
       "args": {"Collective name": "send"}},
      {"ph": "X", "cat": "gpu_user_annotation", "name": "nccl:all_reduce", "pid": 0, "tid": 7, "ts": 99, "dur": 900},
      {"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": 5, "tid": 5, "ts": 90, "dur": 5},
      {"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>()", "pid": 0, "tid": 7, "ts": 5000, "dur": 10}
    ]})JSON");
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    QCOMPARE(b.source().counts.collectives, std::int64_t(3));
    const auto &cs = b.collectives();
    QCOMPARE(cs.size(), std::size_t(3));
    QCOMPARE(qs(b.str(cs[0].op)), QStringLiteral("allreduce"));
    QCOMPARE(cs[0].start, TimeNs(100000));
    QCOMPARE(cs[0].end, TimeNs(100000 + 812352));
    QCOMPARE(cs[0].inNelems, std::int64_t(4194304));
    QCOMPARE(cs[0].outNelems, std::int64_t(4194304));
    QCOMPARE(cs[0].groupSize, 8);
    QCOMPARE(cs[0].seq, std::int64_t(12));
    QCOMPARE(qs(b.str(cs[0].dtype)), QStringLiteral("Float")); // old writers quoted it twice
    QCOMPARE(qs(b.str(cs[0].processGroup)), QStringLiteral("0"));
    QCOMPARE(qs(b.str(cs[1].op)), QStringLiteral("AllGather"));
    QCOMPARE(cs[1].inNelems, std::int64_t(-1));
    QCOMPARE(cs[1].groupSize, 0);
    QCOMPARE(cs[1].seq, std::int64_t(-1));
    QCOMPARE(qs(b.str(cs[2].op)), QStringLiteral("send"));
    QVERIFY(findSpan(b, "my_send_kernel")->flags & SpanFlagCollective);
    QVERIFY(!(findSpan(b, "void gemm_kernel<float>()")->flags & SpanFlagCollective));
    const Track *t = nullptr;
    const Span *annotation = findSpan(b, "nccl:all_reduce", &t);
    QVERIFY(annotation);
    QVERIFY(!(annotation->flags & SpanFlagCollective));
}

void TestKinetoMapping::steps()
{
    const SourceBuilder b = importText(R"({"traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
      {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7", "pid": 0, "tid": 7, "ts": 110, "dur": 50},
      {"ph": "X", "cat": "Operator", "name": "ProfilerStep#8", "pid": 1, "tid": 1, "ts": 200, "dur": 50},
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#", "pid": 1, "tid": 1, "ts": 300, "dur": 5},
      {"ph": "B", "cat": "user_annotation", "name": "ProfilerStep#9", "pid": 1, "tid": 1, "ts": 400},
      {"ph": "E", "pid": 1, "tid": 1, "ts": 450}
    ]})");
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    QCOMPARE(b.source().counts.steps, std::int64_t(3));
    QCOMPARE(b.steps().size(), std::size_t(3));
    QCOMPARE(b.steps()[0].number, std::int64_t(7));
    QCOMPARE(b.steps()[0].range, (TimeRange{100000, 150000}));
    QCOMPARE(b.steps()[1].number, std::int64_t(8));
    QCOMPARE(b.steps()[2].number, std::int64_t(9));
    QCOMPARE(b.steps()[2].range, (TimeRange{400000, 450000}));
    QCOMPARE(b.tracks()[b.steps()[0].track].kind, TrackKind::CpuThread);
    const Track *stream = findTrack(b, TrackKind::GpuStream, "stream 7");
    QVERIFY(stream);
    QVERIFY(stream->spans[0].flags & SpanFlagStep); // flagged, not counted
    QVERIFY(stream->spans[0].flags & SpanFlagAnnotation);
}

void TestKinetoMapping::flowsBindToTheirSpans()
{
    // The `f` of id 7 comes before its kernel's lane exists; id 9 binds to the next span (no
    // "bp"); id 11 has no `s`; id 12's `f` falls on no span; fwdbwd is its own kind; the `s` of
    // id 7 sits inside a parent op, so it binds to the deepest span there (the launch).
    const SourceBuilder b = importText(R"JSON({"traceEvents": [
      {"ph": "f", "id": 7, "pid": 0, "tid": 7, "ts": 120, "cat": "ac2g", "name": "ac2g", "bp": "e"},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 100, "dur": 30},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 105, "dur": 5},
      {"ph": "s", "id": 7, "pid": 1, "tid": 2, "ts": 105, "cat": "ac2g", "name": "ac2g"},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 40},
      {"ph": "s", "id": 9, "pid": 1, "tid": 2, "ts": 102, "cat": "ac2g", "name": "ac2g"},
      {"ph": "f", "id": 9, "pid": 0, "tid": 7, "ts": 161, "cat": "ac2g", "name": "ac2g"},
      {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 170, "dur": 5},
      {"ph": "f", "id": 11, "pid": 0, "tid": 7, "ts": 170, "cat": "ac2g", "name": "ac2g", "bp": "e"},
      {"ph": "s", "id": 12, "pid": 1, "tid": 2, "ts": 101, "cat": "ac2g", "name": "ac2g"},
      {"ph": "f", "id": 12, "pid": 0, "tid": 7, "ts": 500, "cat": "ac2g", "name": "ac2g", "bp": "e"},
      {"ph": "X", "cat": "cpu_op", "name": "MmBackward0", "pid": 1, "tid": 3, "ts": 300, "dur": 10},
      {"ph": "s", "id": 7, "pid": 1, "tid": 2, "ts": 100, "cat": "fwdbwd", "name": "fwdbwd"},
      {"ph": "f", "id": 7, "pid": 1, "tid": 3, "ts": 300, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"}
    ]})JSON");
    const auto spanName = [&b](const FlowEnd &e) { return std::string(b.str(b.tracks()[e.track].spans[e.span].name)); };
    std::multiset<std::string> seen;
    for (const Flow &f : b.flows())
        seen.insert(std::string(flowKindCategory(f.kind)) + ":" + spanName(f.from) + "->" + spanName(f.to));
    QCOMPARE(seen, (std::multiset<std::string>{"ac2g:cudaLaunchKernel->gemm", "ac2g:aten::mm->relu", "fwdbwd:aten::mm->MmBackward0"}));
    QCOMPARE(b.source().counts.flows, std::int64_t(3));
    QCOMPARE(b.source().counts.flowEndsUnpaired, std::int64_t(3)); // 11's lone `f`, and 12's two ends
    // Sorted by the start end, and the times moved with the file's clock like every span.
    for (std::size_t i = 1; i < b.flows().size(); ++i)
        QVERIFY(std::pair(b.flows()[i - 1].from.track, b.flows()[i - 1].from.span)
                <= std::pair(b.flows()[i].from.track, b.flows()[i].from.span));
}

void TestKinetoMapping::rankFromRecordParamComms()
{
    const SourceBuilder b = importText(R"({"schemaVersion": 1, "traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
       "args": {"Rank": 1, "Group size": 2, "Process Group Description": "undefined"}},
      {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 3, "dur": 1,
       "args": {"Collective name": "allreduce", "Rank": "3", "Group size": 4, "Process Group Description": "default_pg"}},
      {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 5, "dur": 1,
       "args": {"Rank": 6, "Group size": 8, "Process Group Description": "default_pg"}}
    ]})");
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().ranks, (std::vector<RankId>{3}));
    QCOMPARE(b.source().worldSize, 4);
    QVERIFY(findSpan(b, "record_param_comms")->flags & SpanFlagCollective);
    QCOMPARE(b.source().counts.collectives, std::int64_t(0)); // host ops are not collectives themselves
}

void TestKinetoMapping::distributedInfoWins()
{
    // The on-demand fallback writes distributedInfo after traceEvents; it still beats the op's args.
    const SourceBuilder b = importText(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 3, "dur": 1,
       "args": {"Rank": 3, "Group size": 4, "Process Group Description": "default_pg"}}],
      "distributedInfo": {"backend": "nccl", "rank": "5", "world_size": 16, "pg_config": [{"pg_name": "0"}]}})");
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().ranks, (std::vector<RankId>{5}));
    QCOMPARE(b.source().worldSize, 16);
}

void TestKinetoMapping::metadataKept()
{
    const std::string longValue(100000, 'v');
    const SourceBuilder b = importText(R"({"schemaVersion": 1, "WARNING": ["a", "b c"], "custom": {"x": [1, 2]},
      "traceEvents": [], "huge": ")" + longValue + R"(", "traceName": "/tmp/t.json"})");
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    const Source &src = b.source();
    QCOMPARE(src.metadataValue("schemaVersion"), std::string("1"));
    QCOMPARE(src.metadataValue("WARNING"), std::string(R"(["a","b c"])"));
    QCOMPARE(src.metadataValue("custom"), std::string(R"({"x":[1,2]})"));
    QCOMPARE(src.metadataValue("traceName"), std::string("\"/tmp/t.json\""));
    QCOMPARE(src.metadataValue("huge").size(), std::size_t(64 * 1024));
    QCOMPARE(src.metadata.size(), std::size_t(5));
    QCOMPARE(src.counts.spans, std::int64_t(0));
    QVERIFY(!src.hasClock);

    // Out-of-range numbers in the parsed keys are dropped, not cast (found by fuzzing).
    const SourceBuilder wild = importText(R"({"schemaVersion": 1, "deviceProperties": [{"id": 1e300, "totalGlobalMem": 1.4e112, "numSms": -1e40}],
      "distributedInfo": {"rank": 1e300, "world_size": "lots"}, "baseTimeNanoseconds": 1e300, "traceEvents": []})");
    QCOMPARE(wild.source().devices.size(), std::size_t(1));
    QCOMPARE(wild.source().devices[0].id, 0);
    QCOMPARE(wild.source().devices[0].totalMemory, std::int64_t(0));
    QCOMPARE(wild.source().devices[0].numSms, 0);
    QVERIFY(wild.source().ranks.empty());
    QCOMPARE(wild.source().worldSize, 0);
    QVERIFY(findDiagnostic(wild, "baseTimeNanoseconds is not a usable number"));
}

void TestKinetoMapping::trackNamesFromMetadataEvents()
{
    const SourceBuilder b = importText(R"J({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 20, "ts": 1, "dur": 1},
      {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 9, "tid": 9, "ts": 1, "dur": 1},
      {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 9, "tid": 10, "ts": 1, "dur": 1},
      {"ph": "X", "cat": "kernel", "name": "k2", "pid": 1, "tid": 21, "ts": 1, "dur": 1},
      {"name": "thread_name", "ph": "M", "ts": 0, "pid": 1, "tid": 20, "args": {"name": "stream 20 context"}},
      {"name": "thread_name", "ph": "M", "ts": 0, "pid": 1, "tid": 21, "args": {"name": "stream 21 "}},
      {"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": 1, "tid": 21, "args": {"sort_index": 21}},
      {"name": "thread_name", "ph": "M", "ts": 0, "pid": 9, "tid": 9, "args": {"name": "thread 9 (python)"}},
      {"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": 9, "tid": 9, "args": {"sort_index": 3}},
      {"name": "process_name", "ph": "M", "ts": 0, "pid": 9, "tid": 0, "args": {"name": "python"}}
    ]})J");
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.tracks().size(), std::size_t(4));
    const Track *s20 = findTrack(b, TrackKind::GpuStream, "stream 20 context");
    const Track *s21 = findTrack(b, TrackKind::GpuStream, "stream 21"); // trailing space trimmed
    const Track *main = findTrack(b, TrackKind::CpuThread, "thread 9 (python)");
    const Track *other = findTrack(b, TrackKind::CpuThread, "thread 10"); // no metadata: the default
    QVERIFY(s20 && s21 && main && other);
    QCOMPARE(s21->sortIndex, 21);
    QCOMPARE(s20->device, 1);
    QCOMPARE(main->sortIndex, 3);
    QCOMPARE(other->sortIndex, 0);
}

void TestKinetoMapping::progressReported()
{
    const std::string text = manySpans(60000); // ~7 MB: several chunks
    std::vector<std::pair<std::int64_t, std::int64_t>> reports;
    ImportContext ctx(nullptr, [&](std::int64_t done, std::int64_t total) { reports.emplace_back(done, total); },
                      std::chrono::milliseconds(0));
    const SourceBuilder b = ImporterRegistry::instance().importBytes(text, "p.json", ctx);
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.spans, std::int64_t(60000));
    QVERIFY(reports.size() >= 5);
    for (std::size_t i = 1; i < reports.size(); ++i)
        QVERIFY(reports[i].first >= reports[i - 1].first);
    QCOMPARE(reports.back(), (std::pair<std::int64_t, std::int64_t>(std::int64_t(text.size()), std::int64_t(text.size()))));
}

void TestKinetoMapping::cancelStopsEarly()
{
    const std::string text = manySpans(300000); // ~35 MB
    std::atomic<bool> cancel{false};
    int calls = 0;
    ImportContext ctx(&cancel, [&](std::int64_t, std::int64_t) {
        if (++calls == 3)
            cancel = true;
    }, std::chrono::milliseconds(0));
    QElapsedTimer timer;
    timer.start();
    const SourceBuilder b = ImporterRegistry::instance().importBytes(text, "c.json", ctx);
    QVERIFY(timer.elapsed() < 5000);
    QVERIFY(findDiagnostic(b, "cancelled"));
    QCOMPARE(countDiagnostics(b, Diagnostic::Severity::Error), 0); // stopping is not a truncation
    QVERIFY(b.source().counts.spans > 0);
    QVERIFY(b.source().counts.spans < 50000); // a few 1 MiB chunks, not the file
}

QTEST_GUILESS_MAIN(TestKinetoMapping)
#include "test_kineto_mapping.moc"
