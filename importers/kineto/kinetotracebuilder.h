#pragma once
// Maps the events of one Kineto trace onto a SourceBuilder: tracks, spans, instants, memory and
// counter samples, steps and collectives. Times stay raw (trace microseconds as ns) while
// streaming, because baseTimeNanoseconds may only arrive after traceEvents; finish() lets
// KinetoMetadata settle clock and rank once everything was read.

#include "jsoneventparser.h"
#include "kinetometadata.h"
#include "sourcebuilder.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rs {

class KinetoTraceBuilder
{
public:
    /// `metadata` receives the `M` events and settles clock and rank in finish().
    KinetoTraceBuilder(SourceBuilder &out, KinetoMetadata &metadata);

    /// Maps one element of the traceEvents array.
    void addEvent(const JsonEvent &ev);
    /// Closes open B events, names tracks, settles clock, ranks and counts. Call once, last.
    void finish();

private:
    struct ThreadKey {
        std::int64_t pid = 0;
        std::int64_t tid = 0;
        friend bool operator==(const ThreadKey &, const ThreadKey &) = default;
    };
    struct ThreadKeyHash {
        std::size_t operator()(const ThreadKey &k) const
        {
            return std::hash<std::uint64_t>()(static_cast<std::uint64_t>(k.pid) * 0x9E3779B97F4A7C15ULL
                                              ^ static_cast<std::uint64_t>(k.tid));
        }
    };
    // A B event waiting for its E.
    struct OpenSpan {
        TimeNs start = 0;
        StringId name = 0;
        StringId category = 0;
        ArgsId args = kNoArgs;
        std::uint16_t flags = 0;
        std::uint8_t nameKind = 0;
        TrackId track = kNoTrack;
    };
    template <class T>
    using ThreadMap = std::unordered_map<ThreadKey, T, ThreadKeyHash>;

    /// `v` with escapes decoded and one layer of literal quotes removed (valid until the next call).
    JsonRaw unquoted(const JsonRaw &v);
    bool readTime(const JsonRaw &v, TimeNs &out);
    std::int64_t idOf(const JsonRaw &v);
    ThreadKey keyOf(const JsonEvent &ev) { return {idOf(ev.pid), idOf(ev.tid)}; }
    StringId category(const JsonRaw &cat);
    std::uint16_t categoryFlags(StringId cat);
    std::uint8_t nameKind(StringId name);
    std::uint16_t spanFlags(std::uint16_t catFlags, std::uint8_t kind) const;
    TrackId threadTrack(ThreadKey key, bool gpu);
    TrackId memoryTrack(TrackKind kind, std::int32_t device);
    TrackId counterTrack(std::string_view name, std::string_view key, std::int64_t pid);
    ArgsId args(const JsonEvent &ev);
    void noteTime(TimeNs begin, TimeNs end);

    void addComplete(const JsonEvent &ev);
    void addBegin(const JsonEvent &ev);
    void addEnd(const JsonEvent &ev);
    void addInstant(const JsonEvent &ev);
    void addMemorySample(const JsonEvent &ev, TimeNs t);
    void addCounter(const JsonEvent &ev);
    void addFlow(const JsonEvent &ev, bool start);
    void resolveFlows();
    void emitSpan(TrackId track, const Span &span, std::uint8_t kind, const JsonEvent *ev);
    void addCollective(TrackId track, const Span &span, const JsonEvent *ev);
    void noteCommsRank(const JsonEvent &ev);
    void closeUnmatched();
    void nameTracks();
    void reportProblems();

    SourceBuilder &m_out;
    KinetoMetadata &m_metadata;
    SourceCounts m_counts;
    std::string m_scratch;
    // Per-StringId caches of what a category or name means (bit 15 / bit 7 = computed).
    std::vector<std::uint16_t> m_catFlags;
    std::vector<std::uint8_t> m_nameKinds;
    std::string m_lastCatText;
    StringId m_lastCat = 0;
    ThreadMap<TrackId> m_threadTracks[2]; // [0] CPU threads, [1] GPU streams
    ThreadKey m_lastKey;
    TrackId m_lastTrack = kNoTrack;
    bool m_lastGpu = false;
    ThreadMap<std::vector<OpenSpan>> m_open;
    // Flow events read before any span of their pid/tid: their lanes are looked up in finish().
    std::vector<std::pair<ThreadKey, FlowPoint>> m_unplacedFlows;
    std::map<std::pair<int, std::int32_t>, TrackId> m_memoryTracks;
    std::map<std::int32_t, double> m_runningAllocated; // per device, when totals are absent
    std::map<std::string, TrackId, std::less<>> m_counterTracks;
    TrackId m_markers = kNoTrack;
    std::optional<TimeNs> m_firstTime;
    TimeNs m_lastTime = 0;
    std::optional<RankId> m_commsRank;      // "Rank" of a default_pg record_param_comms
    std::int32_t m_commsGroupSize = 0;
    // Problems that can repeat per event are counted and reported once, in finish(), at the offset
    // of their first occurrence.
    struct Tally {
        std::int64_t count = 0;
        std::int64_t firstOffset = -1;
        void add(std::int64_t offset)
        {
            if (count++ == 0)
                firstOffset = offset;
        }
    };
    std::int64_t m_eventOffset = -1; // of the event being added
    Tally m_badTimes;
    Tally m_noPhase;
    Tally m_strayEnds;
    Tally m_ignored;
    Tally m_badMemory;
    std::int64_t m_unmatched = 0;
    std::string m_ignoredPhases;
    bool m_runningSum = false;
};

} // namespace rs
