#include "sourcearchive.h"

#include <nlohmann/json.hpp>
#include <zstd.h>

#include <cstring>
#include <map>
#include <stdexcept>
#include <type_traits>

// Every record with text or nesting, field by field. from_json reads each key with at(): a field
// missing from an entry written by another layout throws, and the entry is re-imported.
namespace rs {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TimeRange, begin, end)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Diagnostic::Example, line, offset, message)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Diagnostic, severity, code, message, line, offset, count, examples)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SourceCounts, spans, instants, memoryEvents, counterSamples, steps, collectives, logLines,
                                   warnings, memorySummaries, oomMessages, gpuSamples, segments, traceEntries)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceInfo, id, name, totalMemory, computeMajor, computeMinor, numSms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Source, path, format, compression, fileBytes, ranks, rankOrigin, worldSize, counts, hasClock,
                                   timeRange, diagnostics, devices, metadata)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Step, number, range, track, fromLog, incomplete)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Collective, start, end, rank, track, op, processGroup, dtype, inNelems, outNelems, groupSize, seq)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MemorySummaryRow, metric, pool, isBytes, current, peak, allocated, freed)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MemorySummary, rank, device, time, line, source, ooms, allocRetries, abbreviated, partial, oom, rows)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OomEvent, rank, device, time, line, source, requested, capacity, allocated, reserved, free,
                                   processInUse, otherProcessesInUse, allowed, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LogRecord, time, rank, line, source, level, kind, flags, process, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NcclCommInfo, rank, nranks, cudaDev, busId, commId, host, pid, time, line, complete)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NcclSetting, rank, name, value, line, process)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NcclCall, rank, op, opCount, count, datatype, redOp, comm, time, line, process)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WatchdogTimeout, rank, seq, opType, numelIn, numelOut, timeoutMs, ranForMs, time, line, pgId, pgDesc)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WatchdogProgress, rank, pgId, pgDesc, work, lastEnqueued, lastCompleted, timeout, time, line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ChildFailure, rank, localRank, exitCode, pid, host, when, signal, rootCause, line, launcher, task,
                                   coreDumped, time)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(JobEvent, kind, rank, launcher, jobId, step, host, reason, signal, pid, count, time, line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LogProcess, host, pid, firstLine, rank)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LogEvidence, records, comms, settings, calls, timeouts, failures, progress, jobEvents, processes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StackFrame, filename, name, line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AllocationRecord, rank, device, time, freed, address, size, sequence, stack)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SegmentRecord::Block, address, size, requested, state, stack)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SegmentRecord, rank, device, address, totalSize, allocatedSize, activeSize, large, expandable,
                                   privatePool, stack, blocks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AllocatorEvidence, allocations, segments, stacks, settings)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GpuRecord, rank, source, index, name, uuid, busId, rows, tornRows, totalMemory, maxUsed, freeAtMax,
                                   utilAtMax, line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GpuProcess, rank, source, index, uuid, busId, pid, name, type, usedMemory, time, line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GpuEvidence, gpus, processes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FlightRecord, rank, source, index, recordId, pgId, pgName, pgDesc, collectiveSeq, p2pSeq, opId,
                                   profilingName, isP2p, inputSizes, outputSizes, inputDtypes, outputDtypes, state, created, started,
                                   completed, durationMs, timeoutMs, retired, stack)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FlightRecorderGroup, rank, source, pgId, name, desc, ranks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FlightRecorderStatus, rank, source, pgId, lastEnqueued, lastStarted, lastCompleted)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FlightRecorderEvidence, entries, groups, status, stacks)
} // namespace rs

namespace rs {

namespace {

using nlohmann::json;

// The raw columns hold these records byte for byte; the layout id names their sizes so an entry
// written by a build with another layout is never read.
static_assert(std::is_trivially_copyable_v<Span> && std::is_trivially_copyable_v<Instant>);

template <typename T>
std::string_view bytesOf(const std::vector<T> &v)
{
    static_assert(std::is_trivially_copyable_v<T>);
    return {reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T)};
}

SourceArchive::Column compress(std::string name, std::string_view raw)
{
    SourceArchive::Column c;
    c.name = std::move(name);
    c.rawBytes = raw.size();
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1); // the frame's checksum detects damage on reading
    for (std::size_t at = 0; at < raw.size() || (at == 0 && c.blocks.empty()); at += SourceArchive::kBlockBytes) {
        const std::size_t n = std::min(SourceArchive::kBlockBytes, raw.size() - at);
        std::string out(ZSTD_compressBound(n), '\0');
        const std::size_t written = ZSTD_compress2(cctx, out.data(), out.size(), raw.data() + at, n);
        if (ZSTD_isError(written)) {
            ZSTD_freeCCtx(cctx);
            throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(written));
        }
        out.resize(written);
        c.blocks.push_back(std::move(out));
        if (raw.empty())
            break;
    }
    ZSTD_freeCCtx(cctx);
    return c;
}

