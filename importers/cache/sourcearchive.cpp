#include "sourcearchive.h"

#include <nlohmann/json.hpp>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <sys/mman.h>
#include <map>
#include <stdexcept>
#include <type_traits>

// Every record with text or nesting, field by field. from_json reads each key with at(): a field
// missing from an entry written by another layout throws, and the entry is re-imported.
namespace rs {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TimeRange, begin, end)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Diagnostic::Example, line, offset, message)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Diagnostic, severity, code, message, line, offset, count, examples)
// With defaults: counts added since an older layout read as 0 from its entries.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SourceCounts, spans, instants, memoryEvents, counterSamples, steps, collectives, logLines,
                                   warnings, memorySummaries, oomMessages, gpuSamples, segments, traceEntries,
                                   flows, flowEndsUnpaired)
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
// The records are a raw column of their own ("logs.records"); layouts before /4 had them here.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LogEvidence, comms, settings, calls, timeouts, failures, progress, jobEvents, processes)
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

// A track's own fields; its spans, instants and samples are raw columns of their own.
struct TrackHead {
    TrackKind kind = TrackKind::CpuThread;
    RankId rank = kNoRank;
    SourceId source = 0;
    StringId name = 0;
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::int32_t device = -1;
    std::int32_t sortIndex = 0;
    std::uint16_t maxDepth = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TrackHead, kind, rank, source, name, pid, tid, device, sortIndex, maxDepth)
} // namespace rs

namespace rs {

namespace {

using nlohmann::json;

// A step as the "steps" column stores it: a training log has one per rank and line, millions of
// them, too many for the meta document.
struct StoredStep {
    std::int64_t number;
    TimeNs begin;
    TimeNs end;
    TrackId track;
    std::uint8_t fromLog;
    std::uint8_t incomplete;
    std::uint16_t zero;
};
static_assert(std::has_unique_object_representations_v<StoredStep>);

// The raw columns hold these records byte for byte; the layout id names their sizes so an entry
// written by a build with another layout is never read.
static_assert(std::is_trivially_copyable_v<Span> && std::is_trivially_copyable_v<Instant>);
static_assert(std::is_trivially_copyable_v<LogRecord> && std::has_unique_object_representations_v<LogRecord>,
              "a log record is stored byte for byte: no padding, no pointers");

template <typename T>
std::string_view bytesOf(const std::vector<T> &v)
{
    static_assert(std::is_trivially_copyable_v<T>);
    return {reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T)};
}

// Compresses `raw` in blocks of the given sizes (their sum is raw's size).
SourceArchive::Column compressBlocks(std::string name, std::string_view raw, const std::vector<std::size_t> &sizes)
{
    SourceArchive::Column c;
    c.name = std::move(name);
    c.rawBytes = raw.size();
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    // Level 1: the cache is written while the user waits for the first open; reading is as fast.
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1); // the frame's checksum detects damage on reading
    std::size_t at = 0;
    std::string out; // one scratch buffer; each block keeps only its compressed bytes
    for (std::size_t n : sizes) {
        out.resize(ZSTD_compressBound(n));
        const std::size_t written = ZSTD_compress2(cctx, out.data(), out.size(), raw.data() + at, n);
        if (ZSTD_isError(written)) {
            ZSTD_freeCCtx(cctx);
            throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(written));
        }
        c.blocks.emplace_back(out.data(), written);
        c.blockRaw.push_back(n);
        at += n;
    }
    ZSTD_freeCCtx(cctx);
    return c;
}

SourceArchive::Column compress(std::string name, std::string_view raw)
{
    std::vector<std::size_t> sizes;
    for (std::size_t at = 0; at < raw.size(); at += SourceArchive::kBlockBytes)
        sizes.push_back(std::min(SourceArchive::kBlockBytes, raw.size() - at));
    if (sizes.empty())
        sizes.push_back(0); // an empty column is one empty frame, so it exists
    return compressBlocks(std::move(name), raw, sizes);
}

