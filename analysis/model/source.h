#pragma once
// One input file as the importers read it: what it is, which ranks it feeds, what was counted and
// what went wrong.

#include "diagnostic.h"
#include "summaryfacts.h"
#include "types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rs {

enum class Compression : std::uint8_t { None, Gzip, Zstd };
const char *compressionName(Compression c);

/// Where a source's rank came from, strongest first.
enum class RankOrigin : std::uint8_t {
    Content,  ///< read from the file (distributedInfo, NCCL init line, log prefix)
    FileName, ///< parsed from the file name (rank-3, rank_3, rank3, worker3)
    User,     ///< set by the user (--assign-rank or the import dialog)
    Assigned, ///< nothing said: the lowest free rank was given
    DeviceIndex, ///< a GPU index taken as the local rank (nvidia-smi without NCCL evidence)
    NcclDevice,  ///< a GPU index mapped to a rank through NCCL's "rank R ... cudaDev D" lines
};
const char *rankOriginName(RankOrigin o);

/// The counts of DESIGN.md §3 (inspect --json). Keys that do not apply stay 0.
struct SourceCounts {
    std::int64_t spans = 0;            ///< complete events (ph X, plus matched B/E pairs)
    std::int64_t instants = 0;         ///< ph i/I other than memory events
    std::int64_t memoryEvents = 0;     ///< `[memory]` instants
    std::int64_t counterSamples = 0;   ///< ph C samples
    std::int64_t steps = 0;            ///< host-side ProfilerStep#N spans
    std::int64_t collectives = 0;      ///< NCCL/RCCL collective kernels
    std::int64_t logLines = 0;         ///< lines recognised as NCCL/PyTorch log records
    std::int64_t warnings = 0;         ///< NCCL WARN lines
    std::int64_t memorySummaries = 0;  ///< complete memory_summary tables
    std::int64_t oomMessages = 0;      ///< CUDA OOM messages
    std::int64_t gpuSamples = 0;       ///< nvidia-smi data rows
    std::int64_t segments = 0;         ///< allocator snapshot segments
    std::int64_t traceEntries = 0;     ///< allocator trace entries / memory-timeline rows
    std::int64_t flows = 0;            ///< flow arrows bound to two spans (ac2g launch → kernel, fwdbwd)
    std::int64_t flowEndsUnpaired = 0; ///< flow events without a partner, or whose span is not in the trace
};

/// A GPU as described by the trace's deviceProperties.
struct DeviceInfo {
    std::int32_t id = 0;             ///< CUDA device index
    std::string name;                ///< e.g. "Tesla V100-SXM2-32GB"
    std::int64_t totalMemory = 0;    ///< bytes (totalGlobalMem), 0 if unknown
    std::int32_t computeMajor = 0;   ///< compute capability, 0 if unknown
    std::int32_t computeMinor = 0;
    std::int32_t numSms = 0;         ///< multiprocessor count, 0 if unknown
};

struct Source {
    std::string path;                         ///< as given by the user
    std::string format;                       ///< DESIGN.md §3 format id, e.g. "pytorch-trace"; empty if unrecognised
    Compression compression = Compression::None; ///< container of the file
    std::int64_t fileBytes = 0;               ///< size on disk
    std::vector<RankId> ranks;                ///< ranks fed by this source (resolved when frozen)
    RankOrigin rankOrigin = RankOrigin::Assigned; ///< how ranks were decided
    std::int32_t worldSize = 0;               ///< world size the source states, 0 if unknown
    SourceCounts counts;                      ///< what was read
    bool hasClock = false;                    ///< true when times are wall-clock ns since the epoch
    TimeRange timeRange;                      ///< covered time (empty when nothing timed was read)
    std::vector<Diagnostic> diagnostics;      ///< problems, in the order found
    std::vector<DeviceInfo> devices;          ///< deviceProperties, when given
    std::vector<std::pair<std::string, std::string>> metadata; ///< other top-level keys (raw JSON text values)
    /// Set when this source is a rankscope summary (format "summary"): the original file and the
    /// answers computed on its full detail. Null for every other source.
    std::shared_ptr<const SummaryFacts> summary;

    bool hasErrors() const;
    /// Occurrences of errors / warnings (each Diagnostic counts `count` times).
    std::size_t errorCount() const;
    std::size_t warningCount() const;
    /// The value of metadata key `key`, or an empty string.
    std::string metadataValue(const std::string &key) const;
    /// The file evidence cites: the original a summary was written from, else path.
    const std::string &evidencePath() const { return summary ? summary->originPath : path; }
    /// The format of what was read: a summary's original format, else format.
    const std::string &contentFormat() const { return summary ? summary->originFormat : format; }
};

} // namespace rs
