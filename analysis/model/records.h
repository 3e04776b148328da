#pragma once
// Untimed or sparsely timed evidence attached to a rank: printed memory_summary() tables, CUDA OOM
// messages, and log records. Times are wall-clock ns when the source gave one, else kNoTime.

#include "textarena.h"
#include "types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rs {

inline constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();

/// One row of a memory_summary table ("Allocated memory", pool "all"/"large"/"small").
struct MemorySummaryRow {
    std::string metric;          ///< row name as printed, e.g. "Allocated memory", "Allocations"
    std::string pool;            ///< "all" for the main row, "large" / "small" for the sub-rows
    bool isBytes = true;         ///< byte row (cells with units) or count row
    std::int64_t current = -1;   ///< Cur Usage in bytes (or count); -1 when unreadable
    std::int64_t peak = -1;      ///< Peak Usage
    std::int64_t allocated = -1; ///< Tot Alloc
    std::int64_t freed = -1;     ///< Tot Freed
};

/// A complete torch.cuda.memory_summary() table.
struct MemorySummary {
    RankId rank = kNoRank;            ///< owning rank (resolved when frozen)
    std::int32_t device = -1;         ///< "device ID n" of the header
    TimeNs time = kNoTime;            ///< from the surrounding log line, when it had a time stamp
    std::int64_t line = 0;            ///< 1-based line of the table's first line in its source
    SourceId source = 0;              ///< the file it was read from (set when frozen)
    std::int64_t ooms = -1;           ///< "CUDA OOMs" header value
    std::int64_t allocRetries = -1;   ///< "cudaMalloc retries" header value
    bool abbreviated = false;         ///< printed with abbreviated=True (no pool sub-rows)
    bool partial = false;             ///< cut off (input ended, another line or a cut row came before the
                                      ///< closing rule): the complete rows read before the cut are kept;
                                      ///< partial tables are not counted in counts.memorySummaries
    std::int32_t oom = -1;            ///< index into Session::ooms() of the OOM this table follows, -1 if none
    std::vector<MemorySummaryRow> rows; ///< in printed order

    /// The row named `metric` for `pool`, or nullptr.
    const MemorySummaryRow *row(const std::string &metric, const std::string &pool = "all") const
    {
        for (const auto &r : rows)
            if (r.metric == metric && r.pool == pool)
                return &r;
        return nullptr;
    }
};

/// A CUDA out-of-memory message ("CUDA out of memory. Tried to allocate ...").
struct OomEvent {
    RankId rank = kNoRank;            ///< owning rank (resolved when frozen)
    std::int32_t device = -1;         ///< GPU n of the message (local CUDA index)
    TimeNs time = kNoTime;            ///< from the log line or trace, when known
    std::int64_t line = 0;            ///< 1-based line in its source (0 when not from text)
    SourceId source = 0;              ///< the file it was read from (set when frozen)
    std::int64_t requested = -1;      ///< bytes it tried to allocate
    std::int64_t capacity = -1;       ///< total capacity of the GPU
    std::int64_t allocated = -1;      ///< allocated by PyTorch
    std::int64_t reserved = -1;       ///< reserved by PyTorch (old form states it; new form: allocated + unallocated)
    std::int64_t free = -1;           ///< free on the GPU
    std::int64_t processInUse = -1;   ///< "this process has X memory in use" (new form), -1 if absent
    std::int64_t otherProcessesInUse = -1; ///< sum of "Process N has X memory in use" (new form; NVML pids,
                                      ///< so inside a container this can be the process itself), -1 if absent
    std::int64_t allowed = -1;        ///< "X allowed" (set_per_process_memory_fraction limit), -1 if absent
    std::string text;                 ///< the message, from "CUDA out of memory" on
};

} // namespace rs

