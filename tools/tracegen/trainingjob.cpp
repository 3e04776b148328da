#include "trainingjob.h"

#include "kernelcatalog.h"
#include "ranksimulator.h"
#include "transformerworkload.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>

namespace rs::tracegen {

TrainingJob::TrainingJob(JobConfig config) : m_config(std::move(config))
{
    if (m_config.ranks.empty())
        throw std::invalid_argument("a job needs at least one rank");
    std::set<RankId> seen;
    for (const RankPlan &p : m_config.ranks) {
        if (p.rank < 0 || p.rank >= m_config.worldSize)
            throw std::invalid_argument("rank " + std::to_string(p.rank) + " is outside the world size");
        if (!seen.insert(p.rank).second)
            throw std::invalid_argument("rank " + std::to_string(p.rank) + " is planned twice");
        // Every step ends in the same number of allreduces on every rank, so step counts must agree.
        if (p.steps.size() != m_config.ranks.front().steps.size())
            throw std::invalid_argument("every rank must run the same number of steps");
        for (const auto &step : p.steps)
            if (step.empty())
                throw std::invalid_argument("a step needs at least one micro-batch");
    }
    if (m_config.model.hidden % m_config.model.heads != 0)
        throw std::invalid_argument("hidden size must be a multiple of the head count");
}

RankSetup TrainingJob::setupFor(const RankPlan &plan, Prng &rng) const
{
    RankSetup s;
    s.rank = plan.rank;
    s.worldSize = m_config.worldSize;
    s.pid = plan.pid;
    s.mainTid = plan.pid;
    s.autogradTid = plan.pid + 161 + plan.rank; // created by the engine shortly after start-up
    s.device = plan.device;
    s.pciBus = plan.pciBus;
    s.computeStream = 7;
    s.commStream = 20 + 4 * (plan.device % 2); // NCCL streams get whatever id is free
    s.clockSkewNs = plan.clockSkewNs;
    s.clockDriftPpm = plan.clockDriftPpm;
    s.computeSpeed = plan.computeSpeed;
    // Each rank's profiler starts when that process reaches the schedule's active step: close,
    // never exactly together.
    s.profilerStartNs = m_config.startNs + rng.range(0, 1500000);
    s.baseTimeNs = m_config.baseTimeNs;
    s.job = &m_config;
    s.traceName = "/tmp/libkineto_activities_" + std::to_string(plan.pid) + ".json";
    return s;
}

void TrainingJob::settleCollectives(std::vector<RankSimulator *> &sims, const std::vector<bool> &failed,
                                     Prng &rng) const
{
    std::vector<std::vector<RankSimulator::PendingInfo>> pending;
    for (RankSimulator *sim : sims)
        pending.push_back(sim->pendingCollectives());
    // Every healthy rank launches the same collectives; a failed rank launched a prefix of them.
    std::size_t count = 0, reached = std::numeric_limits<std::size_t>::max();
    for (std::size_t r = 0; r < sims.size(); ++r) {
        count = std::max(count, pending[r].size());
        reached = std::min(reached, pending[r].size());
    }
    for (std::size_t r = 0; r < sims.size(); ++r)
        if (!failed[r] && pending[r].size() != count)
            throw std::logic_error("ranks launched different numbers of collectives in one step");

    const KernelCatalog kernels(m_config.gpu);
    const bool virtualPeers = static_cast<int>(sims.size()) < m_config.worldSize;
    std::vector<TimeNs> previousEnd(sims.size(), 0);
    std::vector<std::vector<RankSimulator::Settled>> settled(sims.size());
    for (std::size_t k = 0; k < reached; ++k) {
        std::vector<TimeNs> start(sims.size());
        TimeNs lastArrival = 0;
        for (std::size_t r = 0; r < sims.size(); ++r) {
            // The NCCL stream runs one collective at a time.
            start[r] = std::max(pending[r][k].ready, previousEnd[r]);
            lastArrival = std::max(lastArrival, start[r]);
        }
        // Ranks that are not written still take part: they arrive a little after the latest one
        // we simulate, as healthy peers do.
        if (virtualPeers)
            lastArrival += rng.range(0, 60000);
        const TimeNs transfer = kernels.allReduceTime(pending.front()[k].nelems * 4, m_config.worldSize);
        for (std::size_t r = 0; r < sims.size(); ++r) {
            const TimeNs end = lastArrival + transfer + rng.range(0, 4000);
            settled[r].push_back({start[r], end, false});
            previousEnd[r] = end;
        }
    }
    for (std::size_t r = 0; r < sims.size(); ++r) {
        if (pending[r].size() > reached) {
            auto rest = timeOut(*sims[r], pending[r], reached, previousEnd[r], rng);
            settled[r].insert(settled[r].end(), rest.begin(), rest.end());
        }
        sims[r]->completeCollectives(settled[r]);
    }
}

std::vector<RankSimulator::Settled> TrainingJob::timeOut(RankSimulator &sim,
                                                         const std::vector<RankSimulator::PendingInfo> &pending,
                                                         std::size_t first, TimeNs previousEnd, Prng &rng) const
{
    // ProcessGroupNCCL's watchdog wakes every 100 ms and measures each work from its enqueue; the
    // oldest hung work times out first. ncclCommAbort then raises the abort flag the kernels poll.
    constexpr TimeNs kWatchdogTickNs = 100000000;
    const RankSimulator::PendingInfo &hung = pending[first];
    CollectiveTimeout t;
    t.seq = hung.seq;
    t.nelems = hung.nelems;
    t.workStart = hung.launch;
    t.detected = hung.launch + m_config.collectiveTimeoutNs + rng.range(0, kWatchdogTickNs);
    t.aborted = t.detected + rng.range(150000000, 400000000);
    t.lastEnqueuedSeq = pending.back().seq;
    t.lastCompletedSeq = hung.seq - 1;
    std::vector<RankSimulator::Settled> out;
    TimeNs end = std::max(hung.ready, previousEnd);
    for (std::size_t k = first; k < pending.size(); ++k) {
        const TimeNs start = std::max(pending[k].ready, end);
        // The hung kernel spins until the abort flag rises; the ones queued behind it see the flag
        // at once and return.
        end = k == first ? t.detected + rng.range(200000, 900000) : start + rng.range(4000, 9000);
        out.push_back({start, end, true});
    }
    sim.record().timeout = t;
    return out;
}

JobRecord TrainingJob::run(const std::function<bool(std::int64_t)> &keepGoing)
{
    Prng rng(m_config.seed);
    std::vector<std::unique_ptr<RankSimulator>> sims;
    std::vector<std::unique_ptr<TransformerWorkload>> workloads;
    std::vector<RankSimulator *> simPtrs;
    for (const RankPlan &plan : m_config.ranks) {
        Prng rankRng = rng.fork(static_cast<std::uint64_t>(plan.rank) + 1);
        RankSetup setup = setupFor(plan, rankRng);
        sims.push_back(std::make_unique<RankSimulator>(std::move(setup), m_listeners, rankRng.fork(7)));
        workloads.push_back(std::make_unique<TransformerWorkload>(*sims.back(), m_config));
        workloads.back()->setUp();
        simPtrs.push_back(sims.back().get());
    }
    Prng settleRng = rng.fork(0x5e771e);
    const std::size_t steps = m_config.ranks.front().steps.size();
    std::vector<bool> failed(workloads.size(), false);
    for (std::size_t s = 0; s < steps; ++s) {
        for (std::size_t r = 0; r < workloads.size(); ++r) {
            try {
                workloads[r]->runUntilAllreduce(m_config.firstStep + static_cast<std::int64_t>(s),
                                                m_config.ranks[r].steps[s]);
            } catch (const OutOfMemoryError &) {
                failed[r] = true;
                sims[r]->unwind();
            }
        }
        settleCollectives(simPtrs, failed, settleRng);
        for (std::size_t r = 0; r < workloads.size(); ++r)
            if (!failed[r])
                workloads[r]->finishStep();
        // A failed rank ends the job: its peers leave this step on aborted communicators and are
        // stopped by torchrun (see JobTimeline).
        if (std::find(failed.begin(), failed.end(), true) != failed.end())
            break;
        if (keepGoing && !keepGoing(static_cast<std::int64_t>(s) + 1))
            break;
    }
    JobRecord record;
    for (auto &sim : sims) {
        sim->finish();
        record.ranks.push_back(sim->record());
    }
    for (JobListener *l : m_listeners)
        l->jobFinished(record);
    return record;
}

} // namespace rs::tracegen
