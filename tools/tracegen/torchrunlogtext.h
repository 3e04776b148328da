#pragma once
// What the job script and torchrun's elastic agent (PyTorch 2.4) write to the job log: the
// launch command, the agent's start-up warning, the SIGTERMs it sends when a worker fails, and
// its final "failed (exitcode ...)" record with the ChildFailedError summary naming the root cause
// (torch/distributed/elastic/multiprocessing/errors/__init__.py, _FAILURE_FORMAT_TEMPLATE).

#include "joblogbuilder.h"
#include "jobtimeline.h"

namespace rs::tracegen {

class TorchrunLogText
{
public:
    explicit TorchrunLogText(const JobTimeline &timeline) : m_timeline(timeline) {}

    void write(JobLogBuilder &log) const;

    /// The ChildFailedError block, from its "torch.distributed...ChildFailedError: " line to the
    /// closing rule; empty when no worker failed.
    std::string failureSummary() const;

private:
    const JobTimeline &m_timeline;
};

} // namespace rs::tracegen
