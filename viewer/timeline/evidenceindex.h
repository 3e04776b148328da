#pragma once
// Per-rank, time-ordered views of the evidence that has no track of its own: timed log records and
// out-of-memory events. The session keeps both in source order; the timeline needs them by time,
// one binary search per frame, so they are indexed once per session here.

#include "analysisresult.h"
#include "logstyle.h"
#include "session.h"
#include "viewstate.h"

#include <map>
#include <utility>
#include <vector>

namespace rs {

/// A timed log record as the log lane needs it.
struct TimedLog {
    TimeNs time = 0;             ///< data time (the rank's clock offset not applied)
    std::uint32_t index = 0;     ///< index into Session::logs().records
    LogStyle::Mark mark = LogStyle::Mark::Info; ///< how it is drawn
    const Placement *placed = nullptr; ///< set when the record has no time stamp and sits here by an anchor
};

/// An out-of-memory moment of a rank: an OomEvent with a time, or a profiler [OutOfMemory] instant.
struct OomMarker {
    TimeNs time = 0;              ///< data time (the rank's clock offset not applied)
    EventRef event;               ///< EventRef::oom(i), or the instant on its track
    std::int64_t requested = -1;  ///< bytes the failed allocation asked for, -1 when unknown
    const Placement *placed = nullptr; ///< set when the OOM has no time stamp and sits here by an anchor
};

class EvidenceIndex
{
public:
    /// Rebuilds the index for `session` (null clears it). Untimed OOMs (and the log lines they were
    /// read from) that `analysis` placed by an anchor are indexed at the placed time; the
    /// placements point into `analysis`, which must outlive the index's use.
    void build(const Session *session, const AnalysisResult *analysis = nullptr);

    /// Timed records of `rank`, by time (ties in source order).
    const std::vector<TimedLog> &logs(RankId rank) const;
    /// The subset of logs(rank) above INFO (warnings, errors, OOMs), by time. Usually few, so they
    /// are drawn one by one while INFO lines are thinned to one per pixel column.
    const std::vector<TimedLog> &notableLogs(RankId rank) const;
    /// [first, last) of `logs` whose time lies in [range.begin, range.end).
    static std::pair<std::size_t, std::size_t> inRange(const std::vector<TimedLog> &logs, TimeRange range);
    /// Position of record `index` in logs(rank of the record), or -1 when it is untimed.
    std::ptrdiff_t positionOf(RankId rank, std::uint32_t index) const;
    /// Records of `rank` without a usable time stamp (listed in the log panel only).
    std::size_t untimedLogCount(RankId rank) const;
    /// OOM moments of `rank` with a time, by time.
    const std::vector<OomMarker> &ooms(RankId rank) const;
    /// OOMs of `rank`, timed or not, each once whatever reported it (OomIncidents, = RankMetrics::oomCount).
    std::size_t oomCount(RankId rank) const;
    /// Error records of `rank`, timed or not.
    std::size_t errorCount(RankId rank) const;
    /// Union of the times of every timed log record and OOM (job-level records included); empty
    /// when there are none. The timeline's full range covers it, so a log-only session has a range.
    TimeRange extent() const { return m_extent; }
    /// Union of the records and OOMs placed by the analysis' anchors, on the aligned axis (they
    /// have no time of their own, so PlausibleExtent does not see them).
    TimeRange placedExtent() const { return m_placedExtent; }

private:
    struct PerRank {
        std::vector<TimedLog> logs;
        std::vector<TimedLog> notable;
        std::vector<OomMarker> ooms;
        std::size_t untimed = 0;
        std::size_t oomCount = 0;
        std::size_t errors = 0;
    };
    const PerRank *find(RankId rank) const;

    std::map<RankId, PerRank> m_ranks;
    TimeRange m_extent;
    TimeRange m_placedExtent;
};

} // namespace rs
