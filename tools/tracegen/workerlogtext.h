#pragma once
// What each worker process writes to the job log besides NCCL: the training script's Python
// logging (start-up, one line per finished step, how it stopped), the failed rank's traceback with
// the OutOfMemoryError and its torch.cuda.memory_summary(), and PyTorch's C++ messages
// (ProcessGroupNCCL's watchdog timeout and clean-up, the destructor warning at exit).

#include "joblogbuilder.h"
#include "jobrecord.h"
#include "jobtimeline.h"

namespace rs::tracegen {

class WorkerLogText
{
public:
    WorkerLogText(const JobTimeline &timeline, const JobRecord &record);

    void write(JobLogBuilder &log) const;

    /// The traceback Python prints for `oom` (without the final exception line), one line each.
    static std::vector<std::string> traceback(const OomRecord &oom);
    /// Parameters of the job's model (weights only).
    static std::int64_t parameterCount(const ModelShape &model);

private:
    void startUp(JobLogBuilder &log, const JobTimeline::Rank &t, const RankRecord &r) const;
    void steps(JobLogBuilder &log, const RankRecord &r) const;
    void outOfMemory(JobLogBuilder &log, const JobTimeline::Rank &t, const RankRecord &r) const;
    void watchdog(JobLogBuilder &log, const RankRecord &r) const;
    std::string info(TimeNs t, std::string_view level, std::string_view message) const;

    const JobTimeline &m_timeline;
    const JobRecord &m_record;
    const JobConfig &m_config;
};

} // namespace rs::tracegen
