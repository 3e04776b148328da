// rank-failure: a rank's process died, or the scheduler ended the job. Evidence: the exception a
// traceback ends with (LogKind::Python), the launcher's report of the child (torchrun's
// ChildFailedError entries and agent lines, mpiexec's "rank N died from signal S", srun's task
// exits) and the scheduler's own lines (JobEvent). The rank that failed FIRST is the culprit; the
// deaths that followed are evidence. A death that follows the rank's own watchdog timeout is a
// consequence of a hang, which collective-desync tells; it is not named here.

#include "rules.h"

#include <algorithm>
#include <map>
#include <set>

namespace rs::rules {

namespace {

bool contains(std::string_view s, std::string_view what)
{
    return s.find(what) != std::string_view::npos;
}

std::string signalName(const ChildFailure &c)
{
    if (!c.signal.empty())
        return c.signal;
    // 64-bit: a garbled exit code of INT_MIN must not overflow when negated.
    const std::int64_t sig = -std::int64_t(c.exitCode);
    switch (sig) {
    case 1: return "SIGHUP";
    case 2: return "SIGINT";
    case 4: return "SIGILL";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 9: return "SIGKILL";
    case 11: return "SIGSEGV";
    case 15: return "SIGTERM";
    default: return c.exitCode < 0 ? "signal " + std::to_string(sig) : std::string();
    }
}

// An exception raised because the collective layer failed (a hang, a dead peer) or because the
// launcher stopped the process: a consequence, never the first failure when another exists.
bool secondaryException(std::string_view text)
{
    for (std::string_view w : {"DistBackendError", "NCCL", "Watchdog", "ProcessGroup", "SignalException", "KeyboardInterrupt",
                               "closed by peer", "reset by peer", "DistNetworkError", "Broken pipe", "SIGTERM"})
        if (contains(text, w))
            return true;
    return false;
}

// One rank's (or the job's) failure, merged from every line that reports it.
struct Failure {
    RankId rank = kJobLevel;
    const LogRecord *exception = nullptr;   // the traceback's exception line
    std::string message;                    // its text
    const ChildFailure *child = nullptr;    // the launcher's report
    const JobEvent *event = nullptr;        // the scheduler's action (job level)
    bool rootCause = false;                 // torchrun's "first observed failure"
    bool secondary = false;                 // a consequence by its nature (SIGTERM from the launcher, NCCL error)
    std::optional<TimeNs> time;             // earliest, aligned
    SourceId source = 0;
    std::int64_t line = 0;                  // first line in `source`
    std::vector<Evidence> evidence;

