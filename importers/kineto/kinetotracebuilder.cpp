#include "kinetotracebuilder.h"

#include "plausible.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace rs {

namespace {

constexpr TimeNs kMaxTime = KinetoMetadata::kMaxTime;
// pids/tids written as non-numeric strings ("Spans", "") get ids below this, one per distinct string.
constexpr std::int64_t kSyntheticBase = -(std::int64_t{1} << 40);
constexpr std::uint16_t kFlagsKnown = 0x8000;

enum NameKind : std::uint8_t {
    NameStep = 1 << 0,      // ProfilerStep#N
    NameNccl = 1 << 1,      // nccl*/rccl* (a collective when it is a kernel)
    NameCommsOp = 1 << 2,   // record_param_comms
    NameMemory = 1 << 3,    // [memory]
    NameOom = 1 << 4,       // [OutOfMemory]
    NameKnown = 1 << 7,
};

bool startsWithNoCase(std::string_view s, std::string_view prefix)
{
    if (s.size() < prefix.size())
        return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i])
            return false;
    return true;
}

bool isSynthetic(std::int64_t id)
{
    return id <= kSyntheticBase && id > kSyntheticBase - (std::int64_t{1} << 32);
}

// "ncclKernel_AllReduce_RING_LL_Sum_float(...)" -> "AllReduce"; the kernel name when no op shows.
std::string_view opFromKernelName(std::string_view name)
{
    name = name.substr(0, name.find('('));
    const auto us = name.find('_');
    if (us == std::string_view::npos)
        return name;
    const std::string_view op = name.substr(us + 1, name.find('_', us + 1) - us - 1);
    if (op.empty() || op == "Generic" || (op[0] >= '0' && op[0] <= '9'))
        return name;
    return op;
}

} // namespace

KinetoTraceBuilder::KinetoTraceBuilder(SourceBuilder &out, KinetoMetadata &metadata) : m_out(out), m_metadata(metadata) {}

JsonRaw KinetoTraceBuilder::unquoted(const JsonRaw &v)
{
    // Old Kineto inserted some collective strings already quoted, so they arrive as "\"allreduce\"".
    JsonRaw out = v;
    out.text = v.toText(m_scratch);
    out.escaped = false;
    if (out.isString() && out.text.size() >= 2 && out.text.front() == '"' && out.text.back() == '"')
        out.text = out.text.substr(1, out.text.size() - 2);
    return out;
}

bool KinetoTraceBuilder::readTime(const JsonRaw &v, TimeNs &out)
{
    const auto ns = v.present() ? JsonRaw::microsToNs(v.text) : std::nullopt;
    if (!ns || *ns < -kMaxTime || *ns > kMaxTime) {
        m_badTimes.add(m_eventOffset);
        return false;
    }
    out = *ns;
    return true;
}

std::int64_t KinetoTraceBuilder::idOf(const JsonRaw &v)
{
    if (!v.present())
        return 0;
    if (const auto n = v.toInt())
        return *n;
    // Old traces name GPU rows "stream 7" in tid itself.
    constexpr std::string_view kStream = "stream ";
    if (v.text.starts_with(kStream)) {
        const JsonRaw rest{v.text.substr(kStream.size()), JsonRaw::Kind::Token, false};
        if (const auto n = rest.toInt())
            return *n;
    }
    return kSyntheticBase - static_cast<std::int64_t>(m_out.intern(v.text));
}

StringId KinetoTraceBuilder::category(const JsonRaw &cat)
{
    // Consecutive events mostly share a category; skip the hash lookup then.
    if (cat.text != m_lastCatText) {
        m_lastCatText.assign(cat.text);
        m_lastCat = m_out.intern(cat.text);
    }
    return m_lastCat;
}

