#pragma once
// The grammar of the record-level lines of a job log, without state: ProcessGroupNCCL watchdog
// reports with their process-group tags, and what launchers and schedulers print when a worker or
// the job ends (mpiexec/PBS, srun/slurmstepd, torch.distributed.launch, torchrun's agent).
// LogParser decides ranks and owners; these functions only read one message (prefixes removed).
//
// Shapes it knows:
//   * tags `[Rank R]`, `[PG N Rank R]`, `[PG N (desc) Rank R]`, `[PG ID N PG GUID G(desc) Rank R]`;
//   * `Watchdog caught collective operation timeout: WorkNCCL(SeqNum=.., OpType=..[, NumelIn=..,
//     NumelOut=..], Timeout(ms)=..) ran for N milliseconds` (NumelIn/Out absent before ~2.2);
//   * `Timeout at NCCL work: W, last enqueued NCCL work: E, last completed NCCL work: C` and
//     `Exception (either an error or timeout) detected by watchdog at work: W, last enqueued ...`;
//     C (and E) may be uninitialised memory: see implausibleWork();
//   * launcher and scheduler lines listed at LauncherLine.

#include "records.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::jobline {

/// A ProcessGroupNCCL tag: the first `[... Rank R]` in a message.
struct PgTag {
    RankId rank = kNoRank;   ///< R
    std::int32_t pgId = -1;  ///< N, -1 for the bare `[Rank R]`
    std::string desc;        ///< "default_pg" when printed
};
std::optional<PgTag> pgTag(std::string_view text);

/// A watchdog timeout with the tag's rank and group filled in (rank kNoRank without a tag).
std::optional<WatchdogTimeout> watchdogTimeout(std::string_view text);

/// A progress report, numbers as printed (-1 when a field is missing or does not fit 63 bits;
/// `overflow` then tells which).
struct ProgressLine {
    WatchdogProgress progress;
    bool enqueuedOverflow = false;
    bool completedOverflow = false;
};
std::optional<ProgressLine> watchdogProgress(std::string_view text);

/// True when `value` cannot be a SeqNum of a group whose failing work is `work`: no group runs
/// 2^31 collectives past the one it is stuck on, so such values are uninitialised memory.
bool implausibleWork(std::int64_t value, std::int64_t work);

/// A line a launcher or scheduler writes about a worker or the job:
///   mpiexec/PBS  `<host>: rank 2 died from signal 6 [and dumped core]`, `<host>: rank 2 exited with code 1`,
///                Open MPI `... process rank 3 with PID 123 on node h exited on signal 9`,
///                `=>> PBS: job killed: walltime 3610 exceeded limit 3600`;
///   SLURM        `slurmstepd: error: *** JOB|STEP <id> ON <host> CANCELLED AT <ISO time> [DUE TO <reason>] ***`,
///                `slurmstepd: error: Detected N oom-kill event(s) in ...`,
///                `srun: error: <host>: task[s] 0-3: Exited with exit code 1|Killed|Segmentation fault ...`,
///                `srun: Job step aborted...`, `srun: error: Node failure on <host>`;
///   torch.distributed.launch  `Killing subprocess N`, `Main process received SIGTERM, exiting`,
///                `subprocess.CalledProcessError: Command '[... --local_rank=3 ...]' returned non-zero exit status N.`;
///   torchrun agent  `failed (exitcode: N) local_rank: L (pid: P) of binary: ...`,
///                `Sending process P closing signal SIGTERM`, `Received Signals.SIGTERM death signal ...`,
///                `SignalException: Process P got signal: 15`.
/// Failures have exitCode < 0 for signals (-6 = SIGABRT), as torchrun writes them.
struct LauncherLine {
    std::vector<ChildFailure> failures; ///< one per task of an srun range, else at most one
    std::optional<JobEvent> event;
};
/// `zone` resolves the scheduler's local time stamps (SLURM's CANCELLED AT).
std::optional<LauncherLine> launcher(std::string_view text, const std::string &zone);

/// "SIGABRT" for 6 ("" when unknown); and the number of a signal name, 0 when unknown.
std::string signalName(std::int64_t number);
int signalNumber(std::string_view name);

/// A statement of the world size: Megatron's `using world size: 64`, an args dump
/// `world_size ........ 64`, `WORLD_SIZE=64`; 0 when the line has none.
std::int32_t worldSize(std::string_view text);

/// A statement of both a global and a local rank on one line (`rank 5 local_rank 1`, `RANK=5
/// LOCAL_RANK=1`, `rank : 5 (local_rank: 1)`); nullopt when the line lacks either.
std::optional<std::pair<RankId, std::int32_t>> rankAndLocalRank(std::string_view text);

} // namespace rs::jobline
