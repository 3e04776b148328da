#pragma once
// The frozen session: everything read from every source, per rank, immutable once built.
// Shared between threads as std::shared_ptr<const Session>; built by SessionBuilder.

#include "textarena.h"
#include "flow.h"
#include "flightrecords.h"
#include "gpurecords.h"
#include "records.h"
#include "source.h"
#include "stringpool.h"
#include "track.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace rs {

/// One `ProfilerStep#N` interval of a rank.
struct Step {
    std::int64_t number = 0; ///< N of ProfilerStep#N
    TimeRange range;         ///< host-side span of the step
    TrackId track = kNoTrack; ///< the CPU thread that recorded it
    bool fromLog = false;    ///< read from a training log's per-step line, not a profiler's ProfilerStep span
    bool incomplete = false; ///< cut off: its span never closed, the rank's OOM or failure falls in it, or its
                             ///< rank's data ends with it while a peer's same step goes on (StepCompleteness)
};

/// One collective (NCCL/RCCL kernel) with the c10d metadata copied onto it.
struct Collective {
    TimeNs start = 0;               ///< kernel start, wall-clock ns
    TimeNs end = 0;                 ///< kernel end
    RankId rank = kNoRank;          ///< rank that ran it
    TrackId track = kNoTrack;       ///< GPU stream track
    StringId op = 0;                ///< "allreduce", "_allgather_base", ... or the kernel name when unknown
    StringId processGroup = 0;      ///< Process Group Name ("0"), empty if unknown
    StringId dtype = 0;             ///< "Float", ... empty if unknown
    std::int64_t inNelems = -1;     ///< In msg nelems, -1 if unknown
    std::int64_t outNelems = -1;    ///< Out msg nelems, -1 if unknown
    std::int32_t groupSize = 0;     ///< Group size, 0 if unknown
    std::int64_t seq = -1;          ///< collective sequence number (Seq), -1 if unknown
};

struct Rank {
    RankId id = 0;                       ///< the distributed rank
    std::int32_t worldSize = 0;          ///< world size as stated by a source, 0 if unknown
    std::vector<SourceId> sources;       ///< sources that feed it
    std::vector<TrackId> tracks;         ///< display order: counters, CPU threads, GPU streams, others
    std::vector<Step> steps;             ///< sorted by start
    std::vector<DeviceInfo> devices;     ///< GPUs the rank's traces describe
    TimeRange timeRange;                 ///< union of its tracks' data
    std::string unknownProcess;          ///< "host:pid" when the id is only a placeholder for a process
                                         ///< whose log never named its rank (LogProcess); "" otherwise
};

class Session
{
public:
    const std::vector<Source> &sources() const { return m_sources; }
    const std::vector<Rank> &ranks() const { return m_ranks; }
    const std::vector<Track> &tracks() const { return m_tracks; }
    /// Sorted by rank, then start.
    const std::vector<Collective> &collectives() const { return m_collectives; }
    /// memory_summary tables, in source order.
    const std::vector<MemorySummary> &memorySummaries() const { return m_memorySummaries; }
    /// CUDA OOM messages, in source order.
    const std::vector<OomEvent> &ooms() const { return m_ooms; }
    /// Log records and the structured evidence read from logs, in source order.
    const LogEvidence &logs() const { return m_logs; }
    /// Allocator snapshot evidence (allocations with stacks, segments), stack indexes session-wide.
    const AllocatorEvidence &allocator() const { return m_allocator; }
    /// nvidia-smi GPU identities and the processes on each GPU (ranks resolved across sources).
    const GpuEvidence &gpus() const { return m_gpus; }
    /// NCCL flight-recorder dumps: entries, process groups and per-group progress of every rank.
    const FlightRecorderEvidence &flightRecorder() const { return m_flight; }
    /// Flow arrows between spans (launch → kernel, forward → backward), sorted by their `from` end.
    const std::vector<Flow> &flows() const { return m_flows; }
    /// Indexes into flows() of the flows that start or end at `span` of `track`, starts first.
    std::vector<std::uint32_t> flowsAt(TrackId track, std::uint32_t span) const;
    const StringPool &strings() const { return m_strings; }
    std::string_view str(StringId id) const { return m_strings.view(id); }
    /// Raw args JSON of an event on `track`.
    std::string_view args(TrackId track, ArgsId id) const;
    /// The rank with id `rank`, or nullptr.
    const Rank *rank(RankId rank) const;
    /// Union of all ranks' time ranges.
    TimeRange timeRange() const { return m_timeRange; }
    /// Total spans over all tracks.
    std::size_t spanCount() const;
    /// True when any source reported an error diagnostic.
    bool hasErrors() const;
    /// Files found in folders the user opened that no importer recognised (READMEs, scripts):
    /// not sources, listed so nothing disappears without a word.
    const std::vector<std::string> &skippedFiles() const { return m_skipped; }

private:
    friend class SessionBuilder;
    std::vector<Source> m_sources;
    std::vector<TextArena> m_args; // one per source
    std::vector<Rank> m_ranks;
    std::vector<Track> m_tracks;
    std::vector<Collective> m_collectives;
    std::vector<Flow> m_flows;
    std::vector<std::uint32_t> m_flowsByEnd; // indexes into m_flows, sorted by `to`
    std::vector<MemorySummary> m_memorySummaries;
    std::vector<OomEvent> m_ooms;
    LogEvidence m_logs;
    AllocatorEvidence m_allocator;
    GpuEvidence m_gpus;
    FlightRecorderEvidence m_flight;
    std::vector<std::string> m_skipped;
    StringPool m_strings;
    TimeRange m_timeRange;
};

using SessionPtr = std::shared_ptr<const Session>;

} // namespace rs