std::uint16_t KinetoTraceBuilder::categoryFlags(StringId cat)
{
    if (cat >= m_catFlags.size())
        m_catFlags.resize(cat + 1, 0);
    if (m_catFlags[cat] & kFlagsKnown)
        return m_catFlags[cat] & ~kFlagsKnown;
    // Both vocabularies: current ActivityType names and the 2021 ones (Kernel, Memcpy, Runtime...).
    static const std::unordered_map<std::string_view, std::uint16_t> kFlags = {
        {"kernel", SpanFlagGpu | SpanFlagKernel},         {"Kernel", SpanFlagGpu | SpanFlagKernel},
        {"gpu_memcpy", SpanFlagGpu | SpanFlagMemcpy},     {"Memcpy", SpanFlagGpu | SpanFlagMemcpy},
        {"gpu_memset", SpanFlagGpu | SpanFlagMemset},     {"Memset", SpanFlagGpu | SpanFlagMemset},
        {"gpu_user_annotation", SpanFlagGpu | SpanFlagAnnotation},
        {"cuda_sync", SpanFlagGpu},                       {"cuda_event", SpanFlagGpu},
        {"user_annotation", SpanFlagAnnotation},
        {"cuda_runtime", SpanFlagRuntime},                {"cuda_driver", SpanFlagRuntime},
        {"Runtime", SpanFlagRuntime},                     {"mtia_runtime", SpanFlagRuntime},
        {"xpu_runtime", SpanFlagRuntime},                 {"xpu_driver", SpanFlagRuntime},
        {"privateuse1_runtime", SpanFlagRuntime},         {"privateuse1_driver", SpanFlagRuntime},
    };
    const auto it = kFlags.find(m_out.str(cat));
    const std::uint16_t flags = it == kFlags.end() ? 0 : it->second;
    m_catFlags[cat] = flags | kFlagsKnown;
    return flags;
}

std::uint8_t KinetoTraceBuilder::nameKind(StringId name)
{
    if (name >= m_nameKinds.size())
        m_nameKinds.resize(name + 1, 0);
    if (m_nameKinds[name] & NameKnown)
        return m_nameKinds[name] & ~NameKnown;
    const std::string_view s = m_out.str(name);
    constexpr std::string_view kStep = "ProfilerStep#";
    std::uint8_t kind = 0;
    if (s.starts_with(kStep) && s.size() > kStep.size() && s[kStep.size()] >= '0' && s[kStep.size()] <= '9')
        kind |= NameStep;
    if (startsWithNoCase(s, "nccl") || startsWithNoCase(s, "rccl"))
        kind |= NameNccl;
    if (s == "record_param_comms")
        kind |= NameCommsOp;
    if (s == "[memory]")
        kind |= NameMemory;
    if (s == "[OutOfMemory]")
        kind |= NameOom;
    m_nameKinds[name] = kind | NameKnown;
    return kind;
}

std::uint16_t KinetoTraceBuilder::spanFlags(std::uint16_t catFlags, std::uint8_t kind) const
{
    std::uint16_t flags = catFlags;
    if (kind & NameStep)
        flags |= SpanFlagStep;
    if ((kind & NameCommsOp) || ((kind & NameNccl) && (catFlags & SpanFlagKernel)))
        flags |= SpanFlagCollective;
    return flags;
}

TrackId KinetoTraceBuilder::threadTrack(ThreadKey key, bool gpu)
{
    if (m_lastTrack != kNoTrack && key == m_lastKey && gpu == m_lastGpu)
        return m_lastTrack;
    auto &tracks = m_threadTracks[gpu ? 1 : 0];
    auto it = tracks.find(key);
    if (it == tracks.end()) {
        // GPU rows use pid = device index and tid = stream (FORMATS.md §1.5).
        const std::int32_t device = gpu && key.pid >= 0 && key.pid <= INT32_MAX ? static_cast<std::int32_t>(key.pid) : -1;
        it = tracks.emplace(key, m_out.track(gpu ? TrackKind::GpuStream : TrackKind::CpuThread, key.pid, key.tid, device)).first;
    }
    m_lastKey = key;
    m_lastGpu = gpu;
    m_lastTrack = it->second;
    return it->second;
}

TrackId KinetoTraceBuilder::memoryTrack(TrackKind kind, std::int32_t device)
{
    const auto key = std::make_pair(static_cast<int>(kind), device);
    if (const auto it = m_memoryTracks.find(key); it != m_memoryTracks.end())
        return it->second;
    const TrackId id = m_out.track(kind, 0, 0, device);
    const std::string what = kind == TrackKind::MemoryAllocated ? "memory allocated" : "memory reserved";
    m_out.trackAt(id).name = m_out.intern(device < 0 ? "CPU " + what : "GPU " + std::to_string(device) + " " + what);
    m_memoryTracks.emplace(key, id);
    return id;
}

