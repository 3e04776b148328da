#pragma once
// The parts of a torchrun job outside the profiled steps, derived from the simulated run so that
// every piece of evidence tells the same times: the start-up before the profiler (torchrun, the
// worker processes, CUDA, the model, NCCL, the checkpoint) and the way the job ends after it.
//
// How a failed job ends (PyTorch 2.4 torchrun semantics): the rank whose step raised leaves the
// profiler (its trace is written), logs the error and exits 1. torchrun's agent notices within its
// 0.1 s monitor interval, sends SIGTERM to the other workers and waits up to 30 s for them. The
// training script turns SIGTERM into an exception, but a worker blocked in CUDA only sees it once
// its step returns, i.e. after ProcessGroupNCCL's watchdog aborted the hung collective; then its
// trace is written too and it exits. Only then does the agent print the failure summary, naming the
// first failed rank as the root cause.

#include "jobrecord.h"

#include <vector>

namespace rs::tracegen {

class JobTimeline
{
public:
    struct Rank {
        RankId rank = 0;
        std::int64_t pid = 0;
        int device = 0;
        TimeNs started = 0;           ///< imports done, the script's first log line
        TimeNs cudaReady = 0;         ///< CUDA context created on its device
        TimeNs modelOnDevice = 0;     ///< the weights allocated
        TimeNs ncclJoin = 0;          ///< entered the communicator's init (DDP construction)
        TimeNs ncclReady = 0;         ///< Init COMPLETE: NCCL's buffers allocated
        TimeNs checkpointLoaded = 0;  ///< the AdamW moments allocated; training starts next
        TimeNs profilerStart = 0;
        TimeNs traceEnd = 0;          ///< Record Window End
        TimeNs traceWritten = 0;      ///< the profiler's export finished
        TimeNs errorLogged = 0;       ///< failed rank: the exception and memory summary; others: their stop
        TimeNs exited = 0;
        int exitCode = 0;
        bool failed = false;          ///< raised on its own (the others were stopped)
        bool terminated = false;      ///< received torchrun's SIGTERM
    };

    /// `config` is the job `record` ran (a record's RankSetup::job points into its TrainingJob,
    /// which may be gone). Throws std::logic_error when the record describes an ending this model
    /// cannot tell (a stopped worker that would outlive torchrun's 30 s grace period).
    JobTimeline(const JobConfig &config, const JobRecord &record);

    const JobConfig &config() const { return *m_config; }
    const std::vector<Rank> &ranks() const { return m_ranks; }
    const Rank &rank(RankId r) const;
    /// The rank torchrun reports as the root cause; -1 when every rank finished.
    RankId rootCause() const { return m_rootCause; }

    TimeNs agentStart() const { return m_agentStart; }
    TimeNs ncclInitStart() const { return m_ncclInitStart; }
    TimeNs ncclInitDone() const { return m_ncclInitDone; }
    TimeNs failureNoticed() const { return m_failureNoticed; }  ///< agent saw the root cause exit
    TimeNs agentReport() const { return m_agentReport; }        ///< "failed (exitcode ...)" and the summary
    TimeNs agentExit() const { return m_agentExit; }
    TimeNs sidecarStart() const { return m_sidecarStart; }      ///< nvidia-smi started by the job script
    TimeNs sidecarStop() const { return m_sidecarStop; }        ///< ... and killed after torchrun exits

    /// How long the profiler takes to process and write a trace of `events` events.
    static TimeNs exportDuration(std::int64_t events);

private:
    void startUp();
    void tearDown(const JobRecord &record);

    const JobConfig *m_config = nullptr;
    std::vector<Rank> m_ranks;
    RankId m_rootCause = -1;
    TimeNs m_agentStart = 0;
    TimeNs m_ncclInitStart = 0;
    TimeNs m_ncclInitDone = 0;
    TimeNs m_failureNoticed = 0;
    TimeNs m_agentReport = 0;
    TimeNs m_agentExit = 0;
    TimeNs m_sidecarStart = 0;
    TimeNs m_sidecarStop = 0;
};

} // namespace rs::tracegen
