#pragma once
// Where every rank stood in every process group's collectives, from every kind of evidence the
// session has: ProcessGroupNCCL watchdog timeouts and progress reports, NCCL flight-recorder
// entries and pg_status, profiler trace collectives, NCCL COLL calls. Per (group, SeqNum) it keeps
// what each rank ran, like PyTorch's fr_trace does with flight-recorder dumps, so a rule can name
// the rank that never reached the collective its peers wait on, or the one that ran another op.
// Plain C++ on the model; no judgement about culprits is made here.

#include "session.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rs {

/// The kind of evidence a progress number or an op came from, strongest first.
enum class ProgressKind : std::uint8_t {
    FlightRecorder,       ///< an entry of an NCCL flight-recorder dump
    FlightRecorderStatus, ///< a dump's pg_status (last enqueued / started / completed)
    Watchdog,             ///< a watchdog timeout ("WorkNCCL(SeqNum=…, OpType=…) ran for …")
    WatchdogProgress,     ///< "last enqueued NCCL work: E, last completed NCCL work: C"
    Trace,                ///< a profiler trace collective (its window may end long before a hang)
    NcclCall,             ///< an NCCL COLL line (opCount, per communicator: not a SeqNum)
};
/// "flight recorder", "watchdog", … (for evidence text).
const char *progressKindName(ProgressKind k);

/// One place that says something about a rank's collectives: enough to write an evidence line.
struct ProgressNote {
    RankId rank = kNoRank;        ///< the rank it is about
    ProgressKind kind = ProgressKind::Watchdog; ///< what kind of evidence
    SourceId source = 0;          ///< the file it was read from
    std::int64_t line = -1;       ///< 1-based line in that file, -1 when it has none (trace, dump entry)
    std::int64_t record = -1;     ///< index into Session::logs().records of the line that says it, -1 if none
    TimeNs time = kNoTime;        ///< on the rank's own clock, kNoTime when unknown
    std::string text;             ///< what it says, in words ("watchdog: ALLREDUCE SeqNum 67 timed out after 600000 ms")
};

/// What one rank ran at one (process group, SeqNum), by one kind of evidence.
struct CollectiveOp {
    RankId rank = kNoRank;        ///< the rank that ran it
    ProgressKind kind = ProgressKind::Watchdog; ///< where it was read (ops are compared within one kind)
    std::string op;               ///< as the evidence spells it: "ALLREDUCE", "nccl:all_reduce", "allreduce"
    std::string opKey;            ///< lower case without "nccl:" and '_' ("allreduce", "allgatherbase"): compared
    std::string sizes;            ///< sizes as text ("NumelIn=1, NumelOut=8", "in [[1024]] out [[1024]]"), "" unknown
    std::string dtypes;           ///< dtypes as text ("Float"), "" unknown
    bool sizesMustMatch = false;  ///< the op moves the same amount on every rank (not all-to-all, not p2p), so
                                  ///< differing sizes are a mismatch
    bool completed = false;       ///< the evidence says it completed (trace kernel, FR state completed)
    ProgressNote note;            ///< where it was read
};

/// Every rank's op at one (process group, SeqNum).
struct GroupSeqOps {
    std::string group;            ///< process group key (see CollectiveProgress::groupKey)
    std::int64_t seq = -1;        ///< collective SeqNum (c10d's, = FR collective_seq_id)
    std::vector<CollectiveOp> ops; ///< one per rank and kind, in rank order
};

/// Where one rank stands in one process group, on the SeqNum scale.
struct RankProgress {
    RankId rank = kNoRank;        ///< the rank
    std::string group;            ///< process group key
    std::int64_t reached = -1;    ///< highest SeqNum the rank is known to have enqueued (or to wait on), -1 unknown
    bool reachedIsLowerBound = true; ///< `reached` rests only on evidence that may end early (a trace window,
                                  ///< a ring buffer): the rank may have gone further
    ProgressNote reachedNote;     ///< the evidence of `reached`
    std::int64_t started = -1;    ///< highest SeqNum known started (flight recorder), -1 unknown
    std::int64_t completed = -1;  ///< highest SeqNum known completed, -1 unknown or none
    ProgressNote completedNote;   ///< the evidence of `completed`
    std::int64_t waitingOn = -1;  ///< SeqNum its watchdog timed out (or failed) on / its flight recorder's last
                                  ///< entry not completed when dumped; -1 when it reported no wait
    std::string waitingOp;        ///< the op of that work ("ALLREDUCE"), "" unknown
    std::string waitingSizes;     ///< its sizes as text, "" unknown
    ProgressNote waitingNote;     ///< the report of the wait
    bool watchdogReported = false; ///< a watchdog timeout or exception report of this rank exists for the group
};

