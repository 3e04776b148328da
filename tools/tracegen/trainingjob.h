#pragma once
// Runs a JobConfig: one RankSimulator + TransformerWorkload per written rank, advanced step by step
// in lock-step, because a collective's timing on one rank depends on when the others arrive. Each
// step runs every rank up to its allreduces, settles the allreduces across ranks (start = ready on
// this rank, end = last arrival + transfer time), then finishes every rank's step.
//
// A rank that runs out of memory stops where it failed (its trace ends there). Collectives it never
// reached hang on the others until ProcessGroupNCCL's watchdog times them out and, with
// TORCH_NCCL_ASYNC_ERROR_HANDLING=2 (clean up only), aborts the communicator: the hung NCCL kernel
// exits, the step finishes on whatever the buffers hold, and the job ends after that step.

#include "joblistener.h"
#include "jobconfig.h"
#include "prng.h"
#include "ranksimulator.h"

#include <functional>
#include <vector>

namespace rs::tracegen {

class TrainingJob
{
public:
    /// Throws std::invalid_argument when the ranks' plans cannot form one job (different step
    /// counts, duplicate ranks, ranks outside the world).
    explicit TrainingJob(JobConfig config);

    /// Listeners receive every rank's events; they must outlive run().
    void addListener(JobListener &listener) { m_listeners.push_back(&listener); }
    /// Runs every step of the plans; stops early when `keepGoing` (called after each step with the
    /// number of steps done) returns false.
    JobRecord run(const std::function<bool(std::int64_t)> &keepGoing = {});

    const JobConfig &config() const { return m_config; }

private:
    RankSetup setupFor(const RankPlan &plan, Prng &rng) const;
    void settleCollectives(std::vector<RankSimulator *> &sims, const std::vector<bool> &failed, Prng &rng) const;
    /// The collectives from index `first` on never complete on `sim`: the watchdog's timeout and
    /// abort end them. Returns how each of them ends.
    std::vector<RankSimulator::Settled> timeOut(RankSimulator &sim, const std::vector<RankSimulator::PendingInfo> &pending,
                                                std::size_t first, TimeNs previousEnd, Prng &rng) const;

    JobConfig m_config;
    std::vector<JobListener *> m_listeners;
};

} // namespace rs::tracegen
