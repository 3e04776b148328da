#pragma once
// What analysis concludes about a session: per-rank clock offsets, metrics, allocation spikes,
// divergent ranks and findings. Plain data, built once on a worker thread and shared read-only.

#include "incidentsummary.h"
#include "plausibleextent.h"
#include "types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rs {

/// How a rank's clock offset was obtained, strongest first.
enum class AlignmentMethod : std::uint8_t {
    Collectives, ///< matched NCCL collective ends with the reference rank
    Steps,       ///< matched ProfilerStep boundaries (weaker: steps do not end together)
    WallClock,   ///< the source's own wall clock, no correction
    Anchor,      ///< a clock-less source placed by an anchor it shares with timed sources
    User,        ///< set by the user
    None,        ///< no clock and no anchor: shown on its own, unaligned
};
const char *alignmentMethodName(AlignmentMethod m);

struct RankAlignment {
    RankId rank = 0;                               ///< the rank
    TimeNs offsetNs = 0;                           ///< add to the rank's times to reach the common axis
    AlignmentMethod method = AlignmentMethod::None; ///< how the offset was found
    std::optional<TimeNs> residualNs;              ///< median |error| of the anchors after the offset
    int anchors = 0;                               ///< anchors (collectives, steps) the offset rests on
    RankId reference = 0;                          ///< the rank it was aligned to
    /// Whether the offset can be trusted: Low when it rests on few anchors, fits them loosely, was
    /// one of several offsets the collectives allow, or comes from step ends or from nothing.
    enum class Confidence : std::uint8_t { High, Low };
    Confidence confidence = Confidence::High;      ///< how far the offset can be trusted
    std::string confidenceReason;                  ///< why it is Low, in words ("" when High)
    std::string host;                              ///< host the rank ran on, when a source names it ("" if unknown)
};
/// "high", "low".
const char *confidenceName(RankAlignment::Confidence c);

/// Kinds of evidence of a rank's memory, best first: the order in which RankMetrics takes its peaks.
enum class MemorySource : std::uint8_t {
    None,          ///< no evidence
    Trace,         ///< allocator counters of a profiler trace ([memory] events)
    Snapshot,      ///< an allocator snapshot: its trace replayed, its segments at snapshot time
    MemorySummary, ///< a printed torch.cuda.memory_summary() table (Peak Usage column)
    OomMessage,    ///< the numbers of a CUDA OOM message (at the moment of the OOM)
    Log,           ///< per-step memory counters read from a training log
    Summary,       ///< a rankscope summary file
};
/// "trace", "snapshot", "memory-summary", "oom-message", "log", "summary"; nullptr for None.
const char *memorySourceName(MemorySource s);

/// What one kind of evidence says about a rank's memory.
struct MemoryReading {
    MemorySource source = MemorySource::None;
    std::optional<std::int64_t> allocatedBytes; ///< the most allocated it shows
    std::optional<std::int64_t> reservedBytes;  ///< the most reserved it shows
    std::optional<TimeNs> allocatedAtNs;        ///< when allocatedBytes was seen (aligned axis), if known
    /// Reserved − allocated when allocated was highest (or at the OOM): memory the allocator held
    /// beyond what was in use. A memory_summary's Peak columns bound it from above.
    std::optional<std::int64_t> idleBytes;
};

/// The metrics of DESIGN.md §3 (analyze --json) plus the derived ones the findings use.
struct RankMetrics {
    RankId rank = 0;
    std::optional<std::int64_t> peakAllocatedBytes;   ///< peak allocated, from the best evidence (peakSource)
    std::optional<std::int64_t> peakReservedBytes;    ///< peak reserved, from the best evidence (peakReservedSource)
    std::optional<TimeNs> peakTimeNs;                 ///< when allocated peaked (aligned axis)
    MemorySource peakSource = MemorySource::None;     ///< evidence of peakAllocatedBytes (of reserved when allocated is unknown)
    MemorySource peakReservedSource = MemorySource::None; ///< evidence of peakReservedBytes
    std::vector<MemoryReading> memoryReadings;        ///< every kind of memory evidence of the rank, best first
    std::optional<std::int64_t> currentAllocatedBytes; ///< memory_summary Cur Usage of "Allocated memory" (latest table)
    std::optional<std::int64_t> currentReservedBytes;  ///< memory_summary Cur Usage of "GPU reserved memory" (latest table)
    std::optional<std::int64_t> gpuUsedPeakBytes;     ///< nvidia-smi memory.used peak
    std::optional<std::int64_t> steps;                ///< ProfilerStep count
    std::optional<TimeNs> stepTimeMedianNs;           ///< median step duration
    std::optional<TimeNs> stepTimeMadNs;              ///< median absolute deviation of step durations
    std::optional<std::int64_t> microBatches;         ///< micro-batches over all steps
    std::vector<std::pair<std::int64_t, std::int64_t>> microBatchesPerStep; ///< (step number, micro-batches)
    std::vector<std::pair<std::int64_t, std::int64_t>> inputElementsPerStep; ///< (step number, input elements)
    std::optional<std::int64_t> inputElements;        ///< input elements over all micro-batches (from Input Dims)
    std::optional<std::int64_t> collectives;          ///< collective kernels (or NCCL COLL calls)
    std::optional<std::int64_t> lastCollectiveSeq;    ///< highest collective sequence number seen
    std::optional<TimeNs> collectiveLatenessNs;       ///< median arrival delay at collectives vs the earliest rank
    std::optional<TimeNs> collectiveLatenessMaxNs;    ///< the largest such delay
    std::optional<TimeNs> collectiveLatenessMaxAtNs;  ///< when the peers began waiting for that one (aligned axis)
    std::int64_t lastArrivals = 0;                    ///< collectives at which this rank arrived last (by >= 1 ms)
    bool oom = false;                                 ///< oomCount > 0 (kept equal to it: read either)
    int oomCount = 0;                                 ///< OOMs, each counted once whatever reported it (OomIncidents)
    std::optional<std::int64_t> oomRequestedBytes;    ///< what the OOM message (the richest one) tried to allocate
    std::optional<std::int64_t> oomFreeBytes;         ///< free GPU memory that message states
    std::optional<std::int64_t> fragmentationBytes;   ///< idleBytes of the best reading that has it (fragmentationSource)
    MemorySource fragmentationSource = MemorySource::None; ///< evidence of fragmentationBytes
    std::optional<std::int64_t> nonReleasableBytes;   ///< non-releasable memory when last read: memory_summary "Non-releasable memory" Cur Usage, else inactive blocks of split snapshot segments
    std::optional<std::int64_t> nonReleasablePeakBytes; ///< memory_summary "Non-releasable memory" Peak Usage
    std::optional<std::int64_t> allocRetries;         ///< memory_summary "cudaMalloc retries" (highest: it only grows)
    std::optional<std::int64_t> nonPytorchBytes;      ///< nvidia-smi used peak − PyTorch reserved peak
    std::optional<std::int64_t> capacityBytes;        ///< GPU capacity (deviceProperties, OOM text, nvidia-smi)
};

