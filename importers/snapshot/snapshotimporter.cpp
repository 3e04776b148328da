#include "snapshotimporter.h"

#include "pickle/restrictedunpickler.h"
#include "plausible.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

namespace rs {

namespace {

constexpr std::size_t kMaxPickle = std::size_t(4) << 30;

// Compact JSON for small settings dicts; depth-limited because memo references can form cycles.
void toJson(const PickleValue &v, std::string &out, int depth)
{
    if (depth > 8) {
        out += "null";
        return;
    }
    switch (v.type) {
    case PickleValue::Type::None: out += "null"; break;
    case PickleValue::Type::Bool: out += v.boolean ? "true" : "false"; break;
    case PickleValue::Type::Int:
    case PickleValue::Type::BigInt: out += std::to_string(v.integer); break;
    case PickleValue::Type::Float: out += std::to_string(v.real); break;
    case PickleValue::Type::String:
    case PickleValue::Type::Bytes:
        out += '"';
        for (char c : v.text) {
            if (c == '"' || c == '\\')
                out += '\\';
            if (static_cast<unsigned char>(c) >= 0x20)
                out += c;
        }
        out += '"';
        break;
    case PickleValue::Type::List:
    case PickleValue::Type::Tuple:
        out += '[';
        for (std::size_t i = 0; i < v.items.size(); ++i) {
            if (i)
                out += ',';
            toJson(*v.items[i], out, depth + 1);
        }
        out += ']';
        break;
    case PickleValue::Type::Dict:
        out += '{';
        for (std::size_t i = 0; i < v.entries.size(); ++i) {
            if (i)
                out += ',';
            std::string key;
            toJson(*v.entries[i].first, key, depth + 1);
            if (key.empty() || key.front() != '"')
                key = "\"" + key + "\"";
            out += key + ':';
            toJson(*v.entries[i].second, out, depth + 1);
        }
        out += '}';
        break;
    }
}

class SnapshotReader
{
public:
    explicit SnapshotReader(SourceBuilder &out) : m_out(out) {}

    void read(const PickleValue &root)
    {
        std::map<int, std::int64_t> finalAllocated, finalReserved;
        if (root.type == PickleValue::Type::List) {
            // torch.cuda.memory_snapshot() returns the segment list alone: no traces, no settings.
            std::size_t others = 0;
            for (const auto &s : root.items) {
                if (s && isSegment(*s))
                    segment(*s, finalAllocated, finalReserved);
                else
                    ++others;
            }
            if (others > 0)
                m_out.warning("snapshot-not-segment", std::to_string(others) + " of the " + std::to_string(root.items.size())
                                  + " list items are not segment dicts (no total_size or blocks); they are skipped");
            if (m_out.source().counts.segments == 0)
                m_out.error("snapshot-no-segments", "the pickle is a list without any allocator segment in it");
            m_out.source().hasClock = false;
            return;
        }
        if (root.type != PickleValue::Type::Dict) {
            m_out.error("snapshot-not-dict", "the pickle is neither a dict nor a list of segments, so it is not an allocator snapshot");
            return;
        }
        if (const PickleValue *settings = root.get("allocator_settings"))
            toJson(*settings, m_out.allocator().settings, 0);
        if (const PickleValue *segs = root.get("segments"); segs && segs->isList()) {
            for (const auto &s : segs->items)
                if (s && s->type == PickleValue::Type::Dict)
                    segment(*s, finalAllocated, finalReserved);
        } else {
            m_out.warning("snapshot-no-segments", "snapshot has no segments list");
        }
        if (const PickleValue *traces = root.get("device_traces"); traces && traces->isList()) {
            for (std::size_t d = 0; d < traces->items.size(); ++d)
                if (traces->items[d] && traces->items[d]->isList())
                    trace(int(d), *traces->items[d], finalAllocated[int(d)], finalReserved[int(d)]);
        }
        m_out.source().hasClock = m_hasClock && m_anyTimed;
        if (!m_anyTimed && m_out.source().counts.traceEntries > 0)
            m_out.warning("snapshot-no-time", "trace entries carry no time_us (PyTorch before ~2.3): they are placed 1 µs apart in trace "
                          "order and the snapshot has no wall clock");
    }