// Reading a large trace back is mostly first touches of fresh memory; on a virtual machine every 4 KiB
// page fault is dear. Where the kernel makes transparent huge pages on request, ask for them.
void adviseHugePages(void *data, std::size_t bytes)
{
#ifdef MADV_HUGEPAGE
    constexpr std::uintptr_t kHuge = 2u << 20;
    if (bytes < 2 * kHuge)
        return;
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHuge - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

// A column of records decompressed straight into the vector that keeps them (no staging copy:
// for a large trace these columns are most of what a reopen reads).
template <typename T>
std::vector<T> arrayOf(const SourceArchive::ColumnSource &source, const std::string &name)
{
    static_assert(std::is_trivially_copyable_v<T>);
    const std::uint64_t bytes = source.rawBytes(name);
    if (bytes % sizeof(T))
        throw std::runtime_error("column " + name + " does not hold whole records");
    std::vector<T> v;
    v.reserve(bytes / sizeof(T));
    adviseHugePages(v.data(), bytes);
    v.resize(bytes / sizeof(T));
    source.read(name, reinterpret_cast<char *>(v.data()));
    return v;
}

// Columns held in memory, as write() makes them.
class MemoryColumns final : public SourceArchive::ColumnSource
{
public:
    explicit MemoryColumns(const std::vector<SourceArchive::Column> &columns)
    {
        for (const SourceArchive::Column &c : columns)
            m_byName[c.name] = &c;
    }
    bool has(const std::string &name) const override { return m_byName.count(name) > 0; }
    std::uint64_t rawBytes(const std::string &name) const override { return get(name).rawBytes; }
    void read(const std::string &name, char *out) const override
    {
        const SourceArchive::Column &c = get(name);
        std::size_t at = 0;
        for (std::size_t b = 0; b < c.blocks.size(); ++b) {
            const std::size_t n = b < c.blockRaw.size() ? c.blockRaw[b] : c.rawBytes - at;
            if (at + n > c.rawBytes || !SourceArchive::decompressBlock(c.blocks[b], out + at, n))
                throw std::runtime_error("column " + name + " is damaged");
            at += n;
        }
        if (at != c.rawBytes)
            throw std::runtime_error("column " + name + " is shorter than recorded");
    }

private:
    const SourceArchive::Column &get(const std::string &name) const
    {
        const auto it = m_byName.find(name);
        if (it == m_byName.end())
            throw std::runtime_error("column " + name + " is missing");
        return *it->second;
    }
    std::map<std::string, const SourceArchive::Column *, std::less<>> m_byName;
};

// Length-prefixed texts: a column of uint32 lengths and one of the bytes, in id order, in blocks
// that end between entries (so a lazy reader loads whole entries with each block). Each block is
// gathered in one reused buffer: the texts are never concatenated whole (a trace's args can be
// hundreds of MB).
template <typename Get>
void writeTexts(std::vector<SourceArchive::Column> &out, const std::string &name, std::size_t first, std::size_t end, Get get,
                std::size_t maxBlock = SourceArchive::kBlockBytes)
{
    std::vector<std::uint32_t> lengths;
    lengths.reserve(end > first ? end - first : 0);
    std::uint64_t total = 0;
    for (std::size_t i = first; i < end; ++i) {
        lengths.push_back(static_cast<std::uint32_t>(get(i).size()));
        total += lengths.back();
    }
    out.push_back(compress(name + ".len", bytesOf(lengths)));
    if (total == 0) {
        out.push_back(compress(name + ".data", {}));
        return;
    }
    SourceArchive::Column data;
    data.name = name + ".data";
    data.rawBytes = total;
    std::string buffer;
    std::size_t next = first;
    for (std::size_t blockBytes : TextArena::packChunks(lengths, maxBlock)) {
        buffer.clear();
        while (buffer.size() < blockBytes && next < end)
            buffer.append(get(next++));
        // One frame per block even past kBlockBytes (one huge entry): block i is the arena's chunk i.
        SourceArchive::Column block = compressBlocks(data.name, buffer, {buffer.size()});
        for (std::size_t k = 0; k < block.blocks.size(); ++k) {
            data.blocks.push_back(std::move(block.blocks[k]));
            data.blockRaw.push_back(block.blockRaw[k]);
        }
    }
    out.push_back(std::move(data));
}

} // namespace

namespace {

// A lazy arena over the entries of `arena`, chunked as write() stored them.
void release(TextArena &arena, std::size_t maxBlock, std::shared_ptr<const TextArena::ChunkLoader> loader)
{
    if (!loader)
        return;
    std::vector<std::uint32_t> lengths;
    lengths.reserve(arena.count());
    for (std::size_t i = 1; i <= arena.count(); ++i)
        lengths.push_back(static_cast<std::uint32_t>(arena.view(static_cast<TextId>(i)).size()));
    TextArena lazy;
    if (lazy.setLazy(lengths, TextArena::packChunks(lengths, maxBlock), std::move(loader)))
        arena = std::move(lazy);
}

} // namespace

void SourceArchive::releaseTexts(SourceBuilder &b,
                                 const std::function<std::shared_ptr<const TextArena::ChunkLoader>(const std::string &)> &loaderOf)
{
    if (!b.m_args.isLazy())
        release(b.m_args, kBlockBytes, loaderOf(kArgsData));
    if (!b.m_logs.texts.empty() && !b.m_logs.texts.front().isLazy())
        release(b.m_logs.texts.front(), kLogBlockBytes, loaderOf(kLogsData));
}

