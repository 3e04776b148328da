#include "torchrunlogtext.h"

#include "utctime.h"

#include <algorithm>
#include <cstdio>

namespace rs::tracegen {

namespace {
constexpr TimeNs kMs = 1000000;
// The agent logs from its main thread; Python prints the thread's ident, not a pid.
constexpr std::int64_t kAgentThread = 140089633285952;
constexpr std::string_view kSitePackages = "/usr/local/lib/python3.10/dist-packages/torch/distributed/";
constexpr std::string_view kApiPy = "torch/distributed/elastic/multiprocessing/api.py";
constexpr std::string_view kEntrypoint = "train.py";

std::string site(std::string_view rest) { return std::string(kSitePackages).append(rest); }
} // namespace

std::string TorchrunLogText::failureSummary() const
{
    const RankId root = m_timeline.rootCause();
    if (root < 0)
        return {};
    // Only workers that had exited when the agent looked are failures; the root cause is the one
    // with the earliest time stamp. Without error files, that time is when the agent noticed.
    std::vector<const JobTimeline::Rank *> failures;
    for (const JobTimeline::Rank &t : m_timeline.ranks())
        if (t.exitCode != 0 && !t.terminated && t.exited <= m_timeline.failureNoticed())
            failures.push_back(&t);
    const UtcTime when = UtcTime::of(m_timeline.failureNoticed());
    char time[32];
    std::snprintf(time, sizeof time, "%04d-%02d-%02d_%02d:%02d:%02d", when.year, when.month, when.day, when.hour,
                  when.minute, when.second);
    const std::string host = m_timeline.config().hostName;
    auto entry = [&](std::size_t index, const JobTimeline::Rank &t) {
        return "[" + std::to_string(index) + "]:\n  time      : " + time + "\n  host      : " + host
               + "\n  rank      : " + std::to_string(t.rank) + " (local_rank: " + std::to_string(t.device)
               + ")\n  exitcode  : " + std::to_string(t.exitCode) + " (pid: " + std::to_string(t.pid)
               + ")\n  error_file: <N/A>\n  traceback : To enable traceback see: "
                 "https://pytorch.org/docs/stable/elastic/errors.html";
    };
    std::string others, rootText;
    std::size_t width = std::string(kEntrypoint).size() + 7; // "train.py FAILED"
    for (std::size_t i = 0; i < failures.size(); ++i) {
        const std::string text = entry(i, *failures[i]);
        for (std::size_t from = 0; from < text.size();) {
            const auto nl = std::min(text.find('\n', from), text.size());
            width = std::max(width, nl - from);
            from = nl + 1;
        }
        if (failures[i]->rank == root)
            rootText = text;
        else
            others += (others.empty() ? "" : "\n") + text;
    }
    width = std::min<std::size_t>(width, 60);
    const std::string border(width, '='), section(width, '-');
    // The exception message starts with a newline, so its first line ends in ": ".
    return "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + border + "\n"
           + std::string(kEntrypoint) + " FAILED\n" + section + "\nFailures:\n"
           + (others.empty() ? "  <NO_OTHER_FAILURES>" : others) + "\n" + section
           + "\nRoot Cause (first observed failure):\n" + rootText + "\n" + border;
}

void TorchrunLogText::write(JobLogBuilder &log) const
{
    const JobConfig &config = m_timeline.config();
    constexpr RankId agent = JobLogBuilder::kAgent;
    const TimeNs start = m_timeline.agentStart();
    log.line(start - 40 * kMs, agent,
             "+ torchrun --nnodes=1 --nproc-per-node=" + std::to_string(config.worldSize)
                 + " --tee=3 --log-line-prefix-template '[rank${rank}]:' train.py --config configs/gpt-1.5b.yaml "
                   "--resume latest");
    const std::string run = JobLogBuilder::agentPrefix(start, 'W', kAgentThread, "torch/distributed/run.py:779");
    log.line(start, agent, run);
    log.line(start, agent, run + "*****************************************");
    log.line(start, agent,
             run + "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
                   "system being overloaded, please further tune the variable for optimal performance in your "
                   "application as needed. ");
    log.line(start, agent, run + "*****************************************");

    const RankId root = m_timeline.rootCause();
    if (root < 0)
        return;
    const TimeNs sigterm = m_timeline.failureNoticed() + 1 * kMs;
    for (const JobTimeline::Rank &t : m_timeline.ranks())
        if (t.terminated)
            log.line(sigterm, agent,
                     JobLogBuilder::agentPrefix(sigterm, 'W', kAgentThread, std::string(kApiPy) + ":858")
                         + "Sending process " + std::to_string(t.pid) + " closing signal SIGTERM");
    const JobTimeline::Rank &failed = m_timeline.rank(root);
    const TimeNs report = m_timeline.agentReport();
    std::string text = JobLogBuilder::agentPrefix(report, 'E', kAgentThread, std::string(kApiPy) + ":833")
                       + "failed (exitcode: " + std::to_string(failed.exitCode) + ") local_rank: "
                       + std::to_string(failed.device) + " (pid: " + std::to_string(failed.pid)
                       + ") of binary: /usr/bin/python3\n";
    text += "Traceback (most recent call last):\n"
            "  File \"/usr/local/bin/torchrun\", line 8, in <module>\n"
            "    sys.exit(main())\n"
            "  File \"" + site("elastic/multiprocessing/errors/__init__.py") + "\", line 348, in wrapper\n"
            "    return f(*args, **kwargs)\n"
            "  File \"" + site("run.py") + "\", line 901, in main\n"
            "    run(args)\n"
            "  File \"" + site("run.py") + "\", line 892, in run\n"
            "    elastic_launch(\n"
            "  File \"" + site("launcher/api.py") + "\", line 133, in __call__\n"
            "    return launch_agent(self._config, self._entrypoint, list(args))\n"
            "  File \"" + site("launcher/api.py") + "\", line 264, in launch_agent\n"
            "    raise ChildFailedError(\n";
    log.block(report, agent, text + failureSummary());
}

} // namespace rs::tracegen