/// One rank's NCCL COLL calls on one communicator (opCount is per communicator, not a SeqNum).
struct CallProgress {
    RankId rank = kNoRank;        ///< the rank
    int slot = 0;                 ///< 0-based order in which the rank's communicator first appears in its calls;
                                  ///< ranks' slots are compared only when every rank has the same number
    std::string comm;             ///< communicator pointer ("0x...", differs per process)
    std::uint64_t lastOpCount = 0; ///< highest opCount
    std::string lastOp;           ///< op of that call ("AllReduce")
    std::int64_t calls = 0;       ///< calls seen
    ProgressNote note;            ///< the last call's line
};

class CollectiveProgress
{
public:
    /// Gathers the progress of every rank in `session`.
    static CollectiveProgress gather(const Session &session);

    /// Process group key of a name or id as the evidence spells it: "default_pg" becomes "0". Evidence
    /// that names no group (a "[Rank R]" watchdog tag) is put in "0" when no other group is named, else in "?".
    static std::string groupKey(std::string_view name);
    /// Lower case, "nccl:" and '_' removed: "_ALLGATHER_BASE" and "nccl:_allgather_base" → "allgatherbase".
    static std::string opKey(std::string_view op);
    /// True when every member of a collective of `opKey` must pass the same sizes (not all-to-all,
    /// scatter/gather with uneven splits, or point-to-point).
    static bool sizesMustMatch(std::string_view opKey);

    /// Groups with any evidence, "0" first.
    std::vector<std::string> groups() const;
    /// Ranks of `group`: a dump's pg_config when present, else for the default group every real rank
    /// of the session and of the world size the logs state, else the ranks with evidence in it.
    std::vector<RankId> members(const std::string &group) const;
    /// Progress of `rank` in `group`, or nullptr when nothing is known.
    const RankProgress *progress(RankId rank, const std::string &group) const;
    /// Every (group, SeqNum) with an op of any rank, by group then SeqNum.
    const std::vector<GroupSeqOps> &seqs() const { return m_seqs; }
    /// The ops at (group, seq), or nullptr.
    const GroupSeqOps *at(const std::string &group, std::int64_t seq) const;
    /// NCCL COLL progress per rank and communicator.
    const std::vector<CallProgress> &calls() const { return m_calls; }
    /// Ranks that have any record in the session's logs (a rank silent in a log that carries it).
    const std::vector<RankId> &ranksWithLogs() const { return m_ranksWithLogs; }
    /// World size the session states (traces, NCCL Init lines), 0 if unknown.
    std::int32_t worldSize() const { return m_worldSize; }
    /// World size the file `source` states, 0 if unknown.
    std::int32_t sourceWorldSize(SourceId source) const { return source < m_sourceWorld.size() ? m_sourceWorld[source] : 0; }
    /// True when `rank` can be a member of a job of `worldSize` ranks (0: unknown): it is below it,
    /// and no file that feeds the rank states another world size (unrelated jobs in one folder).
    bool inJobOf(RankId rank, std::int32_t worldSize) const;
    /// Collective calls per ProfilerStep of each rank with steps: c10d's record_param_comms host
    /// ops inside the step, or, without those, the kernels that start inside it.
    const std::map<RankId, std::map<std::int64_t, int>> &collectivesPerStep() const { return m_perStep; }

private:
    void addOp(const std::string &group, std::int64_t seq, CollectiveOp op);
    RankProgress &entry(RankId rank, const std::string &group);
    // The flagged record of `rank` at `line` (the file and text of a structured report), or nullptr.
    const LogRecord *record(const Session &s, RankId rank, std::int64_t line, std::uint16_t flag);
    void gatherWatchdog(const Session &s);
    void gatherFlightRecorder(const Session &s);
    void gatherTraces(const Session &s);
    void gatherCalls(const Session &s);
    void gatherSteps(const Session &s);

    std::vector<RankProgress> m_progress;
    std::map<std::pair<std::string, std::int64_t>, GroupSeqOps> m_byKey;
    std::vector<GroupSeqOps> m_seqs;
    std::map<std::string, std::vector<RankId>> m_groupRanks; // pg_config ranks per group
    std::vector<CallProgress> m_calls;
    std::vector<RankId> m_realRanks;
    std::vector<RankId> m_ranksWithLogs;
    std::int32_t m_worldSize = 0;
    std::vector<std::int32_t> m_sourceWorld;                 // per source
    std::map<RankId, std::vector<std::int32_t>> m_rankWorlds; // world sizes stated by a rank's sources
    std::map<RankId, std::map<std::int64_t, int>> m_perStep;
    std::multimap<std::pair<RankId, std::int64_t>, std::size_t> m_recordIndex; // while gathering only
};

} // namespace rs
