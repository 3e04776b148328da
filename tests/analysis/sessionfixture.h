#pragma once
// Sessions the analysis tests build by hand: one RankTrace per rank (a profiler-like source with a
// CPU thread, a GPU stream, allocator counters), plus log-only sources. Every helper writes what a
// real importer would write (ProfilerStep spans with SpanFlagStep and a Step record, collectives
// with their c10d metadata, counters on device tracks), so the analysis sees nothing test-only.

#include <QDebug>
#include "analyzer.h"
#include "sessionbuilder.h"

#include <QString>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace rs::test {

inline constexpr TimeNs kT0 = 1'700'000'000'000'000'000; // 2023-11-14, an arbitrary wall clock
inline constexpr TimeNs kMs = 1'000'000;
inline constexpr TimeNs kSec = 1'000'000'000;
inline constexpr std::int64_t kMiB = 1LL << 20;
inline constexpr std::int64_t kGiB = 1LL << 30;

inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// One rank's profiler-like source.
class RankTrace
{
public:
    explicit RankTrace(RankId rank, bool clock = true)
        : m_b("rank-" + std::to_string(rank) + ".pt.trace.json")
    {
        m_b.source().format = "pytorch-trace";
        m_b.source().ranks = {rank};
        m_b.source().hasClock = clock;
        m_cpu = m_b.track(TrackKind::CpuThread, 100, 100);
        m_b.trackAt(m_cpu).name = m_b.intern("thread 100 (python)");
        m_gpu = m_b.track(TrackKind::GpuStream, 0, 7, 0);
        m_b.trackAt(m_gpu).name = m_b.intern("stream 7");
    }

    SourceBuilder &builder() { return m_b; }
    TrackId cpu() const { return m_cpu; }
    /// A second host thread (DDP's autograd thread runs backward there).
    TrackId thread(std::int64_t tid)
    {
        const TrackId t = m_b.track(TrackKind::CpuThread, 100, tid);
        m_b.trackAt(t).name = m_b.intern("thread " + std::to_string(tid));
        return t;
    }

    /// A span on `track` ([start, start + duration)), with raw args JSON.
    void span(TrackId track, std::string_view name, TimeNs start, TimeNs duration, std::string_view args = {},
              std::uint16_t flags = 0, std::string_view category = "cpu_op")
    {
        Span s;
        s.start = start;
        s.duration = duration;
        s.name = m_b.intern(name);
        s.category = m_b.intern(category);
        s.args = m_b.addArgs(args);
        s.flags = flags;
        m_b.addSpan(track, s);
    }
    /// ProfilerStep#number on the main thread, as the importer records it (span + Step).
    void step(std::int64_t number, TimeNs start, TimeNs duration)
    {
        span(m_cpu, "ProfilerStep#" + std::to_string(number), start, duration, {}, SpanFlagStep | SpanFlagAnnotation,
             "user_annotation");
        m_b.addStep({number, {start, start + duration}, m_cpu});
    }
    /// One DataLoader fetch at `t` followed by the host-to-device copy whose "Input Dims" give the
    /// batch shape (what RankMetricsBuilder reads as one micro-batch and its input elements).
    void microBatch(TimeNs t, std::string_view inputDims = "[[6, 1024]]")
    {
        span(m_cpu, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, kMs, {}, SpanFlagAnnotation,
             "user_annotation");
        span(m_cpu, "aten::to", t + 2 * kMs, kMs, "{\"Input Dims\":" + std::string(inputDims) + "}");
    }
    /// An NCCL kernel with c10d metadata on the GPU stream.
    void collective(TimeNs start, TimeNs duration, std::int64_t nelems = 1 << 20, std::int64_t seq = -1,
                    std::string_view op = "allreduce", std::string_view group = "0")
    {
        span(m_gpu, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", start, duration, {},
             SpanFlagGpu | SpanFlagKernel | SpanFlagCollective, "kernel");
        Collective c;
        c.start = start;
        c.end = start + duration;
        c.track = m_gpu;
        c.op = m_b.intern(op);
        c.processGroup = m_b.intern(group);
        c.dtype = m_b.intern("Float");
        c.inNelems = c.outNelems = nelems;
        c.groupSize = 4;
        c.seq = seq;
        m_b.addCollective(c);
    }
    /// Allocator counters on device 0 (created on first use).
    void allocated(TimeNs t, std::int64_t bytes) { sample(TrackKind::MemoryAllocated, t, bytes); }
    void reserved(TimeNs t, std::int64_t bytes) { sample(TrackKind::MemoryReserved, t, bytes); }
    /// nvidia-smi memory.used, on the rank's GPU.
    void gpuUsed(TimeNs t, std::int64_t bytes) { sample(TrackKind::GpuMemoryUsed, t, bytes); }
    void device(std::int64_t totalMemory, std::string name = "NVIDIA A100-SXM4-80GB")
    {
        DeviceInfo d;
        d.name = std::move(name);
        d.totalMemory = totalMemory;
        m_b.addDevice(d);
    }
    void oomInstant(TimeNs t)
    {
        const TrackId markers = m_b.track(TrackKind::Markers, 100, 0);
        Instant in;
        in.time = t;
        in.name = m_b.intern("[OutOfMemory]");
        in.flags = SpanFlagOutOfMemory;
        m_b.addInstant(markers, in);
    }

