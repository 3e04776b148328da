#pragma once
// The seam between the simulation and the files it leaves behind. Each kind of evidence (Kineto
// traces, the torchrun job log, nvidia-smi samples) is one listener: it sees every rank start,
// every profiler event as it happens, and the finished record.

#include "jobrecord.h"
#include "traceevent.h"

namespace rs::tracegen {

class JobListener
{
public:
    virtual ~JobListener() = default;

    /// Before the first event of `rank`.
    virtual void rankStarted(const RankSetup &rank) = 0;
    /// Every event, in production order (not sorted by time).
    virtual void event(const RankSetup &rank, const TraceEvent &event) = 0;
    /// Every event of `rank` earlier than its current time has been delivered (a step ended);
    /// listeners that sort may flush here.
    virtual void chunkEnded(const RankSetup &rank) { (void)rank; }
    /// After the last event of `rank`; `windowEnd` is the rank-clock time the profiler stopped.
    virtual void rankFinished(const RankSetup &rank, TimeNs windowEnd) = 0;
    /// Once, after every rank finished.
    virtual void jobFinished(const JobRecord &record) { (void)record; }
};

} // namespace rs::tracegen