std::string decompress(const SourceArchive::Column &c)
{
    std::string raw(c.rawBytes, '\0');
    std::size_t at = 0;
    for (const std::string &block : c.blocks) {
        const std::size_t n = ZSTD_decompress(raw.data() + at, raw.size() - at, block.data(), block.size());
        if (ZSTD_isError(n))
            throw std::runtime_error("column " + c.name + ": " + ZSTD_getErrorName(n));
        at += n;
    }
    if (at != raw.size())
        throw std::runtime_error("column " + c.name + " is shorter than recorded");
    return raw;
}

template <typename T>
std::vector<T> arrayOf(const std::string &raw, const std::string &name)
{
    static_assert(std::is_trivially_copyable_v<T>);
    if (raw.size() % sizeof(T))
        throw std::runtime_error("column " + name + " does not hold whole records");
    std::vector<T> v(raw.size() / sizeof(T));
    if (!raw.empty())
        std::memcpy(v.data(), raw.data(), raw.size());
    return v;
}

// Length-prefixed texts: a column of uint32 lengths and one of the bytes, in id order.
template <typename Get>
void writeTexts(std::vector<SourceArchive::Column> &out, const std::string &name, std::size_t first, std::size_t end, Get get)
{
    std::vector<std::uint32_t> lengths;
    std::string data;
    for (std::size_t i = first; i < end; ++i) {
        const std::string_view s = get(i);
        lengths.push_back(static_cast<std::uint32_t>(s.size()));
        data.append(s);
    }
    out.push_back(compress(name + ".len", bytesOf(lengths)));
    out.push_back(compress(name + ".data", data));
}

} // namespace

std::string SourceArchive::layoutId()
{
    // Record sizes and the byte order: a different build of the model cannot misread an entry.
    const std::uint16_t probe = 1;
    return "rankscope-source/1 span" + std::to_string(sizeof(Span)) + " instant" + std::to_string(sizeof(Instant))
        + (*reinterpret_cast<const std::uint8_t *>(&probe) ? " le" : " be");
}

std::vector<SourceArchive::Column> SourceArchive::write(const SourceBuilder &b)
{
    std::vector<Column> out;
    json tracks = json::array();
    for (const Track &t : b.m_tracks)
        tracks.push_back({{"kind", t.kind}, {"rank", t.rank}, {"source", t.source}, {"name", t.name}, {"pid", t.pid},
                          {"tid", t.tid}, {"device", t.device}, {"sortIndex", t.sortIndex}, {"maxDepth", t.maxDepth}});
    const json meta = {{"layout", layoutId()},
                       {"source", b.m_source},
                       {"tracks", std::move(tracks)},
                       {"steps", b.m_steps},
                       {"collectives", b.m_collectives},
                       {"ooms", b.m_ooms},
                       {"memorySummaries", b.m_memorySummaries},
                       {"logs", b.m_logs},
                       {"allocator", b.m_allocator},
                       {"gpus", b.m_gpus},
                       {"flight", b.m_flight}};
    const std::vector<std::uint8_t> cbor = json::to_cbor(meta);
    out.push_back(compress("meta", std::string_view(reinterpret_cast<const char *>(cbor.data()), cbor.size())));
    // Id 0 is the empty string in every pool; the rest are interned again in order on reading.
    writeTexts(out, "strings", 1, b.m_strings.size(), [&](std::size_t i) { return b.m_strings.view(static_cast<StringId>(i)); });
    writeTexts(out, "args", 1, b.m_args.count() + 1, [&](std::size_t i) { return b.m_args.view(static_cast<ArgsId>(i)); });
    for (std::size_t i = 0; i < b.m_tracks.size(); ++i) {
        const Track &t = b.m_tracks[i];
        const std::string p = "t" + std::to_string(i) + ".";
        if (!t.spans.empty()) {
            out.push_back(compress(p + "spans", bytesOf(t.spans)));
            out.push_back(compress(p + "levels", bytesOf(t.levelBegin)));
        }
        if (!t.instants.empty())
            out.push_back(compress(p + "instants", bytesOf(t.instants)));
        if (!t.counter.empty()) {
            out.push_back(compress(p + "times", bytesOf(t.counter.times)));
            out.push_back(compress(p + "values", bytesOf(t.counter.values)));
        }
    }
    return out;
}

