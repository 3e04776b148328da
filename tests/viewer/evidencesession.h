#pragma once
// A small incident with every kind of evidence the profiler traces do not carry, fully known so the
// viewer tests can name exact rows, pixels and values:
// - rank0.pt.trace.json / rank1.pt.trace.json: allocated and reserved counters on GPU 0 / GPU 1
//   (rank 1 has an [OutOfMemory] instant at +7 µs), 80 GiB devices;
// - smi.csv (nvidia-smi, ranks by GPU index): memory.used of GPUs 0 and 1, GPU 0 utilisation and
//   power;
// - job.log (job-log): records of ranks 0 and 1 and of torchrun, timed and untimed, INFO to ERROR,
//   one CUDA OOM message (rank 1, timed, OOM #0) and the memory_summary that follows it;
// - rank2_summary.txt (memory-summary): rank 2's table, untimed, and an untimed OOM (#1).
// Times are relative to kBase, like testsession.h.

#include "sessionbuilder.h"

#include <string>

namespace rs::test {

inline constexpr TimeNs kEvBase = 1700000000000000000LL;
inline constexpr std::int64_t kGiB = 1LL << 30;
inline constexpr std::int64_t kMiB = 1LL << 20;

/// Indexes into Session::logs().records (sources are added in this order, records in file order).
enum EvidenceRecord : std::uint32_t {
    RecJobStart,     ///< torchrun INFO, job level, +0 µs
    RecR0Info1,      ///< rank 0 NCCL INFO, +1 µs
    RecR0Untimed,    ///< rank 0 NCCL INFO, untimed
    RecR1Info,       ///< rank 1 PyTorch INFO, +2 µs
    RecR0Warn,       ///< rank 0 NCCL WARN "NET/IB : Got completion with error", +3 µs
    RecR1Info2,      ///< rank 1 Other INFO "step 1 loss", +5 µs — shares its pixel with RecR1Error at coarse zoom
    RecR1Error,      ///< rank 1 PyTorch ERROR (watchdog timeout), +5 µs + 100 ns
    RecR1Oom,        ///< rank 1 Python ERROR "CUDA out of memory", flagged OOM, +7 µs
    RecJobFailed,    ///< torchrun ERROR ChildFailedError, job level, +9 µs
    RecordCount
};

struct EvidenceSession {
    SessionPtr session;
    TrackId alloc0 = kNoTrack, reserved0 = kNoTrack, alloc1 = kNoTrack, used0 = kNoTrack, used1 = kNoTrack,
            util0 = kNoTrack, power0 = kNoTrack;
};

inline MemorySummary makeSummary(RankId rank, std::int64_t allocated, std::int64_t reserved, std::int64_t ooms,
                                 std::int64_t retries, std::int64_t line)
{
    MemorySummary m;
    m.rank = rank;
    m.device = rank;
    m.line = line;
    m.ooms = ooms;
    m.allocRetries = retries;
    auto row = [&m](const char *metric, const char *pool, bool bytes, std::int64_t cur, std::int64_t peak) {
        m.rows.push_back({metric, pool, bytes, cur, peak, cur * 4, cur * 3});
    };
    row("Allocated memory", "all", true, allocated, allocated + kGiB);
    row("Allocated memory", "large", true, allocated - 64 * kMiB, allocated + kGiB - 64 * kMiB);
    row("Allocated memory", "small", true, 64 * kMiB, 64 * kMiB);
    row("GPU reserved memory", "all", true, reserved, reserved + kGiB);
    row("GPU reserved memory", "large", true, reserved - 64 * kMiB, reserved + kGiB - 64 * kMiB);
    row("GPU reserved memory", "small", true, 64 * kMiB, 64 * kMiB);
    row("Non-releasable memory", "all", true, reserved - allocated, reserved - allocated);
    row("Allocations", "all", false, 1000 + rank, 1100);
    row("Allocations", "large", false, 900, 950);
    return m;
}

inline EvidenceSession makeEvidenceSession()
{
    SessionBuilder sb;
    for (RankId r : {0, 1}) {
        SourceBuilder b("/incident/rank" + std::to_string(r) + ".pt.trace.json");
        b.source().format = "pytorch-trace";
        b.source().ranks = {r};
        b.source().hasClock = true;
        b.addDevice({r, "NVIDIA A100-SXM4-80GB", 80 * kGiB, 8, 0, 108});
        const TrackId cpu = b.track(TrackKind::CpuThread, 100, 100);
        b.addSpan(cpu, {kEvBase + 500, 9000, b.intern("ProfilerStep#1"), b.intern("user_annotation"), kNoArgs, 0,
                        SpanFlagStep | SpanFlagAnnotation});
        const TrackId alloc = b.track(TrackKind::MemoryAllocated, 0, 0, r);
        const TrackId reserved = b.track(TrackKind::MemoryReserved, 0, 0, r);
        b.addCounterSample(alloc, kEvBase + 500, 10.0 * kGiB);
        b.addCounterSample(alloc, kEvBase + 6000, (r == 1 ? 70.0 : 40.0) * kGiB);
        b.addCounterSample(alloc, kEvBase + 9000, 12.0 * kGiB);
        b.addCounterSample(reserved, kEvBase + 500, 20.0 * kGiB);
        b.addCounterSample(reserved, kEvBase + 6000, (r == 1 ? 78.0 : 50.0) * kGiB);
        if (r == 1)
            b.addInstant(cpu, {kEvBase + 7000, b.intern("[OutOfMemory]"), b.intern("cpu_instant_event"),
                               b.addArgs(R"({"Total Reserved":83751862272,"Bytes":2147483648,"Device Id":1})"), SpanFlagOutOfMemory});
        b.finish();
        sb.addSource(std::move(b));
    }
    {
        SourceBuilder b("/incident/smi.csv");
        b.source().format = "nvidia-smi";
        b.source().ranks = {0, 1};
        b.source().rankOrigin = RankOrigin::DeviceIndex;
        b.source().hasClock = true;
        for (int gpu : {0, 1}) {
            const TrackId used = b.track(TrackKind::GpuMemoryUsed, 0, 0, gpu, gpu);
            b.trackAt(used).name = b.intern("GPU " + std::to_string(gpu) + " memory used (nvidia-smi)");
            for (int k = 0; k < 10; ++k)
                b.addCounterSample(used, kEvBase + k * 1000, (21.0 + k + (gpu == 1 ? 30.0 : 0.0)) * kGiB);
        }
        const TrackId util = b.track(TrackKind::GpuUtilization, 0, 0, 0, 0);
        b.trackAt(util).name = b.intern("GPU 0 utilization %");
        const TrackId power = b.track(TrackKind::Counter, 0, 7, 0, 0);
        b.trackAt(power).name = b.intern("GPU 0 power.draw (W)");
        for (int k = 0; k < 10; ++k) {
            b.addCounterSample(util, kEvBase + k * 1000, k * 10.0);
            b.addCounterSample(power, kEvBase + k * 1000, 100.0 + k * 25.0);
        }
        b.finish();
        sb.addSource(std::move(b));
    }
    {
        SourceBuilder b("/incident/job.log");
        b.source().format = "job-log";
        b.source().ranks = {0, 1};
        b.source().hasClock = true;
        b.source().counts.oomMessages = 1;
        b.source().counts.memorySummaries = 1;
        auto rec = [&b](TimeNs t, RankId rank, std::int64_t line, LogLevel level, LogKind kind, std::uint16_t flags, const char *text) {
            LogRecord r;
            r.time = t == kNoTime ? kNoTime : kEvBase + t;
            r.rank = rank;
            r.line = line;
            r.level = level;
            r.kind = kind;
            r.flags = flags;
            r.text = b.logs().addText(text);
            b.logs().records.push_back(std::move(r));
        };
        rec(0, kJobLevel, 1, LogLevel::Info, LogKind::Torchrun, 0, "Starting elastic_operator with launch configs");
        rec(1000, 0, 2, LogLevel::Info, LogKind::Nccl, LogFlagNcclInit, "node1:11:11 [0] NCCL INFO Bootstrap : Using eth0");
        rec(kNoTime, 0, 3, LogLevel::Info, LogKind::Nccl, 0, "node1:11:11 [0] NCCL INFO cudaDriverVersion 12020");
        rec(2000, 1, 4, LogLevel::Info, LogKind::PyTorch, 0, "[PG 0 Rank 1] ProcessGroupNCCL initialization options");
        rec(3000, 0, 5, LogLevel::Warning, LogKind::Nccl, 0, "node1:11:11 [0] NCCL WARN NET/IB : Got completion with error 12");
        rec(5000, 1, 6, LogLevel::Info, LogKind::Other, 0, "step 1 loss 2.0");
        rec(5100, 1, 7, LogLevel::Error, LogKind::PyTorch, LogFlagWatchdogTimeout,
            "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE) ran for 600060 milliseconds");
        rec(7000, 1, 9, LogLevel::Error, LogKind::Python, LogFlagOom,
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB");
        rec(9000, kJobLevel, 30, LogLevel::Error, LogKind::Torchrun, LogFlagChildFailed, "ChildFailedError: train.py FAILED");
        OomEvent oom;
        oom.rank = 1;
        oom.device = 1;
        oom.time = kEvBase + 7000;
        oom.line = 9;
        oom.requested = 2 * kGiB;
        oom.capacity = 79 * kGiB;
        oom.allocated = 70 * kGiB;
        oom.reserved = 78 * kGiB;
        oom.free = 512 * kMiB;
        oom.text = "CUDA out of memory. Tried to allocate 2.00 GiB.";
        const std::int32_t oomIndex = b.addOom(oom);
        MemorySummary m = makeSummary(1, 70 * kGiB, 78 * kGiB, 1, 3, 10);
        m.oom = oomIndex;
        m.time = kEvBase + 7000;
        b.addMemorySummary(m);
        b.finish();
        sb.addSource(std::move(b));
    }
    {
        SourceBuilder b("/incident/rank2_summary.txt");
        b.source().format = "memory-summary";
        b.source().ranks = {2};
        b.source().counts.oomMessages = 1;
        b.source().counts.memorySummaries = 2;
        OomEvent oom;
        oom.device = 0;
        oom.line = 1;
        oom.requested = 64 * kMiB;
        oom.text = "CUDA out of memory. Tried to allocate 64.00 MiB.";
        b.addOom(oom);
        // An older table first: the panel must show the later one.
        b.addMemorySummary(makeSummary(kNoRank, 1 * kGiB, 2 * kGiB, 0, 0, 3));
        b.addMemorySummary(makeSummary(kNoRank, 41 * kGiB, 44 * kGiB, 0, 1, 40));
        b.finish();
        sb.addSource(std::move(b));
    }
    EvidenceSession e;
    e.session = sb.freeze();
    const Session &s = *e.session;
    for (TrackId i = 0; i < s.tracks().size(); ++i) {
        const Track &t = s.tracks()[i];
        if (t.kind == TrackKind::MemoryAllocated)
            (t.rank == 0 ? e.alloc0 : e.alloc1) = i;
        else if (t.kind == TrackKind::MemoryReserved && t.rank == 0)
            e.reserved0 = i;
        else if (t.kind == TrackKind::GpuMemoryUsed)
            (t.device == 0 ? e.used0 : e.used1) = i;
        else if (t.kind == TrackKind::GpuUtilization)
            e.util0 = i;
        else if (t.kind == TrackKind::Counter)
            e.power0 = i;
    }
    return e;
}

} // namespace rs::test
