#include "kinetowriter.h"

#include "jsonappender.h"

#include <algorithm>

namespace rs::tracegen {

namespace {
// A100 figures for the keys PyTorch's deviceProperties carries besides name and memory.
constexpr std::string_view kDeviceLimits =
    "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
    "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
    "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 167936,\n";
// Kineto sorts GPU process rows after CPU ones with this offset (GenericActivityProfiler.cpp).
constexpr std::int64_t kGpuSortIndexBase = 0x1000000;
} // namespace

KinetoWriter::KinetoWriter(std::unique_ptr<TraceSink> sink, const RankSetup &setup)
    : m_sink(std::move(sink)), m_setup(setup)
{
    m_chunk.reserve(8 << 20);
    writeHeader();
}

void KinetoWriter::writeHeader()
{
    std::string out;
    JsonAppender j(out);
    // The leading space and 4-space indent follow FORMATS.md §1.1; sniffers rely on ` {`.
    j.raw(" {\n    \"schemaVersion\": 1,\n    \"deviceProperties\": [\n");
    writeDeviceProperties(out);
    j.raw("    ],\n");
    writeDistributedInfo(out);
    // PyTorch adds these as trace metadata; importers must keep unknown keys as metadata.
    j.raw("      \"cupti_version\": 22,\n      \"cuda_runtime_version\": 12040,\n"
          "      \"cuda_driver_version\": 12040,\n      \"record_shapes\": 1,\n      \"profile_memory\": 1,\n"
          "      \"with_stack\": 0,\n      \"with_flops\": 0,\n      \"with_modules\": 0,\n");
    j.raw("      \"trace_id\": \"").raw(traceId()).raw("\",\n");
    j.raw("    \"displayTimeUnit\": \"ms\",\n    \"baseTimeNanoseconds\": ").integer(m_setup.baseTimeNs).raw(",\n");
    j.raw("    \"traceEvents\": [");
    m_sink->write(out);
}

std::string KinetoWriter::traceId() const
{
    // Kineto prints a random 128-bit id; ours derives from the rank's identity so reruns match.
    static constexpr char hex[] = "0123456789ABCDEF";
    std::uint64_t h = 0xcbf29ce484222325ULL;
    std::string id;
    for (int i = 0; i < 32; ++i) {
        h = (h ^ static_cast<std::uint64_t>(m_setup.pid + 131 * m_setup.rank + i)) * 0x100000001b3ULL;
        id.push_back(hex[(h >> 29) & 0xf]);
    }
    return id;
}

void KinetoWriter::writeDeviceProperties(std::string &out) const
{
    JsonAppender j(out);
    const GpuSpec &gpu = m_setup.job->gpu;
    for (int id = 0; id < m_setup.job->visibleDevices; ++id) {
        j.raw("      {\n      \"id\": ").integer(id).raw(", \"name\": ").quoted(gpu.name);
        j.raw(", \"totalGlobalMem\": ").integer(gpu.totalMemory).raw(",\n");
        j.raw("      \"computeMajor\": ").integer(gpu.computeMajor).raw(", \"computeMinor\": ").integer(gpu.computeMinor);
        j.raw(",\n").raw(kDeviceLimits);
        j.raw("      \"numSms\": ").integer(gpu.numSms).raw(", \"sharedMemPerBlockOptin\": 166912\n      }");
        j.raw(id + 1 < m_setup.job->visibleDevices ? ",\n" : "\n");
    }
}

void KinetoWriter::writeDistributedInfo(std::string &out) const
{
    JsonAppender j(out);
    std::string ranks = "[";
    for (int r = 0; r < m_setup.worldSize; ++r) {
        if (r)
            ranks += ", ";
        ranks += std::to_string(r);
    }
    ranks += "]";
    j.raw("      \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ").integer(m_setup.rank);
    j.raw(", \"world_size\": ").integer(m_setup.worldSize);
    j.raw(", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
          "\"backend_config\": \"cuda:nccl\", \"pg_size\": ").integer(m_setup.worldSize);
    j.raw(", \"ranks\": ").raw(ranks).raw("}], \"nccl_version\": ").quoted(m_setup.job->ncclVersion).raw("},\n");
}

void KinetoWriter::add(const TraceEvent &e)
{
    const auto offset = static_cast<std::uint32_t>(m_chunk.size());
    switch (e.phase) {
    case Phase::Complete: renderComplete(e); break;
    case Phase::Instant: renderInstant(e); break;
    case Phase::FlowStart:
    case Phase::FlowEnd: renderFlow(e); break;
    }
    const auto length = static_cast<std::uint32_t>(m_chunk.size() - offset);
    m_pending.push_back({e.ts, e.phase == Phase::Complete ? e.dur : 0,
                         static_cast<std::uint32_t>(m_pending.size()), offset, length});
    if (m_firstTs < 0 || e.ts < m_firstTs)
        m_firstTs = e.ts;
}

void KinetoWriter::renderComplete(const TraceEvent &e)
{
    JsonAppender j(m_chunk);
    j.raw("\n  {\n    \"ph\": \"X\", \"cat\": \"").raw(categoryName(e.category)).raw("\", \"name\": ").quoted(e.name);
    j.raw(", \"pid\": ").integer(e.pid).raw(", \"tid\": ").integer(e.tid);
    j.raw(",\n    \"ts\": ").micros(relative(e.ts)).raw(", \"dur\": ").micros(e.dur);
    if (!e.args.empty())
        j.raw(",\n    \"args\": {\n      ").raw(e.args).raw("\n    }");
    j.raw("\n  },");
}

void KinetoWriter::renderInstant(const TraceEvent &e)
{
    JsonAppender j(m_chunk);
    j.raw("\n  {\n    \"ph\": \"i\", \"cat\": \"").raw(categoryName(e.category)).raw("\", \"s\": \"");
    j.raw(e.threadScope ? "t" : "g").raw("\", \"name\": ").quoted(e.name);
    j.raw(",\n    \"pid\": ").integer(e.pid).raw(", \"tid\": ").integer(e.tid);
    j.raw(",\n    \"ts\": ").micros(relative(e.ts));
    if (!e.args.empty())
        j.raw(",\n    \"args\": {\n      ").raw(e.args).raw("\n    }");
    j.raw("\n  },");
}

void KinetoWriter::renderFlow(const TraceEvent &e)
{
    JsonAppender j(m_chunk);
    j.raw(e.phase == Phase::FlowStart ? "\n  {\n    \"ph\": \"s\", \"id\": " : "\n  {\n    \"ph\": \"f\", \"id\": ");
    j.integer(e.flowId).raw(", \"pid\": ").integer(e.pid).raw(", \"tid\": ").integer(e.tid);
    j.raw(", \"ts\": ").micros(relative(e.ts)).raw(",\n    \"cat\": \"").raw(categoryName(e.category));
    j.raw("\", \"name\": \"").raw(categoryName(e.category)).raw("\"");
    if (e.phase == Phase::FlowEnd)
        j.raw(", \"bp\": \"e\"");
    j.raw("\n  },");
}

void KinetoWriter::flushChunk()
{
    // Longer spans first at equal start, so an op precedes the ops it encloses, as in Kineto output.
    std::sort(m_pending.begin(), m_pending.end(), [](const Pending &a, const Pending &b) {
        if (a.ts != b.ts)
            return a.ts < b.ts;
        if (a.dur != b.dur)
            return a.dur > b.dur;
        return a.order < b.order;
    });
    m_out.clear();
    m_out.reserve(m_chunk.size());
    for (const Pending &p : m_pending)
        m_out.append(m_chunk, p.offset, p.length);
    m_sink->write(m_out);
    m_chunk.clear();
    m_pending.clear();
}

void KinetoWriter::renderMetadata(std::string &out, std::string_view name, std::int64_t pid, std::int64_t tid,
                                  std::string_view argKey, std::string_view textValue,
                                  std::int64_t numberValue) const
{
    JsonAppender j(out);
    j.raw("\n  {\n    \"name\": \"").raw(name).raw("\", \"ph\": \"M\", \"ts\": ");
    j.micros(relative(m_setup.hostClock(m_setup.profilerStartNs)));
    j.raw(", \"pid\": ").integer(pid).raw(", \"tid\": ").integer(tid).raw(",\n    \"args\": {\n      \"");
    j.raw(argKey).raw("\": ");
    if (argKey == "sort_index")
        j.integer(numberValue);
    else
        j.quoted(textValue);
    j.raw("\n    }\n  },");
}

void KinetoWriter::finish(TimeNs windowEnd)
{
    flushChunk();
    std::string out;
    const auto &s = m_setup;
    const std::string processName = s.job->processName;
    renderMetadata(out, "process_name", s.pid, 0, "name", processName, 0);
    renderMetadata(out, "process_labels", s.pid, 0, "labels", "CPU", 0);
    renderMetadata(out, "process_sort_index", s.pid, 0, "sort_index", {}, s.pid);
    // Kineto names every visible GPU, busy or not; device pids are indexes, not ranks.
    for (int dev = 0; dev < s.job->visibleDevices; ++dev) {
        renderMetadata(out, "process_name", dev, 0, "name", processName, 0);
        renderMetadata(out, "process_labels", dev, 0, "labels", "GPU " + std::to_string(dev), 0);
        renderMetadata(out, "process_sort_index", dev, 0, "sort_index", {}, kGpuSortIndexBase + dev);
    }
    const std::pair<std::int64_t, std::int64_t> streams[] = {{s.computeStream, s.computeStream},
                                                              {s.commStream, s.commStream}};
    for (const auto &[stream, sortIndex] : streams) {
        renderMetadata(out, "thread_name", s.device, stream, "name", "stream " + std::to_string(stream) + " ", 0);
        renderMetadata(out, "thread_sort_index", s.device, stream, "sort_index", {}, sortIndex);
    }
    renderMetadata(out, "thread_name", s.pid, s.mainTid, "name",
                   "thread " + std::to_string(s.mainTid) + " (" + processName + ")", 0);
    renderMetadata(out, "thread_sort_index", s.pid, s.mainTid, "sort_index", {}, s.mainTid);
    renderMetadata(out, "thread_name", s.pid, s.autogradTid, "name",
                   "thread " + std::to_string(s.autogradTid) + " (pt_autograd_" + std::to_string(s.device) + ")", 0);
    renderMetadata(out, "thread_sort_index", s.pid, s.autogradTid, "sort_index", {}, s.autogradTid);

    JsonAppender j(out);
    const TimeNs start = s.hostClock(s.profilerStartNs);
    // The profiler's own span and iteration marker use string pids, as real traces do.
    j.raw("\n  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ").micros(relative(start));
    j.raw(", \"dur\": ").micros(windowEnd - start);
    j.raw(",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n"
          "    \"args\": {\n      \"Op count\": 0\n    }\n  },");
    j.raw("\n  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ").micros(relative(start));
    j.raw(",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912\n    }\n  },");
    j.raw("\n  {\n    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
          "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ").micros(relative(start));
    j.raw("\n  },");
    j.raw("\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
          "    \"pid\": \"\", \"tid\": \"\", \"ts\": ").micros(relative(windowEnd));
    j.raw("\n  }\n  ],\n  \"traceName\": ").quoted(s.traceName).raw("\n}\n");
    m_sink->write(out);
    m_sink->close();
}

} // namespace rs::tracegen