std::optional<SourceBuilder> SourceArchive::read(const std::vector<Column> &columns, std::string *error)
{
    try {
        std::map<std::string, const Column *, std::less<>> byName;
        for (const Column &c : columns)
            byName[c.name] = &c;
        const auto raw = [&](const std::string &name) -> std::string {
            const auto it = byName.find(name);
            if (it == byName.end())
                throw std::runtime_error("column " + name + " is missing");
            return decompress(*it->second);
        };
        const auto has = [&](const std::string &name) { return byName.count(name) > 0; };

        const std::string metaBytes = raw("meta");
        const json meta = json::from_cbor(metaBytes);
        if (meta.at("layout").get<std::string>() != layoutId())
            throw std::runtime_error("written with another layout");
        SourceBuilder b(meta.at("source").at("path").get<std::string>());
        meta.at("source").get_to(b.m_source);
        meta.at("steps").get_to(b.m_steps);
        meta.at("collectives").get_to(b.m_collectives);
        meta.at("ooms").get_to(b.m_ooms);
        meta.at("memorySummaries").get_to(b.m_memorySummaries);
        meta.at("logs").get_to(b.m_logs);
        meta.at("allocator").get_to(b.m_allocator);
        meta.at("gpus").get_to(b.m_gpus);
        meta.at("flight").get_to(b.m_flight);

        const auto readTexts = [&](const std::string &name, auto add) {
            const auto lengths = arrayOf<std::uint32_t>(raw(name + ".len"), name + ".len");
            const std::string data = raw(name + ".data");
            std::size_t at = 0;
            for (std::uint32_t n : lengths) {
                if (at + n > data.size())
                    throw std::runtime_error("column " + name + ".data is shorter than its lengths");
                add(std::string_view(data).substr(at, n));
                at += n;
            }
        };
        std::size_t expect = 1;
        readTexts("strings", [&](std::string_view s) {
            if (b.m_strings.intern(s) != expect++)
                throw std::runtime_error("the string pool holds a repeated string");
        });
        expect = 1;
        readTexts("args", [&](std::string_view s) {
            if (b.m_args.add(s) != expect++)
                throw std::runtime_error("the args arena holds an empty entry");
        });

        const json &tracks = meta.at("tracks");
        b.m_tracks.resize(tracks.size());
        for (std::size_t i = 0; i < tracks.size(); ++i) {
            const json &j = tracks[i];
            Track &t = b.m_tracks[i];
            j.at("kind").get_to(t.kind);
            j.at("rank").get_to(t.rank);
            j.at("source").get_to(t.source);
            j.at("name").get_to(t.name);
            j.at("pid").get_to(t.pid);
            j.at("tid").get_to(t.tid);
            j.at("device").get_to(t.device);
            j.at("sortIndex").get_to(t.sortIndex);
            j.at("maxDepth").get_to(t.maxDepth);
            const std::string p = "t" + std::to_string(i) + ".";
            if (has(p + "spans")) {
                t.spans = arrayOf<Span>(raw(p + "spans"), p + "spans");
                t.levelBegin = arrayOf<std::uint32_t>(raw(p + "levels"), p + "levels");
            }
            if (has(p + "instants"))
                t.instants = arrayOf<Instant>(raw(p + "instants"), p + "instants");
            if (has(p + "times")) {
                t.counter.times = arrayOf<TimeNs>(raw(p + "times"), p + "times");
                t.counter.values = arrayOf<double>(raw(p + "values"), p + "values");
                if (t.counter.times.size() != t.counter.values.size())
                    throw std::runtime_error("track " + std::to_string(i) + ": counter times and values differ in count");
            }
            // Names and args are ids into the pools just read: one out of range is damage.
            for (const Span &s : t.spans)
                if (s.name >= b.m_strings.size() || s.category >= b.m_strings.size() || s.args > b.m_args.count())
                    throw std::runtime_error("track " + std::to_string(i) + ": a span names a string or args it does not have");
        }
        b.m_args.shrink();
        return b;
    } catch (const std::exception &e) {
        if (error)
            *error = e.what();
        return std::nullopt;
    }
}

} // namespace rs
