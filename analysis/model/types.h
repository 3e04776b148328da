#pragma once
// Basic value types shared by every layer: time, ranks and the typed ids that index the session.

#include <cstdint>
#include <limits>

namespace rs {

/// Nanoseconds. Absolute times are wall-clock ns since the Unix epoch; durations are plain ns.
using TimeNs = std::int64_t;

/// The distributed rank a source or track belongs to. kNoRank when it is not known yet.
using RankId = std::int32_t;
inline constexpr RankId kNoRank = -1;
/// Log records that belong to the whole job (torchrun's agent), not to one rank.
inline constexpr RankId kJobLevel = -2;

/// Index into StringPool. 0 is always the empty string.
using StringId = std::uint32_t;
inline constexpr StringId kEmptyString = 0;

/// Index into Session::tracks().
using TrackId = std::uint32_t;
inline constexpr TrackId kNoTrack = std::numeric_limits<TrackId>::max();

/// Index into Session::sources().
using SourceId = std::uint32_t;

/// Index into the session's args arena (raw, compacted JSON text of an event's args). 0 = no args.
/// An entry of a TextArena (args JSON, log messages); 0 is the empty text.
using TextId = std::uint32_t;
inline constexpr TextId kNoText = 0;
using ArgsId = TextId;
inline constexpr ArgsId kNoArgs = kNoText;

/// A half-open time interval [begin, end).
struct TimeRange {
    TimeNs begin = 0; ///< first instant covered
    TimeNs end = 0;   ///< one past the last instant covered

    constexpr TimeNs duration() const { return end - begin; }
    constexpr bool isEmpty() const { return end <= begin; }
    constexpr bool contains(TimeNs t) const { return t >= begin && t < end; }
    constexpr bool intersects(const TimeRange &o) const { return begin < o.end && o.begin < end; }
    /// Smallest range covering both; an empty range is the identity.
    constexpr TimeRange united(const TimeRange &o) const
    {
        if (isEmpty()) return o;
        if (o.isEmpty()) return *this;
        return {begin < o.begin ? begin : o.begin, end > o.end ? end : o.end};
    }
    friend constexpr bool operator==(const TimeRange &, const TimeRange &) = default;
};

} // namespace rs
