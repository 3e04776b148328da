#pragma once
// What a rankscope summary (`rankscope summarize`, DESIGN.md §3) keeps of the detail it leaves out.
//
// A summary is its source's model thinned to what the analysis reads: steps, collectives, OOMs,
// memory tables, log and allocator evidence whole; on CPU threads only the spans that name a step
// or a collective call; memory counters with min/max per time bucket. A few analyses look at
// detail the thinning drops (the ops under a memory rise, the data-loader calls of a step, the
// backward pass after a peak). Those answers are computed on the full trace when the summary is
// written and kept here, so an analysis of summaries finds what an analysis of the traces finds.
// Facts are keyed by what survives loading the summary in another session and a change of rank:
// the track's index within its own file (thinning keeps every track, in order), step numbers and
// times on the source's own clock, never by session-wide track or rank ids.

#include "types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rs {

struct SummaryFacts {
    // The file summarised.
    std::string originPath;     ///< as `summarize` was given it: what evidence cites
    std::string originAbsolute; ///< absolute path on the machine that summarised it
    std::string originFormat;   ///< DESIGN.md §3 format id of the original ("pytorch-trace", ...)
    std::int64_t originBytes = 0;   ///< size of the original file
    std::int64_t originMtimeNs = 0; ///< its modification time, ns since the epoch
    std::string originSha256;   ///< SHA-256 of its bytes (hex)
    std::string writer;         ///< program and version that wrote the summary
    TimeRange originRange;      ///< the time the original covered (the thinned model may cover less)

    /// A rise of an allocated-memory counter (MemorySpikes), measured on the full counter.
    struct Rise {
        std::int32_t track = -1;     ///< the counter's track, as its index within the source
        TimeNs from = 0;             ///< low point (source clock)
        TimeNs to = 0;               ///< peak (source clock)
        double bytes = 0;            ///< climb
        std::string spanCause;       ///< "phase › op" running on the host during the rise, "" if none
        /// ns from the peak to the first host op with "Backward" in its name, if any starts after it.
        std::optional<TimeNs> backwardAfterNs;
    };
    /// Per track, largest first, the rises MemorySpikes would consider (at most a few per step).
    std::vector<Rise> rises;

    /// What ran inside one profiler step (RankMetricsBuilder::stepInputs).
    struct StepInputs {
        std::int32_t track = -1;        ///< the step's track, as its index within the source
        std::int64_t step = -1;         ///< step number
        std::int64_t microBatches = 0;  ///< DataLoader __next__ calls
        std::int64_t inputElements = 0; ///< elements of the first input after each fetch
        bool hasElements = false;
    };
    std::vector<StepInputs> steps;

    /// What the thinning kept and dropped (counter samples, spans).
    std::int64_t samplesKept = 0;
    std::int64_t samplesDropped = 0;
    std::int64_t spansKept = 0;
    std::int64_t spansDropped = 0;

    const Rise *riseAt(std::int32_t track, TimeNs peak) const
    {
        for (const Rise &r : rises)
            if (r.track == track && r.to == peak)
                return &r;
        return nullptr;
    }
    const StepInputs *stepInputs(std::int32_t track, std::int64_t step) const
    {
        for (const StepInputs &s : steps)
            if (s.track == track && s.step == step)
                return &s;
        return nullptr;
    }
    /// The index of session track `id` within its own source: a session keeps each source's
    /// tracks together and in order.
    template <typename Tracks>
    static std::int32_t localTrack(const Tracks &tracks, std::uint32_t id)
    {
        std::uint32_t first = id;
        while (first > 0 && tracks[first - 1].source == tracks[id].source)
            --first;
        return static_cast<std::int32_t>(id - first);
    }
};

} // namespace rs