namespace rs {

enum class LogLevel : std::uint8_t { Info, Warning, Error };
enum class LogKind : std::uint8_t {
    Nccl,     ///< an NCCL debug line (host:pid:tid [dev] NCCL INFO|WARN ...)
    PyTorch,  ///< a c10 / ProcessGroupNCCL / DDP message
    Torchrun, ///< a launcher's or scheduler's lines: torchrun's agent and ChildFailedError summary,
              ///< torch.distributed.launch, mpiexec/PBS, srun/slurmstepd
    Python,   ///< a Python traceback's final exception line
    Other,    ///< any other line of a job log (kept so the log reads whole)
};

/// Bits of LogRecord::flags: what a record is evidence of.
enum LogFlag : std::uint16_t {
    LogFlagOom = 1 << 0,             ///< a CUDA out-of-memory message
    LogFlagWatchdogTimeout = 1 << 1, ///< ProcessGroupNCCL watchdog timeout
    LogFlagDesync = 1 << 2,          ///< a desync report / mismatched collectives
    LogFlagUnusedParameters = 1 << 3, ///< DDP unused-parameter messages
    LogFlagChildFailed = 1 << 4,     ///< torchrun reported a failed child
    LogFlagNcclInit = 1 << 5,        ///< NCCL Init START/COMPLETE
    LogFlagNcclSetting = 1 << 6,     ///< "X set by environment to Y"
    LogFlagNcclCollective = 1 << 7,  ///< NCCL COLL subsystem call
    LogFlagInterleaved = 1 << 8,     ///< the physical line held pieces of several records
    LogFlagNcclAbort = 1 << 9,       ///< comm abort
    LogFlagLauncher = 1 << 10,       ///< a launcher/scheduler line read into a ChildFailure or JobEvent
    LogFlagWatchdogProgress = 1 << 11, ///< watchdog work/enqueued/completed report (WatchdogProgress)
    LogFlagStepMemory = 1 << 12,     ///< a training log's per-step memory line (read into memory counters)
};

/// One record of a log: an NCCL line, a PyTorch message, a traceback's exception, or plain output.
struct LogRecord {
    TimeNs time = kNoTime;      ///< wall-clock ns when the line had a usable time stamp
    std::int64_t line = 0;      ///< 1-based line in its source
    RankId rank = kNoRank;      ///< owning rank (resolved when frozen)
    SourceId source = 0;        ///< the file it was read from (set when frozen)
    std::int32_t process = -1;  ///< index into LogEvidence::processes when the line's process had no
                                ///< known rank in a log of several processes, else -1
    TextId text = kNoText;      ///< the message without launcher/rank prefixes: LogEvidence::text(record)
    std::uint16_t flags = 0;    ///< LogFlag bits
    LogLevel level = LogLevel::Info; ///< severity as the writer stated it
    LogKind kind = LogKind::Other;   ///< who wrote it
    std::uint32_t reserved = 0; ///< always 0: the record has no padding, so the cache stores it byte for byte
};

/// An NCCL communicator member, from "comm 0x.. rank R nranks N cudaDev D ... busId B commId C - Init COMPLETE".
struct NcclCommInfo {
    RankId rank = kNoRank;      ///< rank within the communicator (the global rank for the default group)
    std::int32_t nranks = 0;    ///< communicator size
    std::int32_t cudaDev = -1;  ///< local CUDA device
    std::int64_t busId = -1;    ///< PCI bus id as NCCL prints it (hex 7000 → 0x7000)
    std::string commId;         ///< "0x245d..." (same on every member)
    std::string host;           ///< host name of the line prefix
    std::int64_t pid = 0;       ///< process id of the line prefix
    TimeNs time = kNoTime;      ///< when the line had a time stamp
    std::int64_t line = 0;      ///< 1-based line in its source
    bool complete = false;      ///< Init COMPLETE (true) or Init START (false)
};

/// An NCCL environment setting echoed in the log ("NCCL_BUFFSIZE set by environment to 4194304.").
struct NcclSetting {
    RankId rank = kNoRank;      ///< rank of the process that printed it
    std::string name;           ///< "NCCL_BUFFSIZE"
    std::string value;          ///< "4194304"
    std::int64_t line = 0;      ///< 1-based line in its source
    std::int32_t process = -1;  ///< as LogRecord::process
};

/// An NCCL collective call from the COLL subsystem ("AllReduce: opCount 3 ... count 1024 datatype 7 op 0").
struct NcclCall {
    RankId rank = kNoRank;      ///< rank of the process that made it
    std::string op;             ///< "AllReduce", "Broadcast", ...
    std::uint64_t opCount = 0;  ///< the communicator's op counter (hex in the log)
    std::int64_t count = -1;    ///< element count
    std::int32_t datatype = -1; ///< ncclDataType_t
    std::int32_t redOp = -1;    ///< ncclRedOp_t
    std::string comm;           ///< communicator pointer "0x..."
    TimeNs time = kNoTime;      ///< when the line had a time stamp
    std::int64_t line = 0;      ///< 1-based line in its source
    std::int32_t process = -1;  ///< as LogRecord::process
};

/// A ProcessGroupNCCL watchdog timeout ("WorkNCCL(SeqNum=..., OpType=...) ran for N milliseconds").
struct WatchdogTimeout {
    RankId rank = kNoRank;      ///< rank that reported it
    std::int64_t seq = -1;      ///< SeqNum of the collective that timed out
    std::string opType;         ///< "ALLREDUCE", ...
    std::int64_t numelIn = -1;  ///< NumelIn, -1 when the version did not print it
    std::int64_t numelOut = -1; ///< NumelOut
    std::int64_t timeoutMs = -1; ///< Timeout(ms)
    std::int64_t ranForMs = -1; ///< how long it ran
    TimeNs time = kNoTime;      ///< when the line had a time stamp
    std::int64_t line = 0;      ///< 1-based line in its source (the first report; repeats of the same
                                ///< rank, group and SeqNum in rethrown exceptions are not kept again)
    std::int32_t pgId = -1;     ///< process group of the tag ("[PG 1 Rank 0]" → 1), -1 for "[Rank R]"
    std::string pgDesc;         ///< group description ("default_pg"), "" when the tag names none
};

/// Where a rank's process group stood when its watchdog fired: "Timeout at NCCL work: W, last enqueued
/// NCCL work: E, last completed NCCL work: C" or "Exception (either an error or timeout) detected by
/// watchdog at work: W, last enqueued ...". Work numbers are the group's SeqNums; a rank whose last
/// completed is below another rank's is the one that fell behind.
struct WatchdogProgress {
    RankId rank = kNoRank;          ///< rank of the tag or launcher prefix
    std::int32_t pgId = -1;         ///< process group of the tag, -1 when "[Rank R]"
    std::string pgDesc;             ///< group description, "" when none
    std::int64_t work = -1;         ///< SeqNum of the work that timed out or failed
    std::int64_t lastEnqueued = -1; ///< -1 when absent or unusable
    std::int64_t lastCompleted = -1; ///< -1 when none completed, absent, or uninitialised garbage
                                    ///< (values far above the work number; warned as watchdog-progress-garbage)
    bool timeout = true;            ///< "Timeout at NCCL work" (true) or "Exception ... detected" (false)
    TimeNs time = kNoTime;          ///< when the line had a time stamp
    std::int64_t line = 0;          ///< 1-based line in its source
};

/// A worker process that ended badly, as its launcher reported it: an entry of torchrun's
/// ChildFailedError summary or its agent's "failed (exitcode: N) local_rank: L (pid: P)" line,
/// mpiexec/PBS "<host>: rank R died from signal S [and dumped core]" / "rank R exited with code N",
/// srun "error: <host>: task T: Exited with exit code N" (or Killed, Segmentation fault ...),
/// torch.distributed.launch's "subprocess.CalledProcessError: ... returned non-zero exit status N".
struct ChildFailure {
    RankId rank = kNoRank;      ///< global rank ("rank :" key, mpiexec's rank); kJobLevel when the
                                ///< launcher named only a local rank or an srun task that is not a rank
    std::int32_t localRank = -1; ///< local_rank
    std::int32_t exitCode = 0;  ///< negative: killed by a signal
    std::int64_t pid = 0;       ///< child pid
    std::string host;           ///< host
    std::string when;           ///< the summary's own "time" text (local time)
    std::string signal;         ///< "SIGKILL" when the child died of a signal
    bool rootCause = false;     ///< listed under "Root Cause (first observed failure)"
    std::int64_t line = 0;      ///< 1-based line of "[i]:" (or of the launcher's line) in its source
    std::string launcher;       ///< "torchrun", "mpiexec", "srun", "torch.distributed.launch"
    std::int32_t task = -1;     ///< srun task id (SLURM_PROCID), -1 for other launchers
    bool coreDumped = false;    ///< "and dumped core" / "(core dumped)"
    TimeNs time = kNoTime;      ///< when the line had a usable stamp (the summary's `when` is text)
};

/// What a launcher or scheduler did to the job as a whole, in the order it was logged.
enum class JobEventKind : std::uint8_t {
    Cancelled,         ///< the scheduler ended the job or a step: slurmstepd "*** JOB 1999618 ON host
                       ///< CANCELLED AT 2021-05-27T21:52:36 DUE TO TIME LIMIT ***", PBS "job killed: walltime"
    StepAborted,       ///< srun "Job step aborted" (srun is tearing the step down)
    NodeFailure,       ///< srun "error: Node failure on host"
    OomKill,           ///< slurmstepd "Detected N oom-kill event(s)": the host's OOM killer, not CUDA
    ProcessKilled,     ///< the launcher killed a worker: "Killing subprocess N", "Sending process N closing signal SIGTERM"
    LauncherSignalled, ///< the launcher itself got a signal: "Main process received SIGTERM, exiting",
                       ///< "Received Signals.SIGTERM death signal", "SignalException: Process N got signal: 15"
};

/// One JobEvent: a scheduler cancel, a step abort, a worker killed by its launcher.
struct JobEvent {
    JobEventKind kind = JobEventKind::Cancelled;
    RankId rank = kJobLevel;    ///< kJobLevel unless a launcher prefix named a rank
    std::string launcher;       ///< "slurm", "srun", "pbs", "torch.distributed.launch", "torchrun"
    std::string jobId;          ///< "1999618", or the step "1999618.0"; "" when not stated
    bool step = false;          ///< a job step ("*** STEP ...") rather than the whole job
    std::string host;           ///< host it names, "" if none
    std::string reason;         ///< "TIME LIMIT", "NODE FAILURE", "PREEMPTION", "walltime ... exceeded ...";
                                ///< "" for a plain cancel (scancel)
    std::string signal;         ///< "SIGTERM" for ProcessKilled / LauncherSignalled, "" if none
    std::int64_t pid = 0;       ///< process it names (killed worker, signalled launcher), 0 if none
    std::int32_t count = -1;    ///< OomKill: number of oom-kill events, -1 otherwise
    TimeNs time = kNoTime;      ///< the stamp the scheduler wrote (SLURM's is a full date) or the line's
    std::int64_t line = 0;      ///< 1-based line in its source
};

/// A process seen in a log of several processes whose rank the log never states (NCCL lines with
/// no launcher prefix and no Init line of that host:pid). Records of it point here (LogRecord::
/// process); SessionBuilder gives each one its own placeholder rank rather than merging them.
struct LogProcess {
    std::string host;           ///< host of its NCCL lines
    std::int64_t pid = 0;       ///< pid of its NCCL lines
    std::int64_t firstLine = 0; ///< 1-based line of its first record
    RankId rank = kNoRank;      ///< the placeholder rank SessionBuilder gave it (RankOrigin::Assigned)
};

} // namespace rs

