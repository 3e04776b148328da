#pragma once
// Turns the lines of an NCCL debug log or a whole torchrun job log into per-rank log records and
// structured evidence. Used by both NcclLogImporter and JobLogImporter.
//
// Source records → model:
//   * NCCL lines (`[TS]host:pid:tid [dev] NCCL INFO|WARN|TRACE ...`, bare `NCCL version ...`)
//     → LogRecord (kind Nccl; WARN counts as a warning); "Init START/COMPLETE" → NcclCommInfo;
//     "X set by environment to Y." → NcclSetting; COLL lines → NcclCall; the version → metadata.
//   * c10 lines (`[E0321 02:07:08.408 file.cpp:607] ...`, old `[E file.cpp:475] ...`), watchdog
//     timeouts → WatchdogTimeout (once per rank, group and SeqNum: rethrown exceptions repeat
//     them), "Timeout at NCCL work" / "detected by watchdog at work" → WatchdogProgress, desync
//     reports, DDP unused-parameter messages → LogRecord flags. Process-group tags (jobline::pgTag)
//     give the rank when no prefix did.
//   * torchrun's agent (glog `E0801 13:23:20.000000 pid file:line] ...` or `ERROR:torch...:`) and its
//     ChildFailedError summary → LogRecord (kind Torchrun) and ChildFailure per failed rank; other
//     launchers and schedulers (mpiexec/PBS, srun/slurmstepd, torch.distributed.launch; see
//     jobline::launcher) → LogRecord (kind Torchrun, flag Launcher) and ChildFailure or JobEvent.
//   * A Python traceback's final exception line → LogRecord (kind Python, Error); CUDA OOM text
//     and memory_summary tables anywhere → MemorySummaryParser (OomEvent, MemorySummary).
//   * Per-step memory lines of a training loop → allocated/reserved counters and steps (StepMemory);
//     per-step progress lines (`iteration 3/1000 | elapsed time per iteration (ms): …`) → timed steps
//     on a training-loop lane (StepProgress); `datetime: …` inside a message times its record;
//     `using world size: N` and the like → the source's world size.
//   * Every other line is kept as an Other record so the log reads whole in the viewer.
// Ranks: a launcher prefix (`[rank2]:`, `[default2]:`, `2: `) decides; NCCL lines without one take
// the rank of their process (host:pid) from its Init lines (LogRanks). In a log of several
// processes, a process that never states its rank is kept apart (LogEvidence::processes) rather
// than merged into the source's rank. Launcher and agent lines outside any rank belong to the job
// (kJobLevel). An OOM's "GPU n" is a device index: without a prefix, it names a rank only through
// the log's Init lines or local-rank statements (LogRanks::rankOfDevice).
//
// Caveats it knows: NCCL < 2.26 prints no time; c10/glog stamps have no year, so they take the
// year of a full date elsewhere in the log and stay untimed when there is none; local times use
// ImportContext::timeZone; lines spliced by concurrent writers are split at each NCCL header and
// the cut pieces are flagged (LogFlagInterleaved); the [dev] of a line is the thread's current
// CUDA device, which bootstrap threads leave at 0.

#include "importcontext.h"
#include "jobline.h"
#include "logline.h"
#include "logranks.h"
#include "memorysummary/memorysummaryparser.h"
#include "stepmemory.h"
#include "stepprogress.h"
#include "sourcebuilder.h"
#include "text/linewrapper.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <string_view>
#include <vector>

namespace rs {

class LogParser
{
public:
    LogParser(SourceBuilder &out, const ImportContext &ctx);

