#pragma once
// The one count of a rank's CUDA out-of-memory failures. Several kinds of evidence report the same
// failure: the allocator's message in a log ("CUDA out of memory. Tried to allocate ..."), the
// profiler's [OutOfMemory] instant, an allocator snapshot's `oom` trace entry, NCCL's
// "Cuda failure 'out of memory'" line, and the "CUDA OOMs: N" header of a memory_summary printed
// later. OomIncidents groups them into incidents (one per failure) and counts each failure once;
// the metrics, the findings, the report, the Compare table and the viewer all read this count.
//
// Pieces of evidence coincide when they belong to the same rank and
//  - both carry a time and lie within kWindowNs of each other, or
//  - at least one has no time: it joins an incident that lacks a piece of its kind (a trace and a
//    log that each saw one OOM of a rank saw the same one, as far as anyone can tell).
// Two allocator messages are one failure only when they state the same numbers (the same text
// written twice, or by two files) and nothing in their times tells them apart. A memory_summary
// counts every OOM of its process up to the moment it was printed: the OOMs it counts beyond the
// incidents known to precede it are failures no other evidence kept, and they are added.

#include "session.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace rs {

/// One out-of-memory failure of a rank and every piece of evidence that reports it.
struct OomIncident {
    RankId rank = kNoRank;                    ///< the rank that failed
    TimeNs time = kNoTime;                    ///< earliest timed piece, on the rank's own clock; kNoTime if none
    std::vector<std::size_t> messages;        ///< indices into Session::ooms() (allocator messages, snapshot oom entries)
    std::vector<std::pair<TrackId, std::uint32_t>> instants; ///< profiler [OutOfMemory] instants (track, index)
    std::vector<std::size_t> records;         ///< OOM log records that are not an allocator message (NCCL, cudaError)
    std::vector<std::size_t> summaries;       ///< memory_summary tables whose "CUDA OOMs" count includes it
};

/// Every OOM of one rank.
struct RankOoms {
    RankId rank = kNoRank;                    ///< the rank
    std::vector<OomIncident> incidents;       ///< in time order (untimed ones in source order, last)
    int count = 0;                            ///< OOMs, each once: incidents plus those only a memory_summary counted
    std::int64_t allocatorCount = -1;         ///< highest "CUDA OOMs" of the rank's memory_summary tables, -1 if none
};

class OomIncidents
{
public:
    /// Timed pieces this close (rank clock) describe the same failure.
    static constexpr TimeNs kWindowNs = 60'000'000'000;

    /// The OOMs of every rank that has any, by rank.
    static std::vector<RankOoms> find(const Session &session);
    /// The entry of `rank` in `all`, or nullptr when the rank had no OOM.
    static const RankOoms *of(const std::vector<RankOoms> &all, RankId rank);
    /// OOMs of `rank`, each once (0 when none).
    static int countOf(const std::vector<RankOoms> &all, RankId rank);
};

} // namespace rs