    SourceBuilder take()
    {
        m_b.finish();
        return std::move(m_b);
    }

private:
    void sample(TrackKind kind, TimeNs t, std::int64_t bytes)
    {
        const TrackId id = m_b.track(kind, 0, 0, 0);
        m_b.addCounterSample(id, t, double(bytes));
    }
    SourceBuilder m_b;
    TrackId m_cpu = 0;
    TrackId m_gpu = 0;
};

/// A job log (torchrun / NCCL) with records the test writes: each gets a line number in order.
class JobLog
{
public:
    explicit JobLog(std::string path = "job.log") : m_b(std::move(path)) { m_b.source().format = "job-log"; }
    SourceBuilder &builder() { return m_b; }
    LogEvidence &logs() { return m_b.logs(); }
    /// Appends a record; returns its line.
    std::int64_t record(RankId rank, std::string text, std::uint16_t flags = 0, LogKind kind = LogKind::PyTorch,
                        LogLevel level = LogLevel::Info, TimeNs time = kNoTime)
    {
        LogRecord r;
        r.rank = rank;
        r.text = m_b.logs().addText(text);
        r.flags = flags;
        r.kind = kind;
        r.level = level;
        r.time = time;
        r.line = ++m_line;
        if (rank >= 0 && std::find(m_b.source().ranks.begin(), m_b.source().ranks.end(), rank) == m_b.source().ranks.end())
            m_b.source().ranks.push_back(rank);
        m_b.logs().records.push_back(std::move(r));
        return m_line;
    }
    std::int32_t oom(OomEvent o)
    {
        o.line = ++m_line;
        if (o.rank >= 0 && std::find(m_b.source().ranks.begin(), m_b.source().ranks.end(), o.rank) == m_b.source().ranks.end())
            m_b.source().ranks.push_back(o.rank);
        return m_b.addOom(std::move(o));
    }
    /// A memory_summary table printed by `rank` (one line per table).
    void summary(MemorySummary m)
    {
        m.line = ++m_line;
        if (m.rank >= 0 && std::find(m_b.source().ranks.begin(), m_b.source().ranks.end(), m.rank) == m_b.source().ranks.end())
            m_b.source().ranks.push_back(m.rank);
        m_b.addMemorySummary(std::move(m));
    }
    /// The line the next record will get.
    std::int64_t nextLine() const { return m_line + 1; }
    SourceBuilder take()
    {
        std::sort(m_b.source().ranks.begin(), m_b.source().ranks.end());
        m_b.finish();
        return std::move(m_b);
    }

private:
    SourceBuilder m_b;
    std::int64_t m_line = 0;
};

inline SessionPtr freeze(std::vector<SourceBuilder> sources)
{
    SessionBuilder sb;
    for (SourceBuilder &b : sources)
        sb.addSource(std::move(b));
    return sb.freeze();
}

/// The OOM message of a rank, with the numbers of PyTorch's newer message form.
inline OomEvent oomEvent(RankId rank, TimeNs time, std::int64_t requested, std::int64_t capacity,
                         std::int64_t allocated, std::int64_t reserved, std::int64_t free = 0)
{
    OomEvent o;
    o.rank = rank;
    o.device = 0;
    o.time = time;
    o.requested = requested;
    o.capacity = capacity;
    o.allocated = allocated;
    o.reserved = reserved;
    o.free = free;
    o.text = "CUDA out of memory. Tried to allocate " + std::to_string(requested >> 20) + " MiB";
    return o;
}

/// The findings of one id.
inline std::vector<const Finding *> findingsOf(const AnalysisResult &r, std::string_view id)
{
    std::vector<const Finding *> out;
    for (const Finding &f : r.findings)
        if (f.id == id)
            out.push_back(&f);
    return out;
}

/// Every finding as "id/severity/ranks", for failure messages.
/// Prints every finding with its evidence and fix (qInfo): what a failing row of a rule test shows.
inline void logFindings(const AnalysisResult &r)
{
    for (const Finding &x : r.findings) {
        std::string rankText;
        for (RankId k : x.ranks)
            rankText += std::to_string(k) + " ";
        qInfo("  [%s] %s [%s]: %s", severityName(x.severity), x.id.c_str(), rankText.c_str(), x.title.c_str());
        for (const Evidence &e : x.evidence)
            qInfo("      r%d %s", e.rank, e.text.c_str());
        qInfo("      fix: %s", x.fix.c_str());
    }
}

inline std::string describe(const AnalysisResult &r)
{
    std::string s;
    for (const Finding &f : r.findings) {
        s += f.id + "/" + severityName(f.severity) + "/";
        for (RankId k : f.ranks)
            s += std::to_string(k) + ",";
        s += " " + f.title + "\n";
    }
    return s;
}

} // namespace rs::test