    /// Learns the input's recurring line wrappers (LineWrapper::learn) from its head; call before
    /// the first feed() with the start of the same input.
    void learnWrappers(std::string_view head);
    /// Feeds one physical line (without its newline): peels its wrappers, rejoins a line that a
    /// terminal hard-wrapped (one line of lookahead), splits records glued onto each other.
    void feed(std::string_view line, std::int64_t lineNo);
    /// Resolves ranks and year-less stamps, sets the source's ranks and clock.
    void finish();

private:
    struct Piece {
        std::string_view text;
        std::int64_t lineNo = 0;
        RankId rank = kNoRank;   // from the launcher prefix
        bool interleaved = false;
    };
    void piece(const Piece &p);
    // The line layer (feed): a logical line is one or more physical lines joined, wrappers peeled.
    void logicalLine(std::string_view text, std::int64_t lineNo, RankId rank, TimeNs time);
    void flushWrapped();
    bool scrub(std::string_view &line, std::int64_t lineNo);
    bool nccl(const Piece &p, TimeNs time, std::size_t recordIndex);
    void summaryLine(std::string_view text, std::int64_t lineNo);
    std::size_t addRecord(const Piece &p, std::string_view text, LogKind kind, LogLevel level, TimeNs time,
                          std::uint16_t flags);
    void remember(RankId rank);

    SourceBuilder &m_out;
    std::string m_zone;

    // Line layer state: wrappers of this input, a line that may continue on the next one, and
    // a copy of the current line when NUL bytes had to be taken out of it.
    LineWrapper m_wrapper;
    struct Held {                // a line that may be the middle of a record wrapped over several
        std::string text;
        std::int64_t lineNo = 0;
        RankId rank = kNoRank;
        TimeNs time = kNoTime;
    };
    struct Wrapped {
        bool active = false;
        std::string text;        // the cut line, wrappers peeled
        std::int64_t lineNo = 0; // its physical line
        RankId rank = kNoRank;
        TimeNs time = kNoTime;
        std::vector<Held> held;  // lines after it, until the record completes (or never does)
    } m_wrapped;
    std::string m_scrubbed;
    MemorySummaryParser m_memory;

    // Year-less stamps, resolved in finish() with the year of a full date seen in the log.
    std::vector<std::pair<std::size_t, logline::PartialStamp>> m_partial;
    int m_refYear = 0;

    // NCCL items whose rank comes from their process's Init line: (kind, index, process, dev).
    struct Pending {
        char what;           // 'r' record, 'c' comm, 's' setting, 'n' call
        std::size_t index;
        std::int32_t proc;   // LogRanks process index
        std::int32_t dev;
    };
    std::vector<Pending> m_pending;
    LogRanks m_rankFacts;

    // The record layer (piece): how a message is classified, and the evidence read from it.
    struct Classified {
        LogKind kind = LogKind::Other;
        LogLevel level = LogLevel::Info;
        std::string_view body;                      // the message after its c10/glog prefix
        std::optional<logline::PartialStamp> partial; // a year-less stamp to resolve in finish()
    };
    static Classified classify(std::string_view text);
    std::size_t addClassified(const Piece &owner, const Classified &c, LogKind kind, LogLevel level, TimeNs time,
                              std::uint16_t flags);
    void launcherLine(const Piece &p, jobline::LauncherLine &line, const Classified &c, TimeNs time);
    void watchdog(const Piece &p, std::string_view body, std::size_t recordIndex);
    void rankStatements(const Piece &p, std::string_view body, std::size_t recordIndex);
    void resolveProcesses();
    void resolveFailures();
    void resolveMemoryOwners();
    // Evidence that takes its record's time once stamps are resolved: (what, evidence, record);
    // what is 't' timeout, 'p' progress, 'f' failure, 'e' job event.
    std::vector<std::tuple<char, std::size_t, std::size_t>> m_evidenceTime;
    std::set<std::tuple<RankId, std::int64_t, std::string, std::int64_t>> m_timeoutsSeen; // rank, seq, op, ran for
    std::vector<std::int32_t> m_unknownProcess;  // per LogRanks process: index into logs().processes, -1
    StepMemory m_stepMemory;
    StepProgress m_stepProgress;
    bool m_perNodeLauncher = false; // a launcher that runs several ranks per srun task was seen

    std::map<RankId, bool> m_inTraceback;
    enum class Summary { None, Open } m_summary = Summary::None;
    bool m_rootCause = false;
    int m_summaryRules = 0;
    std::int64_t m_failure = -1; // index into logs().failures of the entry being read
    std::set<RankId> m_ranks;
    std::int32_t m_worldSize = 0;
};

} // namespace rs