const std::vector<std::string> &SourceArchive::lazyColumns()
{
    static const std::vector<std::string> names{kArgsData, kLogsData};
    return names;
}

bool SourceArchive::decompressBlock(std::string_view frame, char *out, std::size_t raw)
{
    const std::size_t n = ZSTD_decompress(out, raw, frame.data(), frame.size());
    return !ZSTD_isError(n) && n == raw;
}

namespace {

std::string byteOrder()
{
    const std::uint16_t probe = 1;
    return *reinterpret_cast<const std::uint8_t *>(&probe) ? " le" : " be";
}

} // namespace

std::string SourceArchive::layoutId()
{
    // Record sizes and the byte order: a different build of the model cannot misread an entry.
    return "rankscope-source/4 span" + std::to_string(sizeof(Span)) + " instant" + std::to_string(sizeof(Instant))
        + " flow" + std::to_string(sizeof(Flow)) + " log" + std::to_string(sizeof(LogRecord)) + byteOrder();
}

std::vector<std::string> SourceArchive::previousLayoutIds()
{
    const std::string records = " span" + std::to_string(sizeof(Span)) + " instant" + std::to_string(sizeof(Instant));
    return {"rankscope-source/3" + records + " flow" + std::to_string(sizeof(Flow)) + byteOrder(),
            "rankscope-source/2" + records + byteOrder()};
}

bool SourceArchive::readsLayout(const std::string &id)
{
    if (id == layoutId())
        return true;
    const std::vector<std::string> older = previousLayoutIds();
    return std::find(older.begin(), older.end(), id) != older.end();
}

