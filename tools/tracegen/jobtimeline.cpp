#include "jobtimeline.h"

#include "prng.h"

#include <algorithm>
#include <stdexcept>

namespace rs::tracegen {

namespace {
constexpr TimeNs kMs = 1000000;
constexpr TimeNs kSec = 1000000000;
// torchrun's monitor interval (--monitor-interval, 0.1 s since PyTorch 2.3) and the grace period
// SubprocessContext.close() gives workers between SIGTERM and SIGKILL.
constexpr TimeNs kMonitorIntervalNs = 100 * kMs;
constexpr TimeNs kSigtermGraceNs = 30 * kSec;
} // namespace

TimeNs JobTimeline::exportDuration(std::int64_t events)
{
    // Post-processing the Kineto results in Python and writing gzipped JSON: about 45 µs an event.
    return 850 * kMs + events * 45000;
}

JobTimeline::JobTimeline(const JobConfig &config, const JobRecord &record) : m_config(&config)
{
    if (record.ranks.empty())
        throw std::invalid_argument("JobTimeline: the record has no ranks");
    for (const RankRecord &r : record.ranks) {
        Rank t;
        t.rank = r.setup.rank;
        t.pid = r.setup.pid;
        t.device = r.setup.device;
        t.profilerStart = r.setup.profilerStartNs;
        t.traceEnd = r.windowEnd;
        t.failed = r.oom.has_value();
        m_ranks.push_back(t);
    }
    startUp();
    tearDown(record);
}

const JobTimeline::Rank &JobTimeline::rank(RankId r) const
{
    for (const Rank &t : m_ranks)
        if (t.rank == r)
            return t;
    throw std::out_of_range("JobTimeline: no rank " + std::to_string(r));
}

void JobTimeline::startUp()
{
    // Worked backwards from the profiler start, which the simulation fixed: the job resumed from a
    // checkpoint, each rank loaded it, and a barrier released them into the first profiled step.
    Prng rng(m_config->seed ^ 0x57a27c0ffeeULL);
    TimeNs firstProfiler = m_ranks.front().profilerStart;
    for (const Rank &t : m_ranks)
        firstProfiler = std::min(firstProfiler, t.profilerStart);
    const TimeNs barrierEnd = firstProfiler - rng.range(420 * kMs, 560 * kMs);
    std::vector<TimeNs> load;
    for (std::size_t i = 0; i < m_ranks.size(); ++i)
        load.push_back(rng.range(22500 * kMs, 25500 * kMs));
    const TimeNs ddpDone = barrierEnd - 5 * kMs - *std::max_element(load.begin(), load.end());
    // DDP's constructor: the communicator's init, the parameter-shape check, the weight broadcast.
    m_ncclInitDone = ddpDone - rng.range(230 * kMs, 290 * kMs);
    m_ncclInitStart = m_ncclInitDone - rng.range(1350 * kMs, 1480 * kMs);
    TimeNs earliest = m_ncclInitStart;
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
        Rank &t = m_ranks[i];
        t.checkpointLoaded = ddpDone + load[i];
        // The last rank to reach DDP starts the communicator's init; the others wait for it.
        t.ncclJoin = i + 1 == m_ranks.size() ? m_ncclInitStart : m_ncclInitStart - rng.range(40 * kMs, 700 * kMs);
        t.ncclReady = m_ncclInitDone + rng.range(0, 6 * kMs);
        t.modelOnDevice = t.ncclJoin - rng.range(80 * kMs, 150 * kMs);
        t.cudaReady = t.modelOnDevice - rng.range(5200 * kMs, 6400 * kMs); // random init of 1.46 B weights on the CPU
        t.started = t.cudaReady - rng.range(150 * kMs, 300 * kMs);
        earliest = std::min(earliest, t.started - rng.range(5300 * kMs, 6100 * kMs)); // importing torch
    }
    m_agentStart = earliest - 280 * kMs; // the agent's own start-up before it spawns the workers
    m_sidecarStart = m_agentStart - rng.range(400 * kMs, 700 * kMs);
}

void JobTimeline::tearDown(const JobRecord &record)
{
    Prng rng(m_config->seed ^ 0x7ea2d0e5ULL);
    // The failed ranks: out of the profiler (the trace is written while the exception propagates),
    // the script's handler logs it, and the interpreter and CUDA context wind down.
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
        Rank &t = m_ranks[i];
        if (!t.failed)
            continue;
        t.traceWritten = t.traceEnd + exportDuration(record.ranks[i].events);
        t.errorLogged = t.traceWritten + rng.range(3 * kMs, 6 * kMs);
        t.exited = t.errorLogged + rng.range(550 * kMs, 750 * kMs);
        t.exitCode = 1;
        if (m_rootCause < 0 || t.exited < rank(m_rootCause).exited)
            m_rootCause = t.rank;
    }
    if (m_rootCause < 0) {
        // Nothing failed: every worker writes its trace and exits 0.
        TimeNs last = 0;
        for (std::size_t i = 0; i < m_ranks.size(); ++i) {
            Rank &t = m_ranks[i];
            t.traceWritten = t.traceEnd + exportDuration(record.ranks[i].events);
            t.errorLogged = t.traceWritten;
            t.exited = t.traceWritten + rng.range(400 * kMs, 600 * kMs);
            last = std::max(last, t.exited);
        }
        m_failureNoticed = last;
    } else {
        m_failureNoticed = rank(m_rootCause).exited + rng.range(0, kMonitorIntervalNs);
        const TimeNs sigterm = m_failureNoticed + 1 * kMs;
        for (std::size_t i = 0; i < m_ranks.size(); ++i) {
            Rank &t = m_ranks[i];
            if (t.failed)
                continue;
            // The script's SIGTERM handler raises once the step hands control back to Python.
            t.terminated = true;
            t.traceWritten = std::max(t.traceEnd, sigterm) + exportDuration(record.ranks[i].events);
            t.errorLogged = t.traceWritten + rng.range(2 * kMs, 5 * kMs);
            t.exited = t.errorLogged + rng.range(400 * kMs, 600 * kMs);
            t.exitCode = 128 + 15;
            if (t.exited > sigterm + kSigtermGraceNs)
                throw std::logic_error("JobTimeline: rank " + std::to_string(t.rank)
                                       + " would be killed by torchrun before its trace is written");
        }
    }
    TimeNs allExited = 0;
    for (const Rank &t : m_ranks)
        allExited = std::max(allExited, t.exited);
    m_agentReport = allExited + rng.range(2 * kMs, 6 * kMs);
    m_agentExit = m_agentReport + rng.range(150 * kMs, 300 * kMs);
    m_sidecarStop = m_agentExit + rng.range(250 * kMs, 450 * kMs);
}

} // namespace rs::tracegen
