#pragma once
// Writes one rank's events the way Kineto's ChromeTraceLogger does (libkineto/src/output_json.cpp,
// PyTorch >= 2.4): a hand-made, pretty-printed JSON with relative "us.nnn" times, metadata keys
// before traceEvents, process/thread metadata events near the end and "Record Window End" last.
// Events arrive in production order; each chunk (one training step) is sorted by time before it
// is written, so memory stays bounded however long the trace gets.

#include "jobrecord.h"
#include "tracesink.h"
#include "traceevent.h"

#include <memory>
#include <string>
#include <vector>

namespace rs::tracegen {

class KinetoWriter
{
public:
    /// Writes the file header at once. `setup.job` must outlive the writer.
    KinetoWriter(std::unique_ptr<TraceSink> sink, const RankSetup &setup);

    /// Buffers `e` (rendered now, written at the next flushChunk()).
    void add(const TraceEvent &e);
    /// Sorts the buffered events by time (parents before children) and writes them.
    void flushChunk();
    /// Writes the metadata events, the profiler span, "Record Window End" (at `windowEnd`, rank
    /// clock) and the closing keys, then closes the file. Throws on I/O errors.
    void finish(TimeNs windowEnd);

    /// Uncompressed bytes written so far (what a reader will parse).
    std::uint64_t textBytes() const { return m_sink->bytesIn() + m_chunk.size(); }
    /// Bytes on disk so far.
    std::uint64_t fileBytes() const { return m_sink->bytesOut(); }
    const std::filesystem::path &path() const { return m_sink->path(); }

private:
    struct Pending {
        TimeNs ts;
        TimeNs dur;
        std::uint32_t order;
        std::uint32_t offset;
        std::uint32_t length;
    };

    void writeHeader();
    void writeDeviceProperties(std::string &out) const;
    std::string traceId() const;
    void writeDistributedInfo(std::string &out) const;
    void renderComplete(const TraceEvent &e);
    void renderInstant(const TraceEvent &e);
    void renderFlow(const TraceEvent &e);
    void renderMetadata(std::string &out, std::string_view name, std::int64_t pid, std::int64_t tid,
                        std::string_view argKey, std::string_view textValue, std::int64_t numberValue) const;
    TimeNs relative(TimeNs ts) const { return ts - m_setup.baseTimeNs; }

    std::unique_ptr<TraceSink> m_sink;
    RankSetup m_setup;
    std::string m_chunk;             // rendered events of the current chunk, back to back
    std::vector<Pending> m_pending;  // one per rendered event
    std::string m_out;               // scratch for sorted output
    TimeNs m_firstTs = -1;           // earliest event seen (for the profiler span)
};

} // namespace rs::tracegen