TrackId KinetoTraceBuilder::counterTrack(std::string_view name, std::string_view key, std::int64_t pid)
{
    std::string label(name);
    if (!key.empty())
        label.append(" ").append(key);
    if (const auto it = m_counterTracks.find(label); it != m_counterTracks.end())
        return it->second;
    // The track index stands in for tid: (pid, name) identifies a counter, not (pid, tid).
    const TrackId id = m_out.track(TrackKind::Counter, pid, static_cast<std::int64_t>(m_counterTracks.size()));
    m_out.trackAt(id).name = m_out.intern(label);
    m_counterTracks.emplace(std::move(label), id);
    return id;
}

ArgsId KinetoTraceBuilder::args(const JsonEvent &ev)
{
    return ev.args.size() > 2 ? m_out.addArgs(ev.args) : kNoArgs; // "{}" says nothing
}

void KinetoTraceBuilder::noteTime(TimeNs begin, TimeNs end)
{
    if (!m_firstTime) {
        m_firstTime = begin;
        m_lastTime = end;
    }
    m_lastTime = std::max(m_lastTime, end);
}

void KinetoTraceBuilder::addEvent(const JsonEvent &ev)
{
    m_eventOffset = ev.offset;
    if (ev.ph.text.size() != 1) {
        if (ev.ph.text.empty())
            m_noPhase.add(ev.offset);
        else
            m_ignored.add(ev.offset);
        return;
    }
    switch (ev.ph.text[0]) {
    case 'X': addComplete(ev); break;
    case 'B': addBegin(ev); break;
    case 'E': addEnd(ev); break;
    case 'i':
    case 'I': addInstant(ev); break;
    case 'C': addCounter(ev); break;
    case 'M': m_metadata.addThreadMetadata(ev, idOf(ev.pid), idOf(ev.tid)); break;
    case 's': addFlow(ev, true); break;
    case 'f': addFlow(ev, false); break;
    case 't': break; // a flow's intermediate step: Kineto writes none, and it binds nothing new
    default:
        m_ignored.add(ev.offset);
        if (m_ignoredPhases.find(ev.ph.text[0]) == std::string::npos && m_ignoredPhases.size() < 16)
            m_ignoredPhases.push_back(ev.ph.text[0]);
        break;
    }
}

void KinetoTraceBuilder::addFlow(const JsonEvent &ev, bool start)
{
    TimeNs t = 0;
    if (!ev.id.present() || !readTime(ev.ts, t))
        return;
    FlowPoint p;
    p.id = idOf(ev.id);
    p.time = t;
    p.kind = flowKindOf(ev.cat.present() ? ev.cat.text : ev.name.text);
    p.start = start;
    // Chrome's rule: an `f` binds to the next slice unless "bp": "e" says the enclosing one.
    p.enclosing = start || ev.bp.text == "e";
    const ThreadKey key = keyOf(ev);
    const auto cpu = m_threadTracks[0].find(key);
    const auto gpu = m_threadTracks[1].find(key);
    if (cpu == m_threadTracks[0].end() && gpu == m_threadTracks[1].end()) {
        m_unplacedFlows.emplace_back(key, p);
        return;
    }
    // Kineto writes the arrow's ends right after their events, so the lanes are mostly known.
    p.track = gpu != m_threadTracks[1].end() ? gpu->second : cpu->second;
    p.altTrack = gpu != m_threadTracks[1].end() && cpu != m_threadTracks[0].end() ? cpu->second : kNoTrack;
    m_out.addFlowPoint(p);
}

void KinetoTraceBuilder::resolveFlows()
{
    for (auto &[key, p] : m_unplacedFlows) {
        const auto cpu = m_threadTracks[0].find(key);
        const auto gpu = m_threadTracks[1].find(key);
        p.track = gpu != m_threadTracks[1].end() ? gpu->second : cpu != m_threadTracks[0].end() ? cpu->second : kNoTrack;
        p.altTrack = gpu != m_threadTracks[1].end() && cpu != m_threadTracks[0].end() ? cpu->second : kNoTrack;
        m_out.addFlowPoint(p); // one without a lane counts as unpaired when bound
    }
    m_unplacedFlows = {};
}

void KinetoTraceBuilder::addComplete(const JsonEvent &ev)
{
    TimeNs start = 0;
    TimeNs dur = 0;
    if (!readTime(ev.ts, start) || (ev.dur.present() && !readTime(ev.dur, dur)))
        return;
    const StringId cat = category(ev.cat);
    const std::uint16_t catFlags = categoryFlags(cat);
    const StringId name = m_out.intern(ev.name.text);
    const std::uint8_t kind = nameKind(name);
    const TrackId track = threadTrack(keyOf(ev), catFlags & SpanFlagGpu);
    const Span span{start, std::max<TimeNs>(dur, 0), name, cat, args(ev), 0, spanFlags(catFlags, kind)};
    emitSpan(track, span, kind, &ev);
}