    /// One counted warning for every number the model could not take, with the first one's offset.
    void reportImplausible()
    {
        if (m_implausible == 0)
            return;
        m_out.warning("snapshot-value-implausible",
                      std::to_string(m_implausible) + " numbers no allocator writes (sizes of 2^50 bytes or more or negative, "
                          "times negative or past 2100, device ids past 1023, totals that overflow) were not used, with the "
                          "segment, block or trace entry holding them; the first: " + m_firstImplausible,
                      -1, m_implausibleOffset);
    }

private:
    void implausible(const PickleValue &v, std::string_view what)
    {
        if (m_implausible++ == 0) {
            m_firstImplausible = std::string(what) + " = " + (v.type == PickleValue::Type::Int ? std::to_string(v.integer) : std::string("(beyond 64 bits)"));
            m_implausibleOffset = v.offset;
        }
    }
    // A byte count under `key`: 0 when absent or not a number (as intOr), nullopt when implausible.
    std::optional<std::int64_t> bytesOf(const PickleValue &d, std::string_view key)
    {
        const PickleValue *v = d.get(key);
        if (!v || (v->type != PickleValue::Type::Int && v->type != PickleValue::Type::BigInt))
            return 0;
        if (v->type == PickleValue::Type::Int && plausible::bytes(v->integer))
            return v->integer;
        implausible(*v, key);
        return std::nullopt;
    }
    // Adds without wrapping; false (reported) when the sum leaves the plausible range.
    bool addBytes(std::int64_t &sum, std::int64_t delta, const PickleValue &at, std::string_view what)
    {
        std::int64_t next = 0;
        if (__builtin_add_overflow(sum, delta, &next) || next <= -plausible::kMaxBytes || next >= plausible::kMaxBytes) {
            implausible(at, what);
            return false;
        }
        sum = next;
        return true;
    }

    static bool isSegment(const PickleValue &s)
    {
        return s.type == PickleValue::Type::Dict && (s.get("total_size") || s.get("blocks"));
    }

    std::int32_t stack(const PickleValue *frames)
    {
        if (!frames || !frames->isList() || frames->items.empty())
            return -1;
        // Snapshots share frame lists through the memo: one stack per distinct list object.
        if (auto it = m_stacks.find(frames); it != m_stacks.end())
            return it->second;
        // ... and by content: every trace entry pickles a frame list of its own, and a training loop
        // allocates from the same stack at every step. Kept once, a history's stacks take a small
        // part of the memory they took (ftcourse: 4,127 allocations).
        std::string key;
        for (const auto &f : frames->items) {
            if (!f || f->type != PickleValue::Type::Dict)
                continue;
            key += f->stringOr("filename");
            key += '\0';
            key += f->stringOr("name");
            key += '\0';
            key += std::to_string(f->intOr("line", 0));
            key += '\n';
        }
        if (auto it = m_stackContents.find(key); it != m_stackContents.end()) {
            m_stacks.emplace(frames, it->second);
            return it->second;
        }
        std::vector<StackFrame> out;
        out.reserve(frames->items.size());
        for (const auto &f : frames->items) {
            if (!f || f->type != PickleValue::Type::Dict)
                continue;
            out.push_back({std::string(f->stringOr("filename")), std::string(f->stringOr("name")),
                           static_cast<std::int32_t>(f->intOr("line", 0))});
        }
        auto &stacks = m_out.allocator().stacks;
        stacks.push_back(std::move(out));
        const auto id = static_cast<std::int32_t>(stacks.size() - 1);
        m_stacks.emplace(frames, id);
        m_stackContents.emplace(std::move(key), id);
        return id;
    }

