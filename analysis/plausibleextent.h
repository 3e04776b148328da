#pragma once
// What the views may scale to: the time axis and the shared memory scale, computed from plausible
// data only, so one broken or unrelated source cannot squeeze every good rank to one edge (a trace
// without a wall clock that nothing aligned sits 50 years before the others; a stamp decades off;
// an allocator counter far above any GPU's capacity).
//
// Time: every track's data (spans, instants, counter samples) and every source's timed records
// (log records, OOMs, memory_summary tables) become runs on the common axis (the rank's clock
// offset added), split where the data pauses for more than kMinGapNs. Runs closer than kMinGapNs
// form clusters; the cluster fed by the most sources is the incident, and a neighbouring cluster
// joins it while the gap is within max(kMinGapNs, kGapFactor × the incident's length). A real job's
// sources overlap or follow each other (sidecar CSVs, a restarted attempt's log hours earlier), so
// only data days and many incident-lengths away is left out — never dropped from the model, only
// from the axis, with the source named and the reason given.
//
// Memory: a device-memory counter (allocated, reserved, nvidia-smi used) whose peak is more than
// kCapacityFactor × its rank's known GPU capacity cannot be real; it does not set the shared scale.
//
// Used by the on-screen timeline and by every exported figure, so both scale the same way.

#include "session.h"

#include <functional>
#include <string>
#include <vector>

namespace rs {

struct AnalysisResult;
struct RankMetrics;

/// A source (or part of one) the axis or the memory scale leaves out, and why.
struct ExtentOutlier {
    enum class Kind : std::uint8_t { Time, Memory };
    Kind kind = Kind::Time;
    SourceId source = 0;      ///< the file
    RankId rank = kNoRank;    ///< its rank, kNoRank when it has none
    TimeRange range;          ///< Time: the left-out data on the common axis
    TrackId track = kNoTrack; ///< Memory: the counter track left out of the scale
    double peak = 0;          ///< Memory: the counter's peak (bytes)
    std::string code;         ///< "time-outside-incident", "memory-above-capacity"
    std::string message;      ///< why, in words, naming the distance or the peak
};

struct PlausibleExtent {
    TimeRange axis;                    ///< common-axis time covered by plausible data (empty: none timed)
    double memoryScale = 0;            ///< largest plausible device-memory value of any rank (bytes)
    std::vector<ExtentOutlier> leftOut; ///< by source

    using OffsetOf = std::function<TimeNs(RankId)>;
    /// Computes the extent of `session` with each rank's times shifted by `offsetOf(rank)` (the
    /// analysis' alignment or the user's overrides). Capacities come from `metrics` when given (the
    /// analysis' best evidence), else from the ranks' device properties.
    static PlausibleExtent find(const Session &session, const OffsetOf &offsetOf,
                                const std::vector<RankMetrics> *metrics = nullptr);
    /// The same with the offsets (and capacities) of `analysis`, or none when it is null.
    static PlausibleExtent find(const Session &session, const AnalysisResult *analysis);

    /// True when the memory scale leaves `track` out.
    bool leavesOut(TrackId track) const;

    /// Data pausing longer than this splits a run; clusters closer than this are one.
    static constexpr TimeNs kMinGapNs = 86'400'000'000'000; // one day
    /// A cluster joins the incident while its gap is at most this many incident-lengths.
    static constexpr int kGapFactor = 10;
    /// A device-memory peak above this multiple of the GPU's capacity is not believed.
    static constexpr double kCapacityFactor = 2.0;
};

} // namespace rs