namespace rs {

/// Everything read from logs, kept together so builders and the session handle it as one unit.
struct LogEvidence {
    std::vector<LogRecord> records;        ///< in source order
    /// The records' messages: texts[r.source] holds r.text (a SourceBuilder's records are all of
    /// its source 0 until SessionBuilder numbers them). Messages are most of a job log's bytes and a
    /// few of them are ever read — the rules read the records their kind and flags select, the log
    /// view the rows on screen — so an arena read back from the cache loads them by the block.
    std::vector<TextArena> texts;
    std::vector<NcclCommInfo> comms;       ///< NCCL Init START/COMPLETE lines
    std::vector<NcclSetting> settings;     ///< NCCL environment settings echoed
    std::vector<NcclCall> calls;           ///< COLL subsystem calls
    std::vector<WatchdogTimeout> timeouts; ///< ProcessGroupNCCL watchdog timeouts
    std::vector<ChildFailure> failures;    ///< failed workers (torchrun, mpiexec, srun, torch.distributed.launch)
    std::vector<WatchdogProgress> progress; ///< watchdog work/enqueued/completed reports
    std::vector<JobEvent> jobEvents;       ///< scheduler cancels, step aborts, launcher kills
    std::vector<LogProcess> processes;     ///< processes of unknown rank (see LogProcess)