void KinetoTraceBuilder::addBegin(const JsonEvent &ev)
{
    TimeNs start = 0;
    if (!readTime(ev.ts, start))
        return;
    const StringId cat = category(ev.cat);
    const std::uint16_t catFlags = categoryFlags(cat);
    const StringId name = m_out.intern(ev.name.text);
    const std::uint8_t kind = nameKind(name);
    const ThreadKey key = keyOf(ev);
    const TrackId track = threadTrack(key, catFlags & SpanFlagGpu);
    m_open[key].push_back({start, name, cat, args(ev), spanFlags(catFlags, kind), kind, track});
    noteTime(start, start);
}

void KinetoTraceBuilder::addEnd(const JsonEvent &ev)
{
    TimeNs end = 0;
    if (!readTime(ev.ts, end))
        return;
    // Keyed by (pid, tid), not by track: an E often lacks the category that chose the B's track.
    const auto it = m_open.find(keyOf(ev));
    if (it == m_open.end() || it->second.empty()) {
        m_strayEnds.add(m_eventOffset);
        return;
    }
    const OpenSpan open = it->second.back();
    it->second.pop_back();
    const ArgsId spanArgs = open.args != kNoArgs ? open.args : args(ev);
    const Span span{open.start, std::max<TimeNs>(end - open.start, 0), open.name, open.category, spanArgs, 0, open.flags};
    emitSpan(open.track, span, open.nameKind, nullptr);
}

void KinetoTraceBuilder::emitSpan(TrackId track, const Span &span, std::uint8_t kind, const JsonEvent *ev)
{
    Span s = span;
    if ((s.flags & SpanFlagKernel) && !(s.flags & SpanFlagCollective) && ev && ev->arg("Collective name"))
        s.flags |= SpanFlagCollective;
    m_out.addSpan(track, s);
    ++m_counts.spans;
    noteTime(s.start, s.end());
    if ((s.flags & SpanFlagStep) && !(s.flags & SpanFlagGpu)) {
        // Only the host-side step counts; the gpu_user_annotation copy mirrors it.
        const std::string_view name = m_out.str(s.name);
        std::int64_t number = 0;
        const auto digits = name.substr(name.find('#') + 1);
        std::from_chars(digits.data(), digits.data() + digits.size(), number);
        m_out.addStep({number, {s.start, s.end()}, track});
        ++m_counts.steps;
    }
    if ((s.flags & SpanFlagCollective) && (s.flags & SpanFlagKernel))
        addCollective(track, s, ev);
    if ((kind & NameCommsOp) && ev && !m_commsRank)
        noteCommsRank(*ev);
}

void KinetoTraceBuilder::addCollective(TrackId track, const Span &span, const JsonEvent *ev)
{
    Collective c;
    c.start = span.start;
    c.end = span.end();
    c.track = track;
    const auto text = [&](const char *key) -> StringId {
        const JsonRaw *v = ev ? ev->arg(key) : nullptr;
        return v ? m_out.intern(unquoted(*v).text) : kEmptyString;
    };
    const auto number = [&](const char *key, std::int64_t fallback) {
        const JsonRaw *v = ev ? ev->arg(key) : nullptr;
        return v ? unquoted(*v).toInt().value_or(fallback) : fallback;
    };
    c.op = text("Collective name");
    if (c.op == kEmptyString)
        c.op = m_out.intern(opFromKernelName(m_out.str(span.name)));
    c.processGroup = text("Process Group Name");
    c.dtype = text("dtype");
    c.inNelems = number("In msg nelems", -1);
    c.outNelems = number("Out msg nelems", -1);
    c.groupSize = JsonRaw::clampToInt32(number("Group size", 0));
    c.seq = number("Seq", -1);
    m_out.addCollective(c);
    ++m_counts.collectives;
}