    void note(const Evidence &e, SourceId src, std::int64_t ln)
    {
        if (e.timeNs && (!time || *e.timeNs < *time))
            time = e.timeNs;
        if (line == 0 || (src == source && ln < line)) {
            source = src;
            line = ln;
        }
        evidence.push_back(e);
    }
};

// True when `a` happened before `b`: by time when both have one, else by line in the same file.
bool before(const Failure &a, const Failure &b)
{
    if (a.time && b.time && *a.time != *b.time)
        return *a.time < *b.time;
    if (a.source == b.source && a.line != b.line)
        return a.line < b.line;
    return a.time.has_value() && !b.time.has_value();
}

std::string exceptionType(const std::string &text)
{
    const auto colon = text.find(':');
    return text.substr(0, colon == std::string::npos ? text.size() : colon);
}

std::string clip(std::string s, std::size_t n)
{
    return s.size() > n ? s.substr(0, n - 3) + "..." : s;
}

// What the exception or signal names, as a fix a person can act on.
std::string fixFor(const Failure &f)
{
    if (f.exception) {
        const std::string &t = f.message;
        const std::string type = exceptionType(t);
        std::string quoted;
        if (const auto q = t.find('\''); q != std::string::npos)
            if (const auto e = t.find('\'', q + 1); e != std::string::npos)
                quoted = t.substr(q, e - q + 1);
        if (contains(type, "FileNotFoundError") || contains(t, "No such file or directory"))
            return "The file " + (quoted.empty() ? std::string("it names") : quoted) + " does not exist where rank "
                + std::to_string(f.rank) + " looked: check the path on that node (shared filesystem mounted, dataset or "
                "checkpoint downloaded, the same working directory on every node) before restarting.";
        if (contains(type, "PermissionError"))
            return "Rank " + std::to_string(f.rank) + " may not open " + (quoted.empty() ? std::string("the path it names") : quoted)
                + ": fix the file's permissions or write to a directory the job owns.";
        if (contains(type, "ModuleNotFoundError") || contains(type, "ImportError"))
            return "Install the missing module " + (quoted.empty() ? std::string("it names") : quoted)
                + " in the environment every node runs (the same container or conda environment on every host).";
        if (contains(t, "No space left on device"))
            return "The disk filled up: free space or write checkpoints and logs to a larger filesystem.";
        if (contains(t, "CUDA out of memory") || contains(type, "OutOfMemoryError"))
            return "The process died of the CUDA OOM the oom finding describes: apply the fix of the finding that explains it.";
        if (contains(t, "CUDA error") || contains(t, "device-side assert"))
            return "A CUDA error killed the process: rerun with CUDA_LAUNCH_BLOCKING=1 to find the failing kernel, and check the "
                   "host's kernel log for Xid errors.";
        return "Fix what the exception names (" + clip(t, 160) + ") at the frame its traceback points to; it is an error of "
               "the training script or its input, so restarting alone will fail the same way.";
    }
    if (f.child && f.child->exitCode < 0) {
        const std::string sig = signalName(*f.child);
        if (sig == "SIGKILL")
            return "SIGKILL comes from outside the process: usually the host's OOM killer (dmesg, the scheduler's "
                   "oom-kill events; lower DataLoader num_workers or host memory use) or a launcher/scheduler timeout.";
        if (sig == "SIGSEGV" || sig == "SIGILL" || sig == "SIGFPE")
            return "A crash in native code: run with PYTHONFAULTHANDLER=1 and keep the core dump (ulimit -c unlimited) to "
                   "see the frame; check that the CUDA, NCCL and PyTorch builds match the driver.";
        if (sig == "SIGBUS")
            return "SIGBUS is usually shared memory running out: enlarge /dev/shm (docker --shm-size) or lower DataLoader num_workers.";
        if (sig == "SIGABRT")
            return "The process aborted (a C++ exception or assertion: 'terminate called after throwing ...'). Read the "
                   "rank's own stderr just before the abort; TORCH_SHOW_CPP_STACKTRACES=1 prints the C++ frames.";
        if (sig == "SIGTERM" || sig == "SIGINT")
            return "Something outside stopped the process (" + sig + "): the launcher after another failure, the scheduler "
                   "(preemption, time limit) or a user. Look for what sent it before restarting.";
        return "The process died of " + sig + ": read the rank's own output just before it.";
    }
    if (f.event) {
        const JobEvent &e = *f.event;
        const bool pbs = e.launcher == "pbs";
        switch (e.kind) {
        case JobEventKind::Cancelled:
            if (contains(e.reason, "TIME") || contains(e.reason, "walltime"))
                return std::string("The job ran out of its time limit: request more (") + (pbs ? "-l walltime=..." : "#SBATCH --time=...")
                    + "), or save checkpoints more often and resume from the last one; if the steps were slower than "
                      "expected, compare the step times with a healthy run first.";
            if (contains(e.reason, "PREEMPT"))
                return "The job was preempted: submit with --requeue and resume from the last checkpoint.";
            if (contains(e.reason, "NODE"))
                return "A node failed: exclude it (--exclude=" + (e.host.empty() ? std::string("<host>") : e.host) + ") and resubmit.";
            return "Someone or something cancelled the job (scancel/qdel): check the scheduler's accounting (sacct) for who and why.";
        case JobEventKind::NodeFailure:
            return "A node failed: exclude it (--exclude=" + (e.host.empty() ? std::string("<host>") : e.host) + ") and resubmit.";
        case JobEventKind::OomKill:
            return "The host's OOM killer ended the job: host RAM, not GPU memory. Lower DataLoader num_workers and prefetch, "
                   "load data lazily, or request more memory (--mem).";
        default:
            return "The launcher was told to stop (" + (e.signal.empty() ? std::string("a signal") : e.signal)
                + "): look for the scheduler or user that sent it.";
        }
    }
    if (f.child)
        return "Rank " + std::to_string(f.rank) + " exited with code " + std::to_string(f.child->exitCode)
            + ": read its own output for the error (decorate the entry point with "
              "torch.distributed.elastic.multiprocessing.errors.record to get its traceback into the summary).";
    return "Read the failing process's own output just before it stopped.";
}

class RankFailureRule final : public FindingRule
{
public:
    std::string_view id() const override { return "rank-failure"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override;
};

void RankFailureRule::evaluate(const RuleContext &ctx, std::vector<Finding> &out) const
{
    const Session &s = ctx.session;
    const LogEvidence &logs = s.logs();
    // Ranks whose own watchdog fired: their death is the hang's consequence.
    std::set<RankId> hung;
    for (const WatchdogTimeout &w : logs.timeouts)
        hung.insert(w.rank);
    for (const WatchdogProgress &w : logs.progress)
        hung.insert(w.rank);
    for (const LogRecord &r : logs.records)
        if (r.flags & LogFlagWatchdogTimeout)
            hung.insert(r.rank);

    auto childEvidence = [&](const ChildFailure &c) {
        const std::string sig = signalName(c);
        std::string text = c.launcher + ": " + (c.rank >= 0 ? "rank " + std::to_string(c.rank) : "local_rank " + std::to_string(c.localRank))
            + (c.host.empty() ? "" : " on " + c.host) + (c.exitCode < 0 ? " died of " + sig : " exited with code " + std::to_string(c.exitCode))
            + (c.coreDumped ? " and dumped core" : "") + (c.rootCause ? " (root cause: first observed failure)" : "");
        for (const LogRecord &r : logs.records)
            if (r.line == c.line && (r.rank == c.rank || r.rank == kJobLevel))
            {
                const TimeNs t = r.time != kNoTime ? r.time : c.time;
                return ctx.derived(c.rank, s.sources()[r.source].evidencePath() + ":" + std::to_string(c.line) + ": " + text,
                                   t != kNoTime ? std::optional<TimeNs>(ctx.aligned(c.rank, t)) : std::nullopt);
            }
        return ctx.derived(c.rank, text, c.time != kNoTime ? std::optional<TimeNs>(ctx.aligned(c.rank, c.time)) : std::nullopt);
    };
    auto childSource = [&](const ChildFailure &c) -> SourceId {
        for (const LogRecord &r : logs.records)
            if (r.line == c.line && (r.rank == c.rank || r.rank == kJobLevel))
                return r.source;
        return 0;
    };

    std::map<RankId, Failure> byRank;        // ranks with a global id
    std::vector<Failure> unranked;           // local ranks and srun tasks the launcher could not map
    for (const ChildFailure &c : logs.failures) {
        Failure *f = nullptr;
        // The agent's "failed (exitcode: N) local_rank: L (pid: P)" line and the summary's entry
        // are one failure: the summary names the global rank.
        const ChildFailure *same = nullptr;
        if (c.rank < 0)
            for (const ChildFailure &o : logs.failures)
                if (o.rank >= 0 && o.localRank == c.localRank && o.exitCode == c.exitCode && (o.pid == c.pid || !o.pid || !c.pid))
                    same = &o;
        if (same) {
            f = &byRank[same->rank];
        } else if (c.rank >= 0) {
            f = &byRank[c.rank];
        } else {
            unranked.emplace_back();
            f = &unranked.back();
        }
        f->rank = same ? same->rank : c.rank >= 0 ? c.rank : kJobLevel;
        if (!f->child || c.rootCause || (c.rank >= 0 && f->child->rank < 0))
            f->child = &c;
        f->rootCause |= c.rootCause;
        const std::string sig = signalName(c);
        f->secondary |= sig == "SIGTERM" || sig == "SIGINT" || sig == "SIGKILL";
        f->note(childEvidence(c), childSource(c), c.line);
    }
    // A traceback printed without a rank prefix belongs to the rank torchrun names as the root
    // cause when it is the last one before the summary in the same file.
    const ChildFailure *root = nullptr;
    for (const ChildFailure &c : logs.failures)
        if (c.rootCause && c.rank >= 0)
            root = &c;
    const LogRecord *orphan = nullptr;
    for (const LogRecord &r : logs.records) {
        if (r.kind != LogKind::Python || r.level != LogLevel::Error)
            continue;
        if (r.rank >= 0) {
            Failure &f = byRank[r.rank];
            f.rank = r.rank;
            const std::string_view text = logs.text(r);
            if (!f.exception || (secondaryException(f.message) && !secondaryException(text))) {
                f.exception = &r;
                f.message = std::string(text);
            }
            f.note(ctx.evidence(r), r.source, r.line);
        } else if (root && r.source == childSource(*root) && r.line < root->line) {
            orphan = &r;
        }
    }
    if (orphan) {
        Failure &f = byRank[root->rank];
        if (!f.exception) {
            f.exception = orphan;
            f.message = std::string(logs.text(*orphan));
            Evidence e = ctx.evidence(*orphan);
            e.rank = root->rank;
            f.note(e, orphan->source, orphan->line);
        }
    }
    for (auto &[rank, f] : byRank)
        if (f.exception && secondaryException(f.message) && !f.child)
            f.secondary = true;
        else if (f.exception && !secondaryException(f.message))
            f.secondary = false; // a real exception, whatever signal the launcher saw afterwards

    // The scheduler's actions (job level).
    std::vector<Failure> jobEvents;
    std::vector<Evidence> teardown;
    for (const JobEvent &e : logs.jobEvents) {
        const Evidence ev = [&] {
            for (const LogRecord &r : logs.records)
                if (r.line == e.line && (r.flags & LogFlagLauncher))
                    return ctx.evidence(r);
            return ctx.derived(e.rank, e.launcher + ": job event", e.time != kNoTime ? std::optional<TimeNs>(e.time) : std::nullopt);
        }();
        const bool cause = e.kind == JobEventKind::Cancelled || e.kind == JobEventKind::NodeFailure || e.kind == JobEventKind::OomKill
            || e.kind == JobEventKind::LauncherSignalled;
        if (!cause) {
            teardown.push_back(ev);
            continue;
        }
        // One cancel is printed for the job and for each step: one failure.
        if (!jobEvents.empty() && jobEvents.back().event->kind == e.kind) {
            jobEvents.back().evidence.push_back(ev);
            continue;
        }
        Failure f;
        f.event = &e;
        f.secondary = e.kind == JobEventKind::LauncherSignalled;
        SourceId src = 0;
        for (const LogRecord &r : logs.records)
            if (r.line == e.line && (r.flags & LogFlagLauncher))
                src = r.source;
        f.note(ev, src, e.line);
        // A time limit says nothing of why the job was slow: the pace of its steps does.
        if (e.kind == JobEventKind::Cancelled && e.time != kNoTime && (contains(e.reason, "TIME") || contains(e.reason, "walltime"))) {
            const Rank *most = nullptr;
            for (const Rank &r : ctx.session.ranks())
                if (!r.steps.empty() && (!most || r.steps.size() > most->steps.size()))
                    most = &r;
            std::vector<TimeNs> durations;
            TimeNs lastEnd = kNoTime;
            if (most)
                for (const Step &st : most->steps)
                    if (!st.incomplete) {
                        durations.push_back(st.range.duration());
                        lastEnd = std::max(lastEnd, ctx.aligned(most->id, st.range.end));
                    }
            if (!durations.empty() && lastEnd != kNoTime && lastEnd <= e.time) {
                std::nth_element(durations.begin(), durations.begin() + std::ptrdiff_t(durations.size() / 2), durations.end());
                f.evidence.push_back(ctx.derived(most->id,
                                                 std::to_string(durations.size()) + " step(s) completed before the cancel, "
                                                     + formatDuration(durations[durations.size() / 2]) + " each (median); the last ended "
                                                     + formatDuration(e.time - lastEnd) + " before it",
                                                 lastEnd));
            }
        }
        jobEvents.push_back(std::move(f));
    }

    // The first failure: torchrun's root cause, then a real error before a stop signal, then time.
    std::vector<Failure *> candidates;
    for (auto &[rank, f] : byRank)
        if (!hung.count(rank))
            candidates.push_back(&f);
    for (Failure &f : unranked)
        candidates.push_back(&f);
    for (Failure &f : jobEvents)
        candidates.push_back(&f);
    if (candidates.empty())
        return;
    std::stable_sort(candidates.begin(), candidates.end(), [](const Failure *a, const Failure *b) {
        if (a->secondary != b->secondary)
            return !a->secondary;
        if (a->rootCause != b->rootCause && !a->event && !b->event)
            return a->rootCause;
        return before(*a, *b);
    });
    // A rank that died before the scheduler cancelled the job caused it; one that died after was killed.
    Failure *first = candidates.front();
    for (Failure *c : candidates)
        if (c != first && !c->secondary && before(*c, *first) && (c->event || first->event))
            first = c;
    // Only stop signals and NCCL errors after a watchdog fired: the launcher tearing down a hung
    // job, which collective-desync tells.
    if (first->secondary && !hung.empty())
        return;

    // Anything about the GPU or NCCL in the whole session?
    bool gpuCause = !s.ooms().empty() || !logs.timeouts.empty();
    for (const LogRecord &r : logs.records)
        gpuCause |= (r.kind == LogKind::Nccl && r.level == LogLevel::Warning) || (r.flags & (LogFlagOom | LogFlagNcclAbort | LogFlagWatchdogTimeout));
    if (first->exception)
        gpuCause |= contains(first->message, "CUDA") || contains(first->message, "NCCL");

    Finding f;
    // The job died when a launcher or the scheduler says a process ended; a traceback alone may
    // have been caught and logged.
    f.severity = (!logs.failures.empty() || !jobEvents.empty()) ? Severity::High : Severity::Medium;
    if (first->rank >= 0)
        f.ranks = {first->rank};
    const std::string who = first->rank >= 0 ? "Rank " + std::to_string(first->rank)
        : first->child ? "local_rank " + std::to_string(first->child->localRank) + (first->child->host.empty() ? "" : " on " + first->child->host)
                       : std::string();
    const bool others = candidates.size() + (hung.empty() ? 0 : 1) > 1;
    if (first->exception) {
        f.title = who + (others ? " failed first with " : " failed with ") + clip(first->message, 200);
    } else if (first->child) {
        const ChildFailure &c = *first->child;
        f.title = who + (c.exitCode < 0 ? " died of " + signalName(c) + " (exitcode " + std::to_string(c.exitCode) + ")"
                                        : " exited with code " + std::to_string(c.exitCode))
            + (c.host.empty() || first->rank < 0 ? "" : " on " + c.host) + (others ? ", the first failure" : "");
    } else {
        const JobEvent &e = *first->event;
        const std::string sched = e.launcher == "pbs" ? "PBS" : e.launcher == "slurm" || e.launcher == "srun" ? "SLURM" : e.launcher;
        const std::string job = e.jobId.empty() ? std::string("the job") : "job " + e.jobId;
        switch (e.kind) {
        case JobEventKind::Cancelled:
            f.title = sched + " cancelled " + job
                + (e.reason.empty() ? std::string() : contains(e.reason, "TIME") || contains(e.reason, "walltime") ? " at its time limit" : " (" + e.reason + ")");
            break;
        case JobEventKind::NodeFailure: f.title = "Node " + e.host + " failed and took " + job + " down"; break;
        case JobEventKind::OomKill: f.title = "The host's OOM killer killed " + std::to_string(std::max(e.count, 1)) + " process(es) of " + job; break;
        default: f.title = "The launcher received " + (e.signal.empty() ? std::string("a signal") : e.signal) + " and stopped the job"; break;
        }
    }
    if (!gpuCause)
        f.title += "; nothing suggests a GPU or NCCL cause";
    f.evidence = first->evidence;
    if (first->exception) // the exception says why; the launcher's line only that it happened
        std::stable_partition(f.evidence.begin(), f.evidence.end(),
                              [&](const Evidence &e) { return e.line == first->exception->line && e.text.find(first->message) != std::string::npos; });
    f.timeNs = first->time;
    // An out-of-memory exception happened when the OOM did: the profiler or the allocator may have
    // timed it where the untimed traceback could not.
    if (first->exception && (first->exception->flags & LogFlagOom))
        for (const OomInfo &o : ctx.ooms)
            if (o.rank == first->rank && o.alignedTime != kNoTime && (!f.timeNs || o.alignedTime < *f.timeNs))
                f.timeNs = o.alignedTime;
    // The failures that followed are consequences: evidence, not culprits.
    for (Failure *c : candidates)
        if (c != first)
            for (const Evidence &e : c->evidence)
                f.evidence.push_back(e);
    for (const auto &[rank, c] : byRank)
        if (hung.count(rank))
            for (const Evidence &e : c.evidence)
                f.evidence.push_back(e);
    for (const Evidence &e : teardown)
        f.evidence.push_back(e);
    // A launcher repeats itself per node ("Main process received SIGTERM" ×16): one line says it.
    std::map<std::string, std::pair<std::size_t, int>> bodies;
    std::vector<Evidence> kept;
    for (Evidence &e : f.evidence) {
        const std::string prefix = e.path + ":" + std::to_string(e.line) + ": ";
        const std::string body = e.line > 0 && e.text.rfind(prefix, 0) == 0 ? e.text.substr(prefix.size()) : e.text;
        auto [it, fresh] = bodies.try_emplace(body, kept.size(), 0);
        if (fresh)
            kept.push_back(std::move(e));
        else
            ++it->second.second;
    }
    for (const auto &[body, at] : bodies)
        if (at.second > 0)
            kept[at.first].text += " (and " + std::to_string(at.second) + " more like it)";
    if (kept.size() > 20)
        kept.resize(20);
    if (!f.timeNs) // the first failure's lines carry no time: the earliest line that does
        for (const Evidence &e : kept)
            if (e.timeNs && (!f.timeNs || *e.timeNs < *f.timeNs))
                f.timeNs = e.timeNs;
    f.evidence = std::move(kept);
    f.fix = fixFor(*first);
    out.push_back(std::move(f));
}

} // namespace

std::unique_ptr<FindingRule> rankFailure()
{
    return std::make_unique<RankFailureRule>();
}

} // namespace rs::rules