    bool empty() const
    {
        return records.empty() && comms.empty() && settings.empty() && calls.empty() && timeouts.empty()
            && failures.empty() && progress.empty() && jobEvents.empty();
    }
    /// The message of `r`: empty when it has none, or when its block of a lazy arena can no longer
    /// be loaded (lost() says so).
    std::string_view text(const LogRecord &r) const
    {
        return r.source < texts.size() ? texts[r.source].view(r.text) : std::string_view();
    }
    /// Stores the message of a record of `source` and returns its id.
    TextId addText(std::string_view text, SourceId source = 0)
    {
        if (texts.size() <= source)
            texts.resize(std::size_t(source) + 1);
        return texts[source].add(text);
    }
    /// True when `r` has a message that could not be loaded back from the cache (its entry was
    /// evicted or cleared while the session was open).
    bool lost(const LogRecord &r) const { return r.text != kNoText && text(r).empty(); }
};

} // namespace rs

namespace rs {

/// One Python frame of an allocation's stack (snapshot `frames`).
struct StackFrame {
    std::string filename;   ///< source file
    std::string name;       ///< function
    std::int32_t line = 0;  ///< line in the file
};

/// One allocation of the caching allocator, from a snapshot's trace (alloc … free_completed).
struct AllocationRecord {
    RankId rank = kNoRank;       ///< owning rank (resolved when frozen)
    std::int32_t device = 0;     ///< CUDA device index
    TimeNs time = kNoTime;       ///< when it was allocated (wall clock when the trace had time_us)
    TimeNs freed = kNoTime;      ///< when its free completed, kNoTime while still alive at the snapshot
    std::uint64_t address = 0;   ///< device address
    std::int64_t size = 0;       ///< bytes (rounded block size)
    std::int64_t sequence = 0;   ///< index of its alloc entry in the device's trace (order without clock)
    std::int32_t stack = -1;     ///< index into AllocatorEvidence::stacks, -1 without frames
};

/// A cudaMalloc'd segment at snapshot time, with its blocks.
struct SegmentRecord {
    RankId rank = kNoRank;          ///< owning rank (resolved when frozen)
    std::int32_t device = 0;        ///< CUDA device index
    std::uint64_t address = 0;      ///< segment start
    std::int64_t totalSize = 0;     ///< bytes reserved
    std::int64_t allocatedSize = 0; ///< bytes in allocated blocks
    std::int64_t activeSize = 0;    ///< bytes in active blocks (allocated or awaiting free)
    bool large = true;              ///< large or small pool
    bool expandable = false;        ///< expandable segment
    bool privatePool = false;       ///< segment_pool_id other than (0,0): CUDA graph / MemPool
    std::int32_t stack = -1;        ///< segment_alloc stack, -1 if none
    struct Block {
        std::uint64_t address = 0;  ///< block start
        std::int64_t size = 0;      ///< bytes
        std::int64_t requested = 0; ///< bytes asked for
        enum class State : std::uint8_t { Allocated, AwaitingFree, Inactive } state = State::Inactive;
        std::int32_t stack = -1;    ///< allocation stack, -1 if none
    };
    std::vector<Block> blocks;      ///< in address order
};

/// Everything read from allocator snapshots.
struct AllocatorEvidence {
    std::vector<AllocationRecord> allocations;   ///< in trace order per source
    std::vector<SegmentRecord> segments;         ///< at snapshot time
    std::vector<std::vector<StackFrame>> stacks; ///< distinct stacks, innermost frame first
    std::string settings;                        ///< allocator_settings as JSON text, "" if absent

    bool empty() const { return allocations.empty() && segments.empty(); }
};

} // namespace rs
