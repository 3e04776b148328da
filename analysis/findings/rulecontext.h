#pragma once
// What a finding rule may look at, plus the small helpers every rule needs (aligned times,
// evidence lines in the contract's "path:line: text" form, byte formatting).

#include "analysisresult.h"
#include "session.h"

#include <string>

namespace rs {

/// Everything that says one rank ran out of memory, merged: the allocator's message (with its
/// numbers), the profiler's [OutOfMemory] instant, NCCL's "Cuda failure ... out of memory", the
/// memory_summary's "CUDA OOMs" count. One per rank; `count` says how many failures it covers.
struct OomInfo {
    RankId rank = kNoRank;
    TimeNs alignedTime = kNoTime;     ///< earliest timed evidence, on the aligned axis
    TimeNs rankTime = kNoTime;        ///< the same on the rank's own clock
    const OomEvent *event = nullptr;  ///< the allocator message with the most numbers, if any
    std::vector<Evidence> evidence;   ///< every line that says so
    bool duringCollective = false;    ///< the OOM time falls inside a collective on that rank
    bool ncclOom = false;             ///< NCCL itself reported the CUDA OOM
    int count = 0;                    ///< OOMs of the rank, each once (OomIncidents; equals RankMetrics::oomCount)
};

struct RuleContext;
/// Gathers the OOM evidence of every rank; the analyzer stores it in RuleContext::ooms once.
std::vector<OomInfo> collectOoms(const RuleContext &ctx);

struct RuleContext {
    const Session &session;
    const std::vector<RankAlignment> &alignment;
    const std::vector<RankMetrics> &metrics;
    const std::vector<Spike> &spikes;
    const std::vector<Divergence> &divergent;
    /// Every rank's OOM evidence, gathered once (several rules ask for it).
    std::vector<OomInfo> ooms = {};

    /// `t` (a rank's own clock) on the aligned axis; kNoTime stays kNoTime.
    TimeNs aligned(RankId rank, TimeNs t) const;
    const RankMetrics *metricsOf(RankId rank) const;
    /// Divergences of `metric` (any rank).
    std::vector<const Divergence *> divergences(std::string_view metric) const;
    /// Total GPU memory of `rank` (capacity), 0 if unknown.
    std::int64_t capacity(RankId rank) const;
    /// The step of `rank` containing `t` (rank clock), -1 if none.
    std::int64_t stepAt(RankId rank, TimeNs t) const;

    /// Evidence for a log record: "path:line: text".
    Evidence evidence(const LogRecord &r) const;
    /// Evidence for an OOM event.
    Evidence evidence(const OomEvent &o) const;
    /// Adds log record `r` to a finding that gathers records of one kind across ranks: its rank
    /// (once), its line as evidence (at most `maxEvidence`), and its time when the finding has none.
    void gather(Finding &f, const LogRecord &r, std::size_t maxEvidence = 8) const;
    /// Evidence without a line (derived from a trace or metric).
    Evidence derived(RankId rank, std::string text, std::optional<TimeNs> alignedTime = std::nullopt,
                     std::string path = {}) const;
};


/// "1.50 GiB", "512 MiB", "900 KiB", "12 B".
std::string formatBytes(std::int64_t bytes);
/// "12.3 ms", "4.20 s".
std::string formatDuration(TimeNs ns);
/// "rank 2" / "ranks 1, 3".
std::string rankList(const std::vector<RankId> &ranks);

} // namespace rs