void KinetoTraceBuilder::noteCommsRank(const JsonEvent &ev)
{
    const JsonRaw *desc = ev.arg("Process Group Description");
    if (!desc || unquoted(*desc).text != "default_pg")
        return;
    if (const JsonRaw *rank = ev.arg("Rank")) {
        if (const auto r = unquoted(*rank).toInt(); r && *r >= 0 && *r <= INT32_MAX) {
            m_commsRank = static_cast<RankId>(*r);
            if (const JsonRaw *size = ev.arg("Group size"))
                m_commsGroupSize = JsonRaw::clampToInt32(unquoted(*size).toInt().value_or(0));
        }
    }
}

void KinetoTraceBuilder::addInstant(const JsonEvent &ev)
{
    TimeNs t = 0;
    if (!readTime(ev.ts, t))
        return;
    const StringId name = m_out.intern(ev.name.text);
    const std::uint8_t kind = nameKind(name);
    if (kind & NameMemory) {
        addMemorySample(ev, t);
        return;
    }
    const StringId cat = category(ev.cat);
    const std::uint16_t catFlags = categoryFlags(cat);
    // Global and process-scoped instants belong to no thread.
    const bool global = ev.s.text == "g" || ev.s.text == "p";
    if (global && m_markers == kNoTrack) {
        m_markers = m_out.track(TrackKind::Markers, 0, 0);
        m_out.trackAt(m_markers).name = m_out.intern("markers");
    }
    const TrackId track = global ? m_markers : threadTrack(keyOf(ev), catFlags & SpanFlagGpu);
    const std::uint16_t flags = spanFlags(catFlags, kind) | ((kind & NameOom) ? SpanFlagOutOfMemory : 0);
    m_out.addInstant(track, Instant{t, name, cat, args(ev), flags});
    ++m_counts.instants;
    noteTime(t, t);
}

void KinetoTraceBuilder::addMemorySample(const JsonEvent &ev, TimeNs t)
{
    ++m_counts.memoryEvents;
    noteTime(t, t);
    const JsonRaw *type = ev.arg("Device Type");
    const JsonRaw *id = ev.arg("Device Id");
    const std::int64_t deviceId = id ? id->toInt().value_or(-1) : -1;
    // c10::DeviceType: 0 = CPU; 1 = CUDA, 6 = HIP (the ROCm sample), others are accelerators too.
    const std::int64_t deviceType = type ? type->toInt().value_or(0) : (deviceId >= 0 ? 1 : 0);
    const std::int32_t device = deviceType == 0 ? -1 : JsonRaw::clampToInt32(std::max<std::int64_t>(deviceId, 0));
    const JsonRaw *allocatedArg = ev.arg("Total Allocated");
    const JsonRaw *reservedArg = ev.arg("Total Reserved");
    std::optional<double> allocated = allocatedArg ? allocatedArg->toDouble() : std::nullopt;
    if (!allocatedArg) {
        // PyTorch ~1.9 wrote only "Bytes": the running sum is the allocation change since the trace began.
        const JsonRaw *bytes = ev.arg("Bytes");
        if (const auto b = bytes ? bytes->toDouble() : std::nullopt; b && std::isfinite(*b)) {
            allocated = m_runningAllocated[device] += *b;
            m_runningSum = true;
        }
    }
    // One absurd total (1e300, negative) would set the memory scale of every rank: not used.
    if (allocated && std::isfinite(*allocated)) {
        // A running sum of "Bytes" is a change since the trace began: it may be negative.
        if (allocatedArg ? plausible::bytes(*allocated) : std::fabs(*allocated) < double(plausible::kMaxBytes))
            m_out.addCounterSample(memoryTrack(TrackKind::MemoryAllocated, device), t, *allocated);
        else
            m_badMemory.add(ev.offset);
    }
    if (const auto reserved = reservedArg ? reservedArg->toDouble() : std::nullopt; reserved && std::isfinite(*reserved)) {
        if (plausible::bytes(*reserved))
            m_out.addCounterSample(memoryTrack(TrackKind::MemoryReserved, device), t, *reserved);
        else
            m_badMemory.add(ev.offset);
    }
}

void KinetoTraceBuilder::addCounter(const JsonEvent &ev)
{
    TimeNs t = 0;
    if (!readTime(ev.ts, t))
        return;
    const std::int64_t pid = idOf(ev.pid);
    bool any = false;
    for (const auto &[key, value] : ev.argList) {
        const auto v = value.toDouble();
        if (!v || !std::isfinite(*v))
            continue;
        m_out.addCounterSample(counterTrack(ev.name.text, key, pid), t, *v);
        ++m_counts.counterSamples;
        any = true;
    }
    if (any)
        noteTime(t, t);
}