/// One large rise of allocated memory.
struct Spike {
    RankId rank = 0;              ///< the rank
    TimeNs timeNs = 0;            ///< start of the rise (aligned axis)
    TimeNs durationNs = 0;        ///< how long the rise took
    std::int64_t bytes = 0;       ///< size of the rise
    std::int64_t step = -1;       ///< ProfilerStep number it falls in, -1 if none
    std::string attributedTo;     ///< op / kernel / stack frame running at the rise
    std::string source;           ///< path of the source it was read from
};

/// A rank whose metric deviates from its peers.
struct Divergence {
    RankId rank = 0;              ///< the rank
    std::string metric;           ///< metric key (as in analyze --json)
    double value = 0;             ///< the rank's value
    double median = 0;            ///< median over ranks
    double score = 0;             ///< robust z: (value − median) / (1.4826 · MAD), or ±inf-like for structural
    std::string reason;           ///< one sentence for people
};

enum class Severity : std::uint8_t { Info, Low, Medium, High };
const char *severityName(Severity s);

/// A line of evidence the viewer can jump to.
struct Evidence {
    std::string text;             ///< "path:line: ..." as printed
    std::string path;             ///< source path, "" if derived
    std::int64_t line = -1;       ///< 1-based line, -1 if none
    std::optional<TimeNs> timeNs; ///< aligned time to jump to
    RankId rank = kNoRank;        ///< rank it concerns
};

struct Finding;
/// True when `a` is read before `b`: most severe first, then earliest, findings without a time last.
/// The one order of findings: the analysis returns them so, and the report, the findings panel, the
/// timeline's numbered badges and exported figures number them by it.
bool findingReadsBefore(const Finding &a, const Finding &b);

struct Finding {
    std::string id;               ///< stable catalog id (DESIGN.md §4)
    Severity severity = Severity::Info;
    std::vector<RankId> ranks;    ///< ranks it concerns
    std::optional<TimeNs> timeNs; ///< when (aligned axis)
    std::optional<TimeNs> endNs;  ///< end of the region it concerns, if any
    std::string title;            ///< one line
    std::vector<Evidence> evidence; ///< why
    std::string fix;              ///< the exact setting to change
};

/// Where a record without a clock of its own (an OOM message or memory_summary table printed
/// without a time stamp) sits on the aligned axis, and what it was placed by.
struct Placement {
    enum class Kind : std::uint8_t { Oom, MemorySummary };
    Kind kind = Kind::Oom;
    std::size_t index = 0;        ///< into Session::ooms() or Session::memorySummaries()
    RankId rank = kNoRank;        ///< its rank
    TimeNs timeNs = 0;            ///< aligned time
    std::string anchor;           ///< what it shares with a timed source, in words
};

struct AnalysisResult {
    std::vector<RankAlignment> alignment; ///< one per rank, by rank
    std::vector<Placement> placements;    ///< untimed records placed by anchors (the rest stay untimed)
    std::vector<RankMetrics> metrics;     ///< one per rank, by rank
    std::vector<Spike> spikes;            ///< largest first
    std::vector<Divergence> divergent;    ///< strongest first
    std::vector<Finding> findings;        ///< by severity, then time
    IncidentSummary summary;              ///< the findings told as one story (IncidentStory), cause first
    PlausibleExtent extent;               ///< the time axis and memory scale views use, and what they leave out

    const RankMetrics *metricsOf(RankId rank) const;
    TimeNs offsetOf(RankId rank) const;
};

/// The findings of `result` in reading order (findingReadsBefore, ties in the result's order), as
/// indices into result.findings. For the analysis' own results this is 0, 1, 2, …
std::vector<int> findingOrder(const AnalysisResult &result);

} // namespace rs
