#pragma once
// Runs a JobConfig: one RankSimulator + TransformerWorkload per written rank, advanced step by step
// in lock-step, because a collective's timing on one rank depends on when the others arrive. Each
// step runs every rank up to its allreduces, settles the allreduces across ranks (start = ready on
// this rank, end = last arrival + transfer time), then finishes every rank's step.

#include "joblistener.h"
#include "jobconfig.h"
#include "prng.h"

#include <functional>
#include <vector>

namespace rs::tracegen {

class RankSimulator;

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
    void settleCollectives(std::vector<RankSimulator *> &sims, Prng &rng) const;

    JobConfig m_config;
    std::vector<JobListener *> m_listeners;
};

} // namespace rs::tracegen
