// LogParser, record layer continued: the structured evidence read from launcher, scheduler and
// watchdog lines, and the rank decisions taken once the whole log is read (processes without a
// rank, failures named by local rank or srun task, OOMs named by device). The line layer and the
// NCCL/summary grammar are in logparser.cpp.

#include "logparser.h"

#include <algorithm>

namespace rs {

namespace {

bool contains(std::string_view s, std::string_view what)
{
    return s.find(what) != std::string_view::npos;
}

bool failureIsError(const jobline::LauncherLine &l)
{
    if (!l.failures.empty())
        return true;
    const JobEventKind k = l.event->kind;
    return k == JobEventKind::Cancelled || k == JobEventKind::OomKill || k == JobEventKind::NodeFailure;
}

int yearOf(TimeNs t)
{
    // Civil year of a UTC instant (Howard Hinnant's days-to-civil), enough to date year-less stamps.
    std::int64_t z = t / 1000000000 / 86400 + 719468;
    if (t < 0 && (t / 1000000000) % 86400 != 0)
        --z;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
    return static_cast<int>(yoe + era * 400 + (month <= 2 ? 1 : 0));
}

} // namespace

void LogParser::launcherLine(const Piece &p, jobline::LauncherLine &line, const Classified &c, TimeNs time)
{
    auto &logs = m_out.logs();
    // A scheduler's own stamp is a full date: it times the line and dates the log's year-less stamps.
    if (line.event && line.event->time != kNoTime) {
        time = line.event->time;
        if (m_refYear == 0)
            m_refYear = yearOf(time);
    }
    Piece owner = p;
    if (owner.rank == kNoRank && line.failures.size() == 1 && line.failures.front().rank >= 0)
        owner.rank = line.failures.front().rank; // mpiexec's "rank 2 died": rank 2's lane
    if (owner.rank == kNoRank)
        owner.rank = kJobLevel;
    const std::size_t index = addClassified(owner, c, LogKind::Torchrun, failureIsError(line) ? LogLevel::Error : LogLevel::Warning,
                                            time, LogFlagLauncher);
    for (ChildFailure &f : line.failures) {
        f.line = p.lineNo;
        f.time = time;
        remember(f.rank);
        if (f.launcher == "torchrun" || f.launcher == "torch.distributed.launch")
            m_perNodeLauncher = true;
        logs.failures.push_back(std::move(f));
        m_evidenceTime.emplace_back('f', logs.failures.size() - 1, index);
    }
    if (line.event) {
        JobEvent &e = *line.event;
        e.line = p.lineNo;
        e.rank = p.rank >= 0 ? p.rank : kJobLevel;
        if (e.launcher == "torchrun" || e.launcher == "torch.distributed.launch")
            m_perNodeLauncher = true;
        logs.jobEvents.push_back(std::move(e));
        m_evidenceTime.emplace_back('e', logs.jobEvents.size() - 1, index);
    }
}

void LogParser::watchdog(const Piece &p, std::string_view body, std::size_t recordIndex)
{
    auto &logs = m_out.logs();
    if (auto w = jobline::watchdogTimeout(body)) {
        if (p.rank != kNoRank && p.rank != kJobLevel)
            w->rank = p.rank;
        // The watchdog's exception is rethrown and printed again ("terminated with exception: ...",
        // "what(): ..."): one timeout per rank and collective.
        if (m_timeoutsSeen.emplace(w->rank, w->seq, w->opType, w->ranForMs).second) {
            w->line = p.lineNo;
            remember(w->rank);
            logs.timeouts.push_back(std::move(*w));
            m_evidenceTime.emplace_back('t', logs.timeouts.size() - 1, recordIndex);
        }
        return;
    }
    auto pl = jobline::watchdogProgress(body);
    if (!pl)
        return;
    WatchdogProgress &g = pl->progress;
    if (p.rank != kNoRank && p.rank != kJobLevel)
        g.rank = p.rank;
    g.line = p.lineNo;
    // Counters the watchdog never set print whatever was in memory; keep them out of the evidence.
    auto drop = [&](std::int64_t &value, bool overflow, const char *what) {
        if (!overflow && !jobline::implausibleWork(value, g.work))
            return;
        m_out.warning("watchdog-progress-garbage",
                      std::string("watchdog \"last ") + what + " NCCL work\" is far above the work number "
                          + std::to_string(g.work) + " (uninitialised memory); it is not read as progress",
                      p.lineNo);
        value = -1;
    };
    drop(g.lastEnqueued, pl->enqueuedOverflow, "enqueued");
    drop(g.lastCompleted, pl->completedOverflow, "completed");
    remember(g.rank);
    logs.records[recordIndex].flags |= LogFlagWatchdogProgress;
    logs.progress.push_back(std::move(g));
    m_evidenceTime.emplace_back('p', logs.progress.size() - 1, recordIndex);
}

void LogParser::rankStatements(const Piece &p, std::string_view body, std::size_t)
{
    if (const std::int32_t n = jobline::worldSize(body); n > 0)
        m_worldSize = std::max(m_worldSize, n);
    if (auto rl = jobline::rankAndLocalRank(body)) {
        // A prefix that disagrees with the statement means the line quotes another rank's numbers.
        if (p.rank < 0 || p.rank == rl->first)
            m_rankFacts.localRank(rl->first, rl->second);
    }
    if (contains(body, "nproc_per_node") || contains(body, "nproc-per-node"))
        m_perNodeLauncher = true;
}

void LogParser::resolveProcesses()
{
    auto &logs = m_out.logs();
    const auto &procs = m_rankFacts.processes();
    m_unknownProcess.assign(procs.size(), -1);
    for (const Pending &p : m_pending) {
        const RankId rank = m_rankFacts.rankOf(p.proc, p.dev);
        std::int32_t unknown = -1;
        if (rank != kNoRank) {
            remember(rank);
        } else {
            // One process alone is the source's rank; among several, an unnamed one stays apart.
            if (procs.size() < 2)
                continue;
            std::int32_t &slot = m_unknownProcess[std::size_t(p.proc)];
            if (slot < 0) {
                LogProcess lp;
                lp.host = procs[std::size_t(p.proc)].host;
                lp.pid = procs[std::size_t(p.proc)].pid;
                lp.firstLine = procs[std::size_t(p.proc)].firstLine;
                logs.processes.push_back(std::move(lp));
                slot = static_cast<std::int32_t>(logs.processes.size() - 1);
            }
            unknown = slot;
        }
        switch (p.what) {
        case 'r':
            logs.records[p.index].rank = rank;
            logs.records[p.index].process = unknown;
            break;
        case 'c':
            logs.comms[p.index].rank = rank != kNoRank ? rank : logs.comms[p.index].rank;
            break;
        case 's':
            logs.settings[p.index].rank = rank;
            logs.settings[p.index].process = unknown;
            break;
        case 'n':
            logs.calls[p.index].rank = rank;
            logs.calls[p.index].process = unknown;
            break;
        default: break;
        }
    }
}

void LogParser::resolveFailures()
{
    auto &failures = m_out.logs().failures;
    for (const ChildFailure &f : failures)
        if (f.rank >= 0 && f.localRank >= 0)
            m_rankFacts.localRank(f.rank, f.localRank);
    std::vector<bool> twinOfEntry(failures.size(), false);
    for (std::size_t i = 0; i < failures.size(); ++i) {
        ChildFailure &f = failures[i];
        // torchrun's agent line and its summary entry describe the same child: keep the entry,
        // which names the global rank, and give it the agent line's time.
        if (f.launcher == "torchrun" && f.rank == kJobLevel && f.pid > 0) {
            auto twin = std::find_if(failures.begin(), failures.end(),
                                     [&](const ChildFailure &g) { return &g != &f && g.pid == f.pid && g.rank >= 0; });
            if (twin != failures.end()) {
                if (twin->time == kNoTime)
                    twin->time = f.time;
                twinOfEntry[i] = true;
                continue;
            }
        }
        if (f.rank == kJobLevel && f.localRank >= 0)
            if (const RankId r = m_rankFacts.rankOfLocal(f.localRank); r != kNoRank)
                f.rank = r;
        // srun starts one task per rank unless a launcher inside it spawns the ranks (then a task is a node).
        if (f.launcher == "srun" && f.rank == kJobLevel && f.task >= 0 && !m_perNodeLauncher) {
            f.rank = f.task;
            remember(f.rank);
        }
    }
    std::vector<ChildFailure> kept;
    kept.reserve(failures.size());
    for (std::size_t i = 0; i < failures.size(); ++i)
        if (!twinOfEntry[i])
            kept.push_back(std::move(failures[i]));
    failures = std::move(kept);
}

void LogParser::resolveMemoryOwners()
{
    auto &ooms = m_out.ooms();
    for (OomEvent &o : ooms) {
        if (o.rank != kNoRank)
            continue;
        // "GPU 3" is the process's device index; only the log's own rank facts turn it into a rank.
        if (const RankId r = m_rankFacts.rankOfDevice(o.device); r != kNoRank) {
            o.rank = r;
            remember(r);
        } else if (m_ranks.size() + m_out.logs().processes.size() > 1) {
            m_out.warning("oom-rank-unknown",
                          "CUDA OOM on GPU " + std::to_string(o.device)
                              + " has no launcher prefix and the log ties that device to no single rank; it stays with "
                                "the source's first rank",
                          o.line);
        }
    }
    for (MemorySummary &s : m_out.memorySummaries()) {
        if (s.rank != kNoRank)
            continue;
        if (s.oom >= 0 && std::size_t(s.oom) < ooms.size())
            s.rank = ooms[std::size_t(s.oom)].rank;
        else
            s.rank = m_rankFacts.rankOfDevice(s.device);
    }
}

} // namespace rs
