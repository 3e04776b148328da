#pragma once
// A small, fully known session for the viewer tests: two ranks, nested CPU spans with args, a GPU
// stream, memory counters, a step, a marker, and three sources with diagnostics. Times are given
// relative to kBase (a wall-clock epoch time) so expectations read as small numbers.

#include "sessionbuilder.h"

#include <string>

namespace rs::test {

inline constexpr TimeNs kBase = 1700000000000000000LL; // 2023-11-14 22:13:20 UTC

/// Track ids and span indexes of the session, resolved by name after freezing.
struct TestSession {
    SessionPtr session;
    TrackId cpu0 = kNoTrack;     ///< rank 0 main thread: step A, linear B (args), addmm C, relu D
    TrackId gpu0 = kNoTrack;     ///< rank 0 stream 7: gemm and relu kernels
    TrackId markers0 = kNoTrack; ///< rank 0 global instants: one "checkpoint"
    TrackId alloc0 = kNoTrack;   ///< rank 0 allocated bytes
    TrackId cpu1 = kNoTrack;     ///< rank 1 main thread: conv2d
    std::uint32_t stepA = 0, linearB = 0, addmmC = 0, reluD = 0, gemm = 0, reluKernel = 0, conv = 0;
};

inline std::uint32_t spanIndex(const Session &s, TrackId track, std::string_view name)
{
    const auto &spans = s.tracks()[track].spans;
    for (std::uint32_t i = 0; i < spans.size(); ++i)
        if (s.str(spans[i].name) == name)
            return i;
    return ~0u;
}

inline TrackId trackNamed(const Session &s, std::string_view name)
{
    for (TrackId i = 0; i < s.tracks().size(); ++i)
        if (s.str(s.tracks()[i].name) == name)
            return i;
    return kNoTrack;
}

inline TestSession makeTestSession()
{
    SessionBuilder sb;
    {
        SourceBuilder b("/traces/job/rank0.pt.trace.json");
        b.source().format = "pytorch-trace";
        b.source().ranks = {0};
        b.source().hasClock = true;
        b.source().counts.spans = 6;
        b.source().counts.steps = 1;
        b.source().counts.memoryEvents = 4;
        b.addDevice({0, "NVIDIA H100 80GB HBM3", 85899345920LL, 9, 0, 132});
        const StringId cpuOp = b.intern("cpu_op"), ann = b.intern("user_annotation"), kernel = b.intern("kernel");
        const TrackId cpu = b.track(TrackKind::CpuThread, 100, 100);
        b.trackAt(cpu).name = b.intern("python 100");
        const TrackId gpu = b.track(TrackKind::GpuStream, 0, 7, 0);
        b.trackAt(gpu).name = b.intern("stream 7");
        const TrackId markers = b.track(TrackKind::Markers, 0, 0);
        b.trackAt(markers).name = b.intern("markers");
        const TrackId alloc = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
        b.trackAt(alloc).name = b.intern("allocated");
        const TrackId reserved = b.track(TrackKind::MemoryReserved, 0, 0, 0);
        b.trackAt(reserved).name = b.intern("reserved");

        const ArgsId linearArgs = b.addArgs(
            R"({"External id":42,"Input Dims":[[8,16],[16,16]],"Input type":["float","float"],"nested":{"a":1.5,"b":[1,2,{"c":"x"}]},"ok":true})");
        const ArgsId badArgs = b.addArgs(R"({"truncated": )");
        b.addSpan(cpu, {kBase + 1000, 10000, b.intern("ProfilerStep#1"), ann, kNoArgs, 0, SpanFlagStep | SpanFlagAnnotation});
        b.addSpan(cpu, {kBase + 2000, 3000, b.intern("aten::linear"), cpuOp, linearArgs, 0, 0});
        b.addSpan(cpu, {kBase + 2500, 500, b.intern("aten::addmm"), cpuOp, badArgs, 0, 0});
        b.addSpan(cpu, {kBase + 6000, 3000, b.intern("aten::relu"), cpuOp, kNoArgs, 0, 0});
        b.addSpan(gpu, {kBase + 3000, 1000, b.intern("gemm_kernel"), kernel, kNoArgs, 0, SpanFlagGpu | SpanFlagKernel});
        b.addSpan(gpu, {kBase + 6500, 1500, b.intern("relu_kernel"), kernel, kNoArgs, 0, SpanFlagGpu | SpanFlagKernel});
        b.addInstant(markers, {kBase + 10000, b.intern("checkpoint"), b.intern("Trace"), b.addArgs(R"({"epoch":3})"), 0});
        b.addCounterSample(alloc, kBase + 1000, 1.0e9);
        b.addCounterSample(alloc, kBase + 3000, 3.0e9);
        b.addCounterSample(alloc, kBase + 9000, 2.0e9);
        b.addCounterSample(reserved, kBase + 1000, 4.0e9);
        b.addStep({1, {kBase + 1000, kBase + 11000}, cpu});
        b.finish();
        sb.addSource(std::move(b));
    }
    {
        SourceBuilder b("/traces/job/rank1.pt.trace.json.gz");
        b.source().format = "pytorch-trace";
        b.source().compression = Compression::Gzip;
        b.source().ranks = {1};
        b.source().hasClock = true;
        b.source().counts.spans = 1;
        const TrackId cpu = b.track(TrackKind::CpuThread, 200, 200);
        b.trackAt(cpu).name = b.intern("python 200");
        b.addSpan(cpu, {kBase + 1500, 8000, b.intern("aten::conv2d"), b.intern("cpu_op"), kNoArgs, 0, 0});
        b.warning("event-phase-ignored", "unknown phase 'Q' ignored", 12);
        b.error("event-bad-time", "event without ts dropped", -1, 345);
        b.finish();
        sb.addSource(std::move(b));
    }
    {
        SourceBuilder b("/traces/job/notes.txt");
        b.error("unrecognised", "not a recognised format");
        b.finish();
        sb.addSource(std::move(b));
    }
    TestSession t;
    t.session = sb.freeze();
    const Session &s = *t.session;
    t.cpu0 = trackNamed(s, "python 100");
    t.gpu0 = trackNamed(s, "stream 7");
    t.markers0 = trackNamed(s, "markers");
    t.alloc0 = trackNamed(s, "allocated");
    t.cpu1 = trackNamed(s, "python 200");
    t.stepA = spanIndex(s, t.cpu0, "ProfilerStep#1");
    t.linearB = spanIndex(s, t.cpu0, "aten::linear");
    t.addmmC = spanIndex(s, t.cpu0, "aten::addmm");
    t.reluD = spanIndex(s, t.cpu0, "aten::relu");
    t.gemm = spanIndex(s, t.gpu0, "gemm_kernel");
    t.reluKernel = spanIndex(s, t.gpu0, "relu_kernel");
    t.conv = spanIndex(s, t.cpu1, "aten::conv2d");
    return t;
}

} // namespace rs::test
