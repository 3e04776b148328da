#pragma once
// The node's nvidia-smi sidecar, started by the job script before torchrun and killed after it:
//   nvidia-smi --query-gpu=timestamp,index,name,pci.bus_id,memory.total,memory.used,utilization.gpu,power.draw
//              --format=csv -lms 500
// One row per GPU every ~500 ms (plus the query's own few ms), local time (the node runs in UTC).
// memory.used is the process's CUDA context, NCCL buffers and the caching allocator's reserved
// memory (from the [memory] events, and JobTimeline before and after the profiler); utilization
// is the share of the last 500 ms in which any kernel or copy ran, a waiting NCCL kernel included.
// The job script kills it when torchrun exits, so the file ends inside a row.

#include "joblistener.h"

#include <filesystem>
#include <map>
#include <vector>

namespace rs::tracegen {

class JobTimeline;

class NvidiaSmiEvidence : public JobListener
{
public:
    static constexpr const char *kFileName = "nvidia-smi.csv";
    static constexpr TimeNs kIntervalNs = 500000000;

    explicit NvidiaSmiEvidence(std::filesystem::path directory);

    void rankStarted(const RankSetup &rank) override;
    void event(const RankSetup &rank, const TraceEvent &event) override;
    void rankFinished(const RankSetup &, TimeNs) override {}
    void jobFinished(const JobRecord &record) override;

    const std::filesystem::path &file() const { return m_file; }
    /// Whole data rows in the file (the cut-off last one not counted).
    std::int64_t rows() const { return m_rows; }

    /// "00000000:07:00.0" for PCI bus 0x07.
    static std::string busId(std::int64_t pciBus);

private:
    struct Busy {
        TimeNs start;
        TimeNs end;
    };
    struct Gpu {
        RankSetup setup;
        std::vector<std::pair<TimeNs, std::int64_t>> reserved; // (true time, Total Reserved), event order
        std::vector<Busy> any;                                 // every kernel, copy and memset
        std::vector<Busy> compute;                             // the compute stream only
    };

    static void merge(std::vector<Busy> &spans);
    static TimeNs covered(const std::vector<Busy> &spans, TimeNs from, TimeNs to);
    std::int64_t usedBytes(const Gpu &gpu, const JobTimeline &timeline, const RankRecord &record, TimeNs t) const;
    std::string text(const JobRecord &record, const JobTimeline &timeline);

    std::filesystem::path m_directory;
    std::filesystem::path m_file;
    std::map<RankId, Gpu> m_gpus;
    std::int64_t m_rows = 0;
};

} // namespace rs::tracegen