void KinetoTraceBuilder::closeUnmatched()
{
    for (auto &[key, stack] : m_open) {
        for (const OpenSpan &open : stack) {
            const Span span{open.start, std::max<TimeNs>(m_lastTime - open.start, 0), open.name, open.category,
                            open.args, 0, static_cast<std::uint16_t>(open.flags | SpanFlagUnmatched)};
            m_out.addSpan(open.track, span); // shown, but not counted: §3 counts matched pairs only
            ++m_unmatched;
            // A ProfilerStep the trace ended inside is still a step of its rank, a cut-off one.
            if ((open.flags & SpanFlagStep) && !(open.flags & SpanFlagGpu)) {
                const std::string_view name = m_out.str(open.name);
                std::int64_t number = 0;
                const auto digits = name.substr(name.find('#') + 1);
                std::from_chars(digits.data(), digits.data() + digits.size(), number);
                Step step{number, {span.start, span.end()}, open.track};
                step.incomplete = true;
                m_out.addStep(step);
            }
        }
        stack.clear();
    }
}

void KinetoTraceBuilder::nameTracks()
{
    for (TrackId id = 0; id < m_out.tracks().size(); ++id) {
        Track &t = m_out.trackAt(id);
        if (t.kind != TrackKind::CpuThread && t.kind != TrackKind::GpuStream)
            continue;
        t.sortIndex = m_metadata.threadSortIndex(t.pid, t.tid).value_or(0);
        if (const std::string *name = m_metadata.threadName(t.pid, t.tid))
            t.name = m_out.intern(*name);
        else if (isSynthetic(t.tid) && !m_out.str(static_cast<StringId>(kSyntheticBase - t.tid)).empty())
            t.name = static_cast<StringId>(kSyntheticBase - t.tid); // the string the trace wrote as tid
        else
            t.name = m_out.intern((t.kind == TrackKind::GpuStream ? "stream " : "thread ") + std::to_string(t.tid));
    }
}

void KinetoTraceBuilder::reportProblems()
{
    const auto n = [](std::int64_t v) { return std::to_string(v); };
    if (m_badTimes.count > 0)
        m_out.warning("event-bad-time",
                      n(m_badTimes.count) + " events have no readable ts/dur (or one past 2065) and were skipped; the first",
                      -1, m_badTimes.firstOffset);
    if (m_noPhase.count > 0)
        m_out.warning("event-no-phase", n(m_noPhase.count) + " events have no \"ph\" and were skipped; the first", -1,
                      m_noPhase.firstOffset);
    if (m_ignored.count > 0)
        m_out.warning("event-phase-ignored",
                      n(m_ignored.count) + " events of phases RankScope does not show (" + m_ignoredPhases + ") were skipped; the first",
                      -1, m_ignored.firstOffset);
    if (m_strayEnds.count > 0)
        m_out.warning("event-stray-end", n(m_strayEnds.count) + " 'E' events have no open 'B' on their thread and were ignored; the first",
                      -1, m_strayEnds.firstOffset);
    if (m_badMemory.count > 0)
        m_out.warning("memory-value-implausible",
                      n(m_badMemory.count) + " [memory] totals past 1 PiB or negative were not used; the first", -1,
                      m_badMemory.firstOffset);
    if (m_unmatched > 0)
        m_out.warning("event-unclosed-begin", n(m_unmatched) + " 'B' events have no matching 'E'; they were closed at the end of the trace");
    if (m_runningSum)
        m_out.warning("memory-no-total-allocated", "[memory] events carry no \"Total Allocated\" (an old PyTorch); the allocated track shows "
                      "the running sum of their \"Bytes\", i.e. the change since the trace started");
}

void KinetoTraceBuilder::finish()
{
    closeUnmatched();
    nameTracks();
    resolveFlows();
    m_metadata.applyClock(m_firstTime);
    m_metadata.applyRanks(m_commsRank, m_commsGroupSize);
    SourceCounts &counts = m_out.source().counts;
    counts.spans = m_counts.spans;
    counts.instants = m_counts.instants;
    counts.memoryEvents = m_counts.memoryEvents;
    counts.counterSamples = m_counts.counterSamples;
    counts.steps = m_counts.steps;
    counts.collectives = m_counts.collectives;
    reportProblems();
}

} // namespace rs