std::vector<SourceArchive::Column> SourceArchive::write(const SourceBuilder &b)
{
    std::vector<Column> out;
    json tracks = json::array();
    for (const Track &t : b.m_tracks)
        tracks.push_back(TrackHead{t.kind, t.rank, t.source, t.name, t.pid, t.tid, t.device, t.sortIndex, t.maxDepth});
    const json meta = {{"layout", layoutId()},
                       {"source", b.m_source},
                       {"tracks", std::move(tracks)},
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
    // A builder's messages are all in its first arena (its records are of source 0).
    static const TextArena kNoMessages;
    const TextArena &messages = b.m_logs.texts.empty() ? kNoMessages : b.m_logs.texts.front();
    out.push_back(compress("logs.records", bytesOf(b.m_logs.records)));
    std::vector<StoredStep> steps;
    steps.reserve(b.m_steps.size());
    for (const Step &st : b.m_steps)
        steps.push_back({st.number, st.range.begin, st.range.end, st.track, st.fromLog, st.incomplete, 0});
    out.push_back(compress("steps", bytesOf(steps)));
    writeTexts(out, "logs", 1, messages.count() + 1, [&](std::size_t i) { return messages.view(static_cast<TextId>(i)); },
               kLogBlockBytes);
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
    if (!b.m_flows.empty())
        out.push_back(compress("flows", bytesOf(b.m_flows)));
    return out;
}

std::optional<SourceBuilder> SourceArchive::read(const std::vector<Column> &columns, std::string *error, const LazyColumns &lazy)
{
    return read(MemoryColumns(columns), error, lazy);
}

std::optional<SourceBuilder> SourceArchive::read(const ColumnSource &columns, std::string *error, const LazyColumns &lazy)
{
    try {
        const auto raw = [&](const std::string &name) {
            std::string out(columns.rawBytes(name), '\0');
            columns.read(name, out.data());
            return out;
        };
        const auto has = [&](const std::string &name) { return columns.has(name); };

        const std::string metaBytes = raw("meta");
        json meta = json::from_cbor(metaBytes);
        const std::string layout = meta.at("layout").get<std::string>();
        if (!readsLayout(layout))
            throw std::runtime_error("written with another layout");
        // Before /4 the records were in this document, each with its message inline: taken out
        // here, stored once the records are read.
        std::vector<std::string> inlineMessages;
        if (layout != layoutId()) {
            for (json &r : meta.at("logs").at("records")) {
                inlineMessages.push_back(r.at("text").get<std::string>());
                r["text"] = kNoText;
            }
        }
        SourceBuilder b(meta.at("source").at("path").get<std::string>());
        meta.at("source").get_to(b.m_source);
        if (layout != layoutId()) { // before /4 the steps were in this document
            meta.at("steps").get_to(b.m_steps);
        } else {
            for (const StoredStep &st : arrayOf<StoredStep>(columns, "steps")) {
                if (st.fromLog > 1 || st.incomplete > 1 || st.zero != 0)
                    throw std::runtime_error("a step holds values no import writes");
                b.m_steps.push_back({st.number, {st.begin, st.end}, st.track, st.fromLog != 0, st.incomplete != 0});
            }
        }
        meta.at("collectives").get_to(b.m_collectives);
        meta.at("ooms").get_to(b.m_ooms);
        meta.at("memorySummaries").get_to(b.m_memorySummaries);
        meta.at("logs").get_to(b.m_logs);
        if (layout != layoutId())
            meta.at("logs").at("records").get_to(b.m_logs.records);
        meta.at("allocator").get_to(b.m_allocator);
        meta.at("gpus").get_to(b.m_gpus);
        meta.at("flight").get_to(b.m_flight);

        const auto readTexts = [&](const std::string &name, auto add) {
            const auto lengths = arrayOf<std::uint32_t>(columns, name + ".len");
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
        // Held whole when the column is there, else lazy: the entries' places now, their text when
        // first viewed.
        const auto arenaOf = [&](const std::string &name, TextArena &arena) {
            const std::string data = name + ".data";
            if (has(data)) {
                expect = 1;
                readTexts(name, [&](std::string_view s) {
                    if (arena.add(s) != expect++)
                        throw std::runtime_error("the " + name + " arena holds an empty entry");
                });
                return;
            }
            const auto lengths = arrayOf<std::uint32_t>(columns, name + ".len");
            const auto it = lazy.find(data);
            if (it == lazy.end())
                throw std::runtime_error("column " + data + " is missing");
            std::vector<std::size_t> sizes(it->second.blockRaw.begin(), it->second.blockRaw.end());
            if (sizes.size() == 1 && sizes.front() == 0 && lengths.empty())
                sizes.clear();
            if (!it->second.loader || !arena.setLazy(lengths, sizes, it->second.loader))
                throw std::runtime_error("the " + data + " blocks do not match their entries");
        };
        arenaOf("args", b.m_args);
        b.m_logs.texts.resize(1);
        TextArena &messages = b.m_logs.texts.front();
        if (layout != layoutId()) {
            for (std::size_t i = 0; i < inlineMessages.size(); ++i)
                b.m_logs.records[i].text = messages.add(inlineMessages[i]);
        } else {
            b.m_logs.records = arrayOf<LogRecord>(columns, "logs.records");
            arenaOf("logs", messages);
            // Read byte for byte: a value no writer makes is damage.
            for (const LogRecord &r : b.m_logs.records)
                if (r.text > messages.count() || r.source != 0 || r.level > LogLevel::Error || r.kind > LogKind::Other
                    || r.reserved != 0 || r.process < -1 || (r.process >= 0 && std::size_t(r.process) >= b.m_logs.processes.size()))
                    throw std::runtime_error("a log record holds values no import writes");
        }

        const json &tracks = meta.at("tracks");
        b.m_tracks.resize(tracks.size());
        for (std::size_t i = 0; i < tracks.size(); ++i) {
            const auto head = tracks[i].get<TrackHead>();
            Track &t = b.m_tracks[i];
            t.kind = head.kind;
            t.rank = head.rank;
            t.source = head.source;
            t.name = head.name;
            t.pid = head.pid;
            t.tid = head.tid;
            t.device = head.device;
            t.sortIndex = head.sortIndex;
            t.maxDepth = head.maxDepth;
            const std::string p = "t" + std::to_string(i) + ".";
            if (has(p + "spans")) {
                t.spans = arrayOf<Span>(columns, p + "spans");
                t.levelBegin = arrayOf<std::uint32_t>(columns, p + "levels");
            }
            if (has(p + "instants"))
                t.instants = arrayOf<Instant>(columns, p + "instants");
            if (has(p + "times")) {
                t.counter.times = arrayOf<TimeNs>(columns, p + "times");
                t.counter.values = arrayOf<double>(columns, p + "values");
                if (t.counter.times.size() != t.counter.values.size())
                    throw std::runtime_error("track " + std::to_string(i) + ": counter times and values differ in count");
            }
            // Names and args are ids into the pools just read: one out of range is damage.
            for (const Span &s : t.spans)
                if (s.name >= b.m_strings.size() || s.category >= b.m_strings.size() || s.args > b.m_args.count())
                    throw std::runtime_error("track " + std::to_string(i) + ": a span names a string or args it does not have");
        }
        if (has("flows")) {
            b.m_flows = arrayOf<Flow>(columns, "flows");
            // A flow names two spans by index: one that points past its track is damage.
            const auto valid = [&b](const FlowEnd &e) {
                return e.track < b.m_tracks.size() && e.span < b.m_tracks[e.track].spans.size();
            };
            for (const Flow &f : b.m_flows)
                if (!valid(f.from) || !valid(f.to) || f.kind > FlowKind::Other)
                    throw std::runtime_error("a flow names a span its tracks do not have");
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
