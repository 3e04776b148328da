#pragma once
// Per-rank metrics (DESIGN.md §3 analyze output): memory peaks, GPU memory used, steps and their
// spread, micro-batches and input sizes, collectives and arrival lateness, OOMs, fragmentation and
// memory PyTorch does not own.
//
// Memory peaks come from the best evidence present, in MemorySource order: a trace's allocator
// counters, then an allocator snapshot (its replayed trace, its segments), then memory_summary
// tables (Peak Usage), then the numbers of an OOM message, then per-step counters of a log, then a
// rankscope summary. Every kind is kept in RankMetrics::memoryReadings, so a reader can compare
// them. OOMs are counted by OomIncidents, once per failure.
//
// Step time (median, MAD) covers the steps a rank completed: a cut-off last step (Step::incomplete)
// counts as a step but not as a duration.
//
// Micro-batches are counted from the DataLoader's `__next__` record_function spans inside each
// ProfilerStep (one per batch fetched); input elements are the product of the first "Input Dims"
// entry of the first op after each fetch (the copy of the batch to the GPU). Traces without those
// spans report no micro-batch metrics rather than a guess.

#include "analysisresult.h"
#include "session.h"

#include <map>
#include <string_view>

namespace rs {

class RankMetricsBuilder
{
public:
    /// Metrics of every rank; `alignment` moves times onto the common axis.
    static std::vector<RankMetrics> build(const Session &session, const std::vector<RankAlignment> &alignment);

    /// What each kind of evidence says about `rank`'s memory, best first (MemorySource order);
    /// `offset` moves its times onto the aligned axis.
    static std::vector<MemoryReading> memoryReadings(const Session &session, const Rank &rank, TimeNs offset);
    /// The kind of evidence a memory counter is, by the format of the source it was read from.
    static MemorySource counterSource(std::string_view format);

    /// Product of the first list in the "Input Dims" arg of raw args JSON, or nullopt.
    static std::optional<std::int64_t> firstInputElements(std::string_view argsJson);
    /// What ran inside one profiler step of a trace: its DataLoader fetches (micro-batches) and
    /// the elements of the first op input after each fetch. A summary keeps these per step.
    static SummaryFacts::StepInputs stepInputs(const Session &session, const Step &step);

    /// Arrival at collectives, per rank: median and largest (start − earliest start) over the
    /// collectives matched across ranks, when the largest happened, and how often it came last.
    struct Lateness {
        TimeNs median = 0;
        TimeNs max = 0;
        TimeNs maxAt = 0;
        std::int64_t lastArrivals = 0;
    };
    static std::map<RankId, Lateness> collectiveLateness(const Session &session, const std::vector<RankAlignment> &alignment);
};

} // namespace rs
