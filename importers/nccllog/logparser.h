#pragma once
// Turns the lines of an NCCL debug log or a whole torchrun job log into per-rank log records and
// structured evidence. Used by both NcclLogImporter and JobLogImporter.
//
// Source records → model:
//   * NCCL lines (`[TS]host:pid:tid [dev] NCCL INFO|WARN|TRACE ...`, bare `NCCL version ...`)
//     → LogRecord (kind Nccl; WARN counts as a warning); "Init START/COMPLETE" → NcclCommInfo;
//     "X set by environment to Y." → NcclSetting; COLL lines → NcclCall; the version → metadata.
//   * c10 lines (`[E0321 02:07:08.408 file.cpp:607] ...`, old `[E file.cpp:475] ...`), watchdog
//     timeouts → WatchdogTimeout, desync reports, DDP unused-parameter messages → LogRecord flags.
//   * torchrun's agent (glog `E0801 13:23:20.000000 pid file:line] ...` or `ERROR:torch...:`) and its
//     ChildFailedError summary → LogRecord (kind Torchrun) and ChildFailure per failed rank.
//   * A Python traceback's final exception line → LogRecord (kind Python, Error); CUDA OOM text
//     and memory_summary tables anywhere → MemorySummaryParser (OomEvent, MemorySummary).
//   * Every other line is kept as an Other record so the log reads whole in the viewer.
// Ranks: a launcher prefix (`[rank2]:`, `[default2]:`, `2: `) decides; NCCL lines without one take
// the rank of their process from its Init line (by pid and device), else the source's rank.
// Agent lines outside any rank belong to the job (kJobLevel).
//
// Caveats it knows: NCCL < 2.26 prints no time; c10/glog stamps have no year, so they take the
// year of a full date elsewhere in the log and stay untimed when there is none; local times use
// ImportContext::timeZone; lines spliced by concurrent writers are split at each NCCL header and
// the cut pieces are flagged (LogFlagInterleaved); the [dev] of a line is the thread's current
// CUDA device, which bootstrap threads leave at 0.

#include "importcontext.h"
#include "logline.h"
#include "memorysummary/memorysummaryparser.h"
#include "sourcebuilder.h"
#include "text/linewrapper.h"

#include <map>
#include <set>
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
    struct Wrapped {
        bool active = false;
        std::string text;        // the cut line, wrappers peeled
        std::int64_t lineNo = 0; // its physical line
        RankId rank = kNoRank;
        TimeNs time = kNoTime;
    } m_wrapped;
    std::string m_scrubbed;
    MemorySummaryParser m_memory;

    // Year-less stamps, resolved in finish() with the year of a full date seen in the log.
    std::vector<std::pair<std::size_t, logline::PartialStamp>> m_partial;
    int m_refYear = 0;

    // NCCL items whose rank comes from their process's Init line: (kind, index, pid, dev).
    struct Pending {
        char what;           // 'r' record, 'c' comm, 's' setting, 'n' call
        std::size_t index;
        std::int64_t pid;
        std::int32_t dev;
    };
    std::vector<Pending> m_pending;
    std::map<std::pair<std::int64_t, std::int32_t>, RankId> m_pidDevRank;
    std::map<std::int64_t, RankId> m_pidRank;

    std::map<RankId, bool> m_inTraceback;
    enum class Summary { None, Open } m_summary = Summary::None;
    bool m_rootCause = false;
    int m_summaryRules = 0;
    std::int64_t m_failure = -1; // index into logs().failures of the entry being read
    std::set<RankId> m_ranks;
    std::int32_t m_worldSize = 0;
};

} // namespace rs
