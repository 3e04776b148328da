#pragma once
// What a Kineto trace says about itself rather than records as events: the top-level keys
// (baseTimeNanoseconds, deviceProperties, distributedInfo, and anything else as raw metadata) and
// the `M` thread metadata events. Both may come before or after the events they describe, so they
// are collected here and applied once everything was read.

#include "jsoneventparser.h"
#include "sourcebuilder.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rs {

class KinetoMetadata
{
public:
    /// Metadata values are stored cut to this many bytes (a cut value may not be valid JSON).
    static constexpr std::size_t kMetadataCap = 64 * 1024;
    /// Every time the importer stores stays within ±kMaxTime, so base + ts + dur cannot overflow
    /// (3e18 ns is the year 2065).
    static constexpr TimeNs kMaxTime = 3'000'000'000'000'000'000;

    explicit KinetoMetadata(SourceBuilder &out);

    /// How many bytes of top-level value `key` to capture: more for the keys parsed here
    /// (deviceProperties, distributedInfo), kMetadataCap for the rest.
    static std::size_t valueCap(std::string_view key);

    /// A top-level key other than traceEvents, with its value as compact JSON text. Every key is
    /// also kept in Source::metadata.
    void addTopLevel(const std::string &key, const std::string &value);
    /// An `M` event of thread (pid, tid): thread_name and thread_sort_index are kept.
    void addThreadMetadata(const JsonEvent &ev, std::int64_t pid, std::int64_t tid);

    /// The thread_name given for (pid, tid), trailing blanks trimmed; nullptr when none.
    const std::string *threadName(std::int64_t pid, std::int64_t tid) const;
    /// The thread_sort_index given for (pid, tid).
    std::optional<std::int32_t> threadSortIndex(std::int64_t pid, std::int64_t tid) const;

    /// Moves every time onto the wall clock when the trace has one: adds baseTimeNanoseconds, or
    /// keeps times whose first value (`firstTime`, raw ns) is already epoch time. Sets hasClock.
    void applyClock(std::optional<TimeNs> firstTime);
    /// Sets the source's rank and world size from distributedInfo, else from the "Rank" and
    /// "Group size" of a default_pg record_param_comms op (`commsRank`, `commsGroupSize`).
    void applyRanks(std::optional<RankId> commsRank, std::int32_t commsGroupSize);

private:
    void parseDevices(const std::string &json);
    void parseDistributedInfo(const std::string &json);

    SourceBuilder &m_out;
    std::optional<TimeNs> m_baseNs;
    std::optional<RankId> m_rank;  // distributedInfo.rank
    std::int32_t m_worldSize = 0;  // distributedInfo.world_size
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> m_threadNames;
    std::map<std::pair<std::int64_t, std::int64_t>, std::int32_t> m_threadSort;
    std::string m_scratch;
};

} // namespace rs