    void segment(const PickleValue &s, std::map<int, std::int64_t> &allocated, std::map<int, std::int64_t> &reserved)
    {
        SegmentRecord seg;
        const std::int64_t device = s.intOr("device", 0);
        if (device < 0 || device > 1023) {
            implausible(*s.get("device"), "device");
            return;
        }
        seg.device = static_cast<std::int32_t>(device);
        seg.address = static_cast<std::uint64_t>(s.intOr("address", 0));
        const auto total = bytesOf(s, "total_size"), allocatedSize = bytesOf(s, "allocated_size"), active = bytesOf(s, "active_size");
        if (!total || !allocatedSize || !active)
            return;
        seg.totalSize = *total;
        seg.allocatedSize = *allocatedSize;
        seg.activeSize = *active;
        seg.large = s.stringOr("segment_type") != "small";
        seg.expandable = s.intOr("is_expandable", 0) != 0;
        if (const PickleValue *pool = s.get("segment_pool_id"); pool && pool->isList())
            for (const auto &x : pool->items)
                seg.privatePool = seg.privatePool || (x && x->isInt() && x->integer != 0);
        seg.stack = stack(s.get("frames"));
        if (const PickleValue *blocks = s.get("blocks"); blocks && blocks->isList()) {
            // PyTorch 2.0 blocks carry no address; they tile the segment in order, so it follows.
            std::uint64_t next = seg.address;
            for (const auto &b : blocks->items) {
                if (!b || b->type != PickleValue::Type::Dict)
                    continue;
                SegmentRecord::Block blk;
                const auto size = bytesOf(*b, "size"), requested = bytesOf(*b, "requested_size");
                if (!size || !requested)
                    continue;
                blk.size = *size;
                blk.address = b->get("address") ? static_cast<std::uint64_t>(b->intOr("address", 0)) : next;
                next = blk.address + static_cast<std::uint64_t>(std::max<std::int64_t>(blk.size, 0));
                blk.requested = *requested;
                const std::string_view state = b->stringOr("state");
                blk.state = state == "active_allocated" ? SegmentRecord::Block::State::Allocated
                    : (state == "active_awaiting_free" || state == "active_pending_free")
                    ? SegmentRecord::Block::State::AwaitingFree
                    : SegmentRecord::Block::State::Inactive;
                blk.stack = stack(b->get("frames"));
                // PyTorch 2.0 keeps a per-block "history" of {addr, real_size, frames}, newest last.
                if (const PickleValue *history = b->get("history"); blk.stack < 0 && history && history->isList()
                    && !history->items.empty() && history->items.back())
                    blk.stack = stack(history->items.back()->get("frames"));
                seg.blocks.push_back(blk);
            }
        }
        if (!addBytes(allocated[seg.device], seg.allocatedSize, s, "allocated_size total")
            || !addBytes(reserved[seg.device], seg.totalSize, s, "total_size total"))
            return;
        ++m_out.source().counts.segments;
        m_out.allocator().segments.push_back(std::move(seg));
    }

    void trace(int device, const PickleValue &entries, std::int64_t finalAllocated, std::int64_t finalReserved)
    {
        const std::string dev = "cuda:" + std::to_string(device);
        std::vector<TimeNs> times;
        std::vector<std::int64_t> allocDelta, reserveDelta;
        std::unordered_map<std::uint64_t, std::size_t> open; // address → allocation record index
        auto &allocs = m_out.allocator().allocations;
        std::int64_t seq = 0;
        for (const auto &e : entries.items) {
            ++m_out.source().counts.traceEntries;
            if (!e || e->type != PickleValue::Type::Dict) {
                ++seq;
                continue;
            }
            const PickleValue *t = e->get("time_us");
            TimeNs time = seq * 1000;
            if (t && t->isInt()) {
                // Epoch µs up to 2100 (or small relative ones); anything else is no allocator's clock.
                if (t->integer < 0 || t->integer >= plausible::kMaxEpochNs / 1000) {
                    implausible(*t, "time_us");
                    ++seq;
                    continue;
                }
                time = t->integer * 1000;
                m_anyTimed = true;
            } else {
                m_hasClock = false;
            }
            const std::string_view action = e->stringOr("action");
            const auto checkedSize = bytesOf(*e, "size");
            if (!checkedSize) {
                ++seq;
                continue;
            }
            const std::int64_t size = *checkedSize;
            const auto addr = static_cast<std::uint64_t>(e->intOr("addr", 0));
            std::int64_t da = 0, dr = 0;
            if (action == "alloc") {
                da = size;
                AllocationRecord a;
                a.device = device;
                a.time = time;
                a.address = addr;
                a.size = size;
                a.sequence = seq;
                a.stack = stack(e->get("frames"));
                open[addr] = allocs.size();
                allocs.push_back(a);
            } else if (action == "free_completed") {
                da = -size;
                if (auto it = open.find(addr); it != open.end()) {
                    allocs[it->second].freed = time;
                    open.erase(it);
                }
            } else if (action == "segment_alloc" || action == "segment_map") {
                dr = size;
            } else if (action == "segment_free" || action == "segment_unmap") {
                dr = -size;
            } else if (action == "oom") {
                OomEvent o;
                o.device = device;
                o.time = (t && t->isInt()) ? time : kNoTime;
                o.requested = size;
                const std::int64_t freeBytes = e->intOr("device_free", -1);
                o.free = plausible::bytes(freeBytes) ? freeBytes : -1;
                o.text = "CUDA out of memory (allocator snapshot oom entry on " + dev + ")";
                m_out.addOom(std::move(o));
                ++m_out.source().counts.oomMessages;
            }
            times.push_back(time);
            allocDelta.push_back(da);
            reserveDelta.push_back(dr);
            ++seq;
        }
        if (times.empty())
            return;
        series(TrackKind::MemoryAllocated, device, "Snapshot allocated (" + dev + ")", times, allocDelta, finalAllocated, entries);
        series(TrackKind::MemoryReserved, device, "Snapshot reserved (" + dev + ")", times, reserveDelta, finalReserved, entries);
    }

