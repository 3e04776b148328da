#include "jobline.h"

#include "logline.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

namespace rs::jobline {

namespace {

bool contains(std::string_view s, std::string_view what)
{
    return s.find(what) != std::string_view::npos;
}

bool containsNoCase(std::string_view s, std::string_view what)
{
    return std::search(s.begin(), s.end(), what.begin(), what.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           })
        != s.end();
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

std::int64_t toInt(const std::string &s)
{
    std::int64_t v = -1;
    const char *b = s.data();
    if (!s.empty() && s[0] == '+')
        ++b;
    std::from_chars(b, s.data() + s.size(), v);
    return v;
}

// A work number as printed; false when it does not fit 63 bits (printed from an unsigned counter).
bool toWork(const std::string &s, std::int64_t &out)
{
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return false;
    out = v;
    return true;
}

std::string str(std::string_view s)
{
    return std::string(s);
}

// "0-3,5" → {0,1,2,3,5}; ranges longer than 65536 are cut (a corrupt line must not allocate much).
std::vector<std::int32_t> taskList(const std::string &spec)
{
    std::vector<std::int32_t> out;
    static const std::regex kItem(R"((\d+)(?:-(\d+))?)");
    for (auto it = std::sregex_iterator(spec.begin(), spec.end(), kItem); it != std::sregex_iterator(); ++it) {
        const std::int64_t a = toInt((*it)[1].str());
        const std::int64_t b = (*it)[2].matched ? toInt((*it)[2].str()) : a;
        for (std::int64_t t = a; t <= b && t - a < 65536 && out.size() < 65536; ++t)
            out.push_back(static_cast<std::int32_t>(t));
    }
    return out;
}

// srun's words for how a task ended → signal number (0: a plain exit).
int srunSignal(std::string_view status)
{
    static const std::pair<std::string_view, int> kWords[] = {
        {"Killed", 9}, {"Terminated", 15}, {"Segmentation fault", 11}, {"Aborted", 6},
        {"Bus error", 7}, {"Floating point exception", 8}, {"Hangup", 1}, {"Interrupt", 2},
    };
    for (const auto &[w, n] : kWords)
        if (status.substr(0, w.size()) == w)
            return n;
    return 0;
}

ChildFailure failure(std::string launcher)
{
    ChildFailure f;
    f.launcher = std::move(launcher);
    return f;
}

void setSignal(ChildFailure &f, std::int64_t sig)
{
    // Signals are small positive numbers; a garbled one must not overflow the exit code.
    if (sig <= 0 || sig > 255)
        return;
    f.exitCode = -static_cast<std::int32_t>(sig);
    f.signal = signalName(sig);
}

std::optional<LauncherLine> mpiLine(const std::string &s)
{
    static const std::regex kDied(R"(^(\S+): rank (\d+) died from signal (\d+)( and dumped core)?)");
    static const std::regex kExited(R"(^(\S+): rank (\d+) exited with code (-?\d+))");
    static const std::regex kOpenMpi(R"(process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+))");
    std::smatch m;
    LauncherLine out;
    ChildFailure f = failure("mpiexec");
    if (std::regex_search(s, m, kDied)) {
        f.host = m[1].str();
        f.rank = static_cast<RankId>(toInt(m[2].str()));
        setSignal(f, toInt(m[3].str()));
        f.coreDumped = m[4].matched;
    } else if (std::regex_search(s, m, kExited)) {
        f.host = m[1].str();
        f.rank = static_cast<RankId>(toInt(m[2].str()));
        f.exitCode = static_cast<std::int32_t>(toInt(m[3].str()));
    } else if (std::regex_search(s, m, kOpenMpi)) {
        f.rank = static_cast<RankId>(toInt(m[1].str()));
        f.pid = toInt(m[2].str());
        f.host = m[3].str();
        setSignal(f, toInt(m[4].str()));
    } else {
        return std::nullopt;
    }
    out.failures.push_back(std::move(f));
    return out;
}

std::optional<LauncherLine> slurmLine(const std::string &s, const std::string &zone)
{
    static const std::regex kCancel(R"(\*\*\* (JOB|STEP) (\S+) (?:ON (\S+) )?CANCELLED AT (\S+)(?: DUE TO (.*?))? \*\*\*)");
    static const std::regex kOomKill(R"(Detected (\d+) oom[-_]kill events?(?:\(s\))? in (?:step |StepId=)?([\w.]+?)(?:\s+cgroup)?\.(?:\s|$))");
    static const std::regex kTask(R"(^srun: error: (\S+): tasks? ([\d,\- ]+): (.+)$)");
    static const std::regex kExit(R"(Exited with exit code (-?\d+))");
    static const std::regex kNode(R"(^srun: error: Node failure on (\S+))");
    std::smatch m;
    LauncherLine out;
    JobEvent e;
    e.launcher = "slurm";
    if (std::regex_search(s, m, kCancel)) {
        e.kind = JobEventKind::Cancelled;
        e.step = m[1].str() == "STEP";
        e.jobId = m[2].str();
        e.host = m[3].str();
        e.reason = m[5].str();
        if (auto t = logline::leadingStamp(m[4].str(), zone))
            e.time = t->time;
    } else if (std::regex_search(s, m, kOomKill)) {
        e.kind = JobEventKind::OomKill;
        e.count = static_cast<std::int32_t>(toInt(m[1].str()));
        e.jobId = m[2].str();
        e.step = contains(e.jobId, ".");
    } else if (std::regex_search(s, m, kTask)) {
        const std::string host = m[1].str();
        const std::string status = m[3].str();
        for (std::int32_t task : taskList(m[2].str())) {
            ChildFailure f = failure("srun");
            f.host = host;
            f.task = task;
            f.rank = kJobLevel;
            std::smatch x;
            if (std::regex_search(status, x, kExit))
                f.exitCode = static_cast<std::int32_t>(toInt(x[1].str()));
            else if (const int sig = srunSignal(status))
                setSignal(f, sig);
            else
                continue; // another srun error about the task, not how it ended
            f.coreDumped = contains(status, "core dumped");
            out.failures.push_back(std::move(f));
        }
        if (out.failures.empty())
            return std::nullopt;
        return out;
    } else if (std::regex_search(s, m, kNode)) {
        e.kind = JobEventKind::NodeFailure;
        e.launcher = "srun";
        e.host = m[1].str();
    } else if (s.rfind("srun: Job step aborted", 0) == 0) {
        e.kind = JobEventKind::StepAborted;
        e.launcher = "srun";
    } else {
        return std::nullopt;
    }
    out.event = std::move(e);
    return out;
}

std::optional<LauncherLine> pythonLauncherLine(const std::string &s)
{
    static const std::regex kKilling(R"(^Killing subprocess (\d+))");
    static const std::regex kMain(R"(^Main process received (SIG[A-Z0-9]+), exiting)");
    static const std::regex kCalled(R"(CalledProcessError: Command (.*) returned non-zero exit status (-?\d+))");
    static const std::regex kLocalArg(R"(--local[-_]rank[= ](\d+))");
    static const std::regex kAgentFailed(R"(failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\))");
    static const std::regex kSending(R"(Sending process (\d+) closing signal (SIG[A-Z0-9]+))");
    static const std::regex kDeath(R"(Received (?:Signals\.)?(SIG[A-Z0-9]+) death signal)");
    static const std::regex kSignalException(R"(SignalException: Process (\d+) got signal: (\d+))");
    std::smatch m;
    LauncherLine out;
    JobEvent e;
    if (std::regex_search(s, m, kKilling)) {
        e.kind = JobEventKind::ProcessKilled;
        e.launcher = "torch.distributed.launch";
        e.pid = toInt(m[1].str());
    } else if (std::regex_search(s, m, kMain)) {
        e.kind = JobEventKind::LauncherSignalled;
        e.launcher = "torch.distributed.launch";
        e.signal = m[1].str();
    } else if (std::regex_search(s, m, kCalled)) {
        ChildFailure f = failure("torch.distributed.launch");
        f.rank = kJobLevel;
        const int code = static_cast<int>(toInt(m[2].str()));
        f.exitCode = code;
        if (code < 0)
            f.signal = signalName(-std::int64_t(code));
        const std::string cmd = m[1].str();
        std::smatch l;
        if (std::regex_search(cmd, l, kLocalArg))
            f.localRank = static_cast<std::int32_t>(toInt(l[1].str()));
        out.failures.push_back(std::move(f));
        return out;
    } else if (std::regex_search(s, m, kAgentFailed)) {
        ChildFailure f = failure("torchrun");
        f.rank = kJobLevel;
        f.exitCode = static_cast<std::int32_t>(toInt(m[1].str()));
        if (f.exitCode < 0)
            f.signal = signalName(-std::int64_t(f.exitCode));
        f.localRank = static_cast<std::int32_t>(toInt(m[2].str()));
        f.pid = toInt(m[3].str());
        out.failures.push_back(std::move(f));
        return out;
    } else if (std::regex_search(s, m, kSending)) {
        e.kind = JobEventKind::ProcessKilled;
        e.launcher = "torchrun";
        e.pid = toInt(m[1].str());
        e.signal = m[2].str();
    } else if (std::regex_search(s, m, kDeath)) {
        e.kind = JobEventKind::LauncherSignalled;
        e.launcher = "torchrun";
        e.signal = m[1].str();
    } else if (std::regex_search(s, m, kSignalException)) {
        e.kind = JobEventKind::LauncherSignalled;
        e.launcher = "torchrun";
        e.pid = toInt(m[1].str());
        e.signal = signalName(toInt(m[2].str()));
    } else {
        return std::nullopt;
    }
    out.event = std::move(e);
    return out;
}

} // namespace

std::optional<PgTag> pgTag(std::string_view text)
{
    if (!contains(text, "Rank "))
        return std::nullopt;
    static const std::regex kTag(R"(\[(?:PG (?:ID )?(\d+)(?: PG GUID [^\s(\]]+)?\s*(?:\(([^)\]]*)\))? )?Rank (\d+)\])");
    std::smatch m;
    const std::string s(text);
    if (!std::regex_search(s, m, kTag))
        return std::nullopt;
    PgTag t;
    t.rank = static_cast<RankId>(toInt(m[3].str()));
    if (m[1].matched)
        t.pgId = static_cast<std::int32_t>(toInt(m[1].str()));
    t.desc = m[2].str();
    return t;
}

std::optional<WatchdogTimeout> watchdogTimeout(std::string_view text)
{
    const auto at = text.find("Watchdog caught collective operation timeout");
    if (at == std::string_view::npos)
        return std::nullopt;
    static const std::regex kTimeout(
        R"(WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(-?\d+), NumelOut=(-?\d+))?, Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds)");
    std::smatch m;
    const std::string s(text.substr(at));
    if (!std::regex_search(s, m, kTimeout))
        return std::nullopt;
    WatchdogTimeout w;
    w.seq = toInt(m[1].str());
    w.opType = m[2].str();
    if (m[3].matched) {
        w.numelIn = toInt(m[3].str());
        w.numelOut = toInt(m[4].str());
    }
    w.timeoutMs = toInt(m[5].str());
    w.ranForMs = toInt(m[6].str());
    // The tag that names the timed-out rank is the last one before the sentence: a rethrown
    // exception reads "[PG 0 Rank 7] ... terminated with exception: [Rank 7] Watchdog caught ...".
    const std::string_view head = text.substr(0, at);
    const auto open = head.rfind("Rank ");
    if (open != std::string_view::npos) {
        const auto tagStart = head.rfind('[', open);
        if (tagStart != std::string_view::npos)
            if (auto t = pgTag(head.substr(tagStart))) {
                w.rank = t->rank;
                w.pgId = t->pgId;
                w.pgDesc = t->desc;
            }
    }
    if (w.rank == kNoRank)
        if (auto t = pgTag(head)) {
            w.rank = t->rank;
            w.pgId = t->pgId;
            w.pgDesc = t->desc;
        }
    return w;
}

std::optional<ProgressLine> watchdogProgress(std::string_view text)
{
    const bool timeout = contains(text, "Timeout at NCCL work: ");
    if (!timeout && !contains(text, "detected by watchdog at work: "))
        return std::nullopt;
    static const std::regex kProgress(
        R"((?:Timeout at NCCL work|detected by watchdog at work): (-?\d+), last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+))");
    std::smatch m;
    const std::string s(text);
    if (!std::regex_search(s, m, kProgress))
        return std::nullopt;
    ProgressLine out;
    WatchdogProgress &p = out.progress;
    p.timeout = timeout;
    if (!toWork(m[1].str(), p.work))
        p.work = -1;
    out.enqueuedOverflow = !toWork(m[2].str(), p.lastEnqueued);
    out.completedOverflow = !toWork(m[3].str(), p.lastCompleted);
    if (out.enqueuedOverflow)
        p.lastEnqueued = -1;
    if (out.completedOverflow)
        p.lastCompleted = -1;
    if (auto t = pgTag(std::string_view(s).substr(0, std::size_t(m.position(0))))) {
        p.rank = t->rank;
        p.pgId = t->pgId;
        p.pgDesc = t->desc;
    }
    return out;
}

bool implausibleWork(std::int64_t value, std::int64_t work)
{
    constexpr std::int64_t kSlack = std::int64_t(1) << 31;
    return value > std::max<std::int64_t>(work, 0) + kSlack;
}

std::optional<LauncherLine> launcher(std::string_view text, const std::string &zone)
{
    const std::string_view t = trim(text);
    if (t.size() < 12)
        return std::nullopt;
    // Cheap gates first: nearly every line of a log is none of these.
    if (contains(t, ": rank ") || contains(t, "process rank ")) {
        if (auto l = mpiLine(str(t)))
            return l;
    }
    if (contains(t, "PBS: job killed: ")) {
        LauncherLine out;
        JobEvent e;
        e.kind = JobEventKind::Cancelled;
        e.launcher = "pbs";
        e.reason = str(trim(t.substr(t.find("PBS: job killed: ") + 17)));
        out.event = std::move(e);
        return out;
    }
    if (t.rfind("slurmstepd", 0) == 0 || t.rfind("srun: ", 0) == 0 || contains(t, "*** JOB ") || contains(t, "*** STEP ")) {
        if (auto l = slurmLine(str(t), zone))
            return l;
    }
    if (contains(t, "Killing subprocess ") || contains(t, "Main process received ") || contains(t, "CalledProcessError: ")
        || contains(t, "failed (exitcode: ") || contains(t, " closing signal ") || contains(t, " death signal")
        || contains(t, "SignalException: ")) {
        if (auto l = pythonLauncherLine(str(t)))
            return l;
    }
    return std::nullopt;
}

std::string signalName(std::int64_t number)
{
    static const char *const kNames[] = {"",        "SIGHUP",  "SIGINT",  "SIGQUIT", "SIGILL",  "SIGTRAP",
                                         "SIGABRT", "SIGBUS",  "SIGFPE",  "SIGKILL", "SIGUSR1", "SIGSEGV",
                                         "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"};
    if (number <= 0 || number >= std::int64_t(std::size(kNames)))
        return {};
    return kNames[std::size_t(number)];
}

int signalNumber(std::string_view name)
{
    for (int i = 1; i < 16; ++i)
        if (signalName(i) == name)
            return i;
    return 0;
}

std::int32_t worldSize(std::string_view text)
{
    if (!containsNoCase(text, "world"))
        return 0;
    static const std::regex kWorld(R"(\bworld[ _]size\b[\s.:=]*(\d+))", std::regex::icase | std::regex::ECMAScript);
    std::smatch m;
    const std::string s(text);
    if (!std::regex_search(s, m, kWorld))
        return 0;
    const std::int64_t v = toInt(m[1].str());
    return v > 0 && v <= (1 << 24) ? static_cast<std::int32_t>(v) : 0;
}

std::optional<std::pair<RankId, std::int32_t>> rankAndLocalRank(std::string_view text)
{
    if (!containsNoCase(text, "local") || !containsNoCase(text, "rank"))
        return std::nullopt;
    static const std::regex kRankFirst(R"(\b(?:global[ _])?rank\b\s*[:=]?\s*(\d+)\b.*?\blocal[ _]rank\b\s*[:=]?\s*(\d+))",
                                       std::regex::icase | std::regex::ECMAScript);
    static const std::regex kLocalFirst(R"(\blocal[ _]rank\b\s*[:=]?\s*(\d+)\b.*?\b(?:global[ _])?rank\b\s*[:=]?\s*(\d+))",
                                        std::regex::icase | std::regex::ECMAScript);
    std::smatch m;
    const std::string s(text);
    if (std::regex_search(s, m, kRankFirst))
        return std::make_pair(static_cast<RankId>(toInt(m[1].str())), static_cast<std::int32_t>(toInt(m[2].str())));
    if (std::regex_search(s, m, kLocalFirst))
        return std::make_pair(static_cast<RankId>(toInt(m[2].str())), static_cast<std::int32_t>(toInt(m[1].str())));
    return std::nullopt;
}

} // namespace rs::jobline
