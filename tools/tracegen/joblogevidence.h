#pragma once
// The job's whole console output, as `torchrun --tee 3` leaves it in the job log: every worker's
// lines prefixed `[rankN]:`, NCCL_DEBUG=INFO output, PyTorch's C++ warnings and errors, the
// failed rank's traceback and memory summary, and the elastic agent's failure summary. Written
// once the job has finished, because most of it happens outside the profiled steps (JobTimeline).

#include "joblistener.h"

#include <filesystem>

namespace rs::tracegen {

class JobLogEvidence : public JobListener
{
public:
    static constexpr const char *kFileName = "torchrun.log";

    explicit JobLogEvidence(std::filesystem::path directory);

    void rankStarted(const RankSetup &) override {}
    void event(const RankSetup &, const TraceEvent &) override {}
    void rankFinished(const RankSetup &, TimeNs) override {}
    void jobFinished(const JobRecord &record) override;

    /// The log, once the job finished.
    const std::filesystem::path &file() const { return m_file; }

private:
    std::filesystem::path m_directory;
    std::filesystem::path m_file;
};

} // namespace rs::tracegen