    // Running sums anchored so that the last value is the snapshot's own total.
    void series(TrackKind kind, int device, const std::string &name, const std::vector<TimeNs> &times,
                const std::vector<std::int64_t> &delta, std::int64_t finalValue, const PickleValue &entries)
    {
        // Each delta is below 2^50 but millions of them could still wrap: stop at 2^62, and leave a
        // series whose values no GPU could hold out of the model.
        constexpr std::int64_t kWide = std::int64_t(1) << 62;
        std::int64_t total = 0, low = 0, high = 0;
        for (auto d : delta) {
            total += d; // |total| < 2^62 before, |d| < 2^50: no overflow
            if (total <= -kWide || total >= kWide) {
                implausible(entries, name);
                return;
            }
            low = std::min(low, total);
            high = std::max(high, total);
        }
        const std::int64_t start = finalValue - total;
        if (start + low <= -plausible::kMaxBytes || start + high >= plausible::kMaxBytes) {
            implausible(entries, name);
            return;
        }
        const TrackId id = m_out.track(kind, 0, 0, device);
        m_out.trackAt(id).name = m_out.intern(name);
        std::int64_t running = start;
        for (std::size_t i = 0; i < times.size(); ++i) {
            running += delta[i];
            // Only changes make samples; an unchanged value adds nothing to a step curve.
            if (delta[i] != 0 || i == 0 || i + 1 == times.size())
                m_out.addCounterSample(id, times[i], double(running));
        }
    }

    SourceBuilder &m_out;
    std::int64_t m_implausible = 0;
    std::string m_firstImplausible;
    std::int64_t m_implausibleOffset = -1;
    std::unordered_map<const PickleValue *, std::int32_t> m_stacks;
    std::unordered_map<std::string, std::int32_t> m_stackContents; // frames as text → stack id
    bool m_hasClock = true;
    bool m_anyTimed = false;
};

} // namespace

bool readWhole(InputStream &in, ImportContext &ctx, std::string &out, std::size_t limit, std::string *error)
{
    constexpr std::size_t kChunk = 1 << 20;
    for (;;) {
        const std::size_t have = out.size();
        out.resize(have + kChunk);
        const std::size_t got = in.read(out.data() + have, kChunk);
        out.resize(have + got);
        ctx.reportProgress(in.compressedBytesRead(), in.compressedSize());
        if (got == 0 || ctx.isCancelled())
            return true;
        if (out.size() > limit) {
            if (error)
                *error = "file is larger than " + std::to_string(limit >> 20) + " MiB once decompressed; not read";
            return false;
        }
    }
}

int SnapshotImporter::sniff(std::string_view head, std::string_view) const
{
    if (head.size() < 4 || static_cast<unsigned char>(head[0]) != 0x80)
        return 0;
    const auto proto = static_cast<unsigned char>(head[1]);
    if (proto < 2 || proto > 5)
        return 0;
    const std::string_view start = head.substr(0, 512);
    if (start.find("segments") != std::string_view::npos || start.find("device_traces") != std::string_view::npos)
        return 90;
    // A bare segment list (torch.cuda.memory_snapshot()) opens with its first segment's keys.
    const std::string_view first = head.substr(0, 4096);
    if (first.find("total_size") != std::string_view::npos
        && (first.find("segment_type") != std::string_view::npos || first.find("allocated_size") != std::string_view::npos))
        return 85;
    return 0;
}

void SnapshotImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    // Pulled through the unpickler in chunks: only the decoded values are held, never the file.
    RestrictedUnpickler::Limits limits;
    limits.maxBytes = kMaxPickle;
    RestrictedUnpickler::Error failure;
    const PickleRef root = RestrictedUnpickler::load(RestrictedUnpickler::fromStream(in, ctx), limits, failure);
    if (ctx.isCancelled())
        return;
    if (!root) {
        out.error(failure.code, failure.message, -1, failure.offset);
        return;
    }
    SnapshotReader reader(out);
    reader.read(*root);
    reader.reportImplausible();
}

} // namespace rs
