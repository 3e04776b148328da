// The findings that compare ranks or read logs (uneven-batch, straggler, collective-desync,
// nccl-error, driver-mismatch, ddp-unused-parameters): each on a job that shows it, with exact
// severity, ranks, time and the setting the fix names, and on a near miss that must stay silent.
// Every multi-rank job here has collectives that end together, so alignment is exact and finding
// times can be compared to the nanosecond.

#include "rulecheck.h"

using namespace rs;
using namespace rs::test;

namespace {

constexpr TimeNs kStep = 2 * kSec;

// `ranks` ranks running ProfilerSteps 412.. (`steps` of them, 2 s each) with three micro-batches
// per step and four allreduces per step, each issued by record_param_comms on the host.
struct Job {
    explicit Job(int ranks, int steps = 3)
    {
        for (RankId r = 0; r < ranks; ++r) {
            traces.emplace_back(r);
            for (int s = 0; s < steps; ++s)
                step(r, s);
        }
    }
    void step(RankId r, int s, int microBatches = 3, int collectives = 4)
    {
        RankTrace &t = traces[std::size_t(r)];
        const TimeNs at = kT0 + s * kStep;
        t.step(412 + s, at, kStep - kMs);
        for (int mb = 0; mb < microBatches; ++mb)
            t.microBatch(at + 10 * kMs + mb * 300 * kMs);
        for (int k = 0; k < collectives; ++k) {
            const TimeNs end = at + 1500 * kMs + k * 100 * kMs;
            t.span(t.cpu(), "record_param_comms", at + 1000 * kMs + k * 100 * kMs, kMs);
            t.collective(end - 50 * kMs, 50 * kMs, 1000 + k, s * collectives + k);
        }
    }
    SessionPtr session(std::vector<SourceBuilder> extra = {})
    {
        std::vector<SourceBuilder> src;
        for (RankTrace &t : traces)
            src.push_back(t.take());
        for (SourceBuilder &b : extra)
            src.push_back(std::move(b));
        return freeze(std::move(src));
    }
    std::vector<RankTrace> traces;
};

// Rank 1 reaches the collective of step 413 (k = 0) `lateMs` after its peers: they sit in the
// kernel waiting, so their kernels start early and everyone ends together.
SessionPtr straggler(TimeNs late, bool watchdog)
{
    Job job(4, 0);
    for (RankId r = 0; r < 4; ++r)
        for (int s = 0; s < 3; ++s) {
            RankTrace &t = job.traces[std::size_t(r)];
            const TimeNs at = kT0 + s * kStep;
            t.step(412 + s, at, kStep - kMs);
            for (int k = 0; k < 4; ++k) {
                const TimeNs end = at + 1500 * kMs + k * 100 * kMs;
                const TimeNs wait = (s == 1 && k == 0) ? (r == 1 ? 0 : late) : 0;
                t.collective(end - 20 * kMs - wait, 20 * kMs + wait, 1000 + k, s * 4 + k);
            }
        }
    std::vector<SourceBuilder> extra;
    if (watchdog) {
        JobLog log;
        for (RankId r : {0, 2, 3}) {
            log.record(r, "[Rank " + std::to_string(r) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
                              "OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.",
                       LogFlagWatchdogTimeout, LogKind::PyTorch, LogLevel::Error);
            log.logs().timeouts.push_back({r, 12, "ALLREDUCE", -1, -1, 600000, 600000, kNoTime, 0});
        }
        extra.push_back(log.take());
    }
    return job.session(std::move(extra));
}

SessionPtr logOnly(std::initializer_list<std::tuple<RankId, const char *, std::uint16_t, LogKind, LogLevel>> records)
{
    JobLog log;
    for (const auto &[rank, text, flags, kind, level] : records)
        log.record(rank, text, flags, kind, level, kT0 + log.nextLine() * kSec);
    std::vector<SourceBuilder> src;
    src.push_back(log.take());
    return freeze(std::move(src));
}

// Two ranks whose traces state CUDA versions in their metadata (raw JSON text, as Kineto writes).
SessionPtr versions(const char *runtime0, const char *driver0, const char *runtime1, const char *driver1)
{
    std::vector<SourceBuilder> src;
    const char *v[2][2] = {{runtime0, driver0}, {runtime1, driver1}};
    for (RankId r = 0; r < 2; ++r) {
        RankTrace t(r);
        t.builder().source().metadata.emplace_back("cuda_runtime_version", v[r][0]);
        t.builder().source().metadata.emplace_back("cuda_driver_version", v[r][1]);
        src.push_back(t.take());
    }
    return freeze(std::move(src));
}

const std::map<QString, Scenario> &scenarios()
{
    static const std::map<QString, Scenario> table = {
        {"extra micro-batch", [] {
             Job job(4, 2);
             for (RankId r = 0; r < 4; ++r)
                 job.step(r, 2, r == 2 ? 4 : 3);
             return job.session();
         }},
        {"extra micro-batch oom", [] {
             Job job(4, 2);
             for (RankId r = 0; r < 4; ++r)
                 job.step(r, 2, r == 2 ? 4 : 3);
             job.traces[2].oomInstant(kT0 + 2 * kStep + 1200 * kMs);
             return job.session();
         }},
        {"one rank profiled a step more", [] {
             Job job(4, 3);
             job.step(3, 3);
             return job.session();
         }},
        {"inputs 1.6% longer", [] {
             Job job(4, 0);
             for (RankId r = 0; r < 4; ++r)
                 for (int s = 0; s < 3; ++s) {
                     RankTrace &t = job.traces[std::size_t(r)];
                     t.step(412 + s, kT0 + s * kStep, kStep - kMs);
                     for (int mb = 0; mb < 3; ++mb)
                         t.microBatch(kT0 + s * kStep + mb * 300 * kMs, r == 1 ? "[[6, 1040]]" : "[[6, 1024]]");
                 }
             return job.session();
         }},
        {"late 400 ms", [] { return straggler(400 * kMs, false); }},
        {"late 400 ms watchdog", [] { return straggler(400 * kMs, true); }},
        {"late 150 ms", [] { return straggler(150 * kMs, false); }},
        {"extra collective", [] {
             Job job(3, 1);
             job.step(0, 1);
             job.step(1, 1);
             job.step(2, 1, 3, 5);
             job.step(0, 2);
             job.step(1, 2);
             job.step(2, 2);
             return job.session();
         }},
        {"watchdog timeouts", [] {
             Job job(3, 3);
             JobLog log;
             for (RankId r : {0, 1}) {
                 log.record(r, "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE)",
                            LogFlagWatchdogTimeout, LogKind::PyTorch, LogLevel::Error, kT0 + 9 * kSec);
                 log.logs().timeouts.push_back({r, 12, "ALLREDUCE", -1, -1, 600000, 600000, kT0 + 9 * kSec, 0});
             }
             std::vector<SourceBuilder> extra;
             extra.push_back(log.take());
             return job.session(std::move(extra));
         }},
        {"kernels lag into the next step", [] {
             // Every rank's host issues four collectives per step, but the last one of step 413
             // reaches rank 2's GPU only after its host began step 414 (the peers wait for it).
             // Counting kernels by start would split 3 + 5; counting host calls does not.
             Job job(3, 0);
             for (RankId r = 0; r < 3; ++r)
                 for (int s = 0; s < 3; ++s) {
                     RankTrace &t = job.traces[std::size_t(r)];
                     const TimeNs at = kT0 + s * kStep;
                     t.step(412 + s, at, kStep - kMs);
                     for (int k = 0; k < 4; ++k) {
                         t.span(t.cpu(), "record_param_comms", at + 1000 * kMs + k * 100 * kMs, kMs);
                         const bool lag = s == 1 && k == 3;
                         const TimeNs end = lag ? at + kStep + 20 * kMs : at + 1500 * kMs + k * 100 * kMs;
                         const TimeNs start = lag ? (r == 2 ? at + kStep + 10 * kMs : at + 1750 * kMs) : end - 50 * kMs;
                         t.collective(start, end - start, 1000 + k, s * 4 + k);
                     }
                 }
             return job.session();
         }},
        {"connection refused", [] {
             return logOnly({{1, "misc/socket.cc:50 Call to connect returned Connection refused, retrying", 0, LogKind::Nccl,
                              LogLevel::Warning}});
         }},
        {"cuda failure", [] {
             return logOnly({{0, "enqueue.cc:12 Cuda failure 'invalid device function'", 0, LogKind::Nccl, LogLevel::Warning}});
         }},
        {"other warning", [] {
             return logOnly({{3, "Unexpected topology: rings may be suboptimal", 0, LogKind::Nccl, LogLevel::Warning}});
         }},
        {"info lines and a harmless warning", [] {
             return logOnly({{0, "NET/IB : No device found.", 0, LogKind::Nccl, LogLevel::Info},
                             {0, "Connection to rank 1 established via NET/Socket/0", 0, LogKind::Nccl, LogLevel::Info},
                             {1, "misc/ibvwrap.cc:66 Failed to open libibverbs.so[.1]", 0, LogKind::Nccl, LogLevel::Warning}});
         }},
        {"abort alone", [] {
             return logOnly({{1, "comm 0x5507adc321b0 rank 1 nRanks 4 cudaDev 1 busId f000 - Abort COMPLETE", LogFlagNcclAbort,
                              LogKind::Nccl, LogLevel::Info}});
         }},
        {"abort after timeout", [] {
             return logOnly({{0, "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=46, OpType=ALLREDUCE)",
                              LogFlagWatchdogTimeout, LogKind::PyTorch, LogLevel::Error},
                             {1, "comm 0x5507adc321b0 rank 1 nRanks 4 cudaDev 1 busId f000 - Abort COMPLETE", LogFlagNcclAbort,
                              LogKind::Nccl, LogLevel::Info}});
         }},
        {"cuda 13 on a 12.2 driver", [] { return versions("13000", "12020", "13000", "12020"); }},
        {"cuda 12.4 on a 12.2 driver", [] { return versions("12040", "12020", "12040", "12020"); }},
        {"different drivers", [] { return versions("12040", "12090", "12040", "\"12080\""); }},
        {"cuda 12.4 on a 12.9 driver", [] { return versions("12040", "12090", "\"12040\"", "\"12090\""); }},
        {"reduction not finished", [] {
             return logOnly({{2, "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new "
                                 "one. This error indicates that your module has parameters that were not used in producing "
                                 "loss. You can enable unused parameter detection by passing the keyword argument "
                                 "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`",
                              LogFlagUnusedParameters, LogKind::Python, LogLevel::Error},
                             {0, "Parameter indices which did not receive grad for rank 0: 12 13", LogFlagUnusedParameters,
                              LogKind::PyTorch, LogLevel::Error}});
         }},
        {"no unused parameters found", [] {
             return logOnly({{1, "find_unused_parameters=True was specified in DDP constructor, but did not find any unused "
                                 "parameters in the forward pass. This flag results in an extra traversal of the autograd "
                                 "graph every iteration, which can adversely affect performance.",
                              LogFlagUnusedParameters, LogKind::PyTorch, LogLevel::Warning}});
         }},
        {"trainer arguments dump", [] {
             return logOnly({{0, "ddp_find_unused_parameters=None,", LogFlagUnusedParameters, LogKind::Other, LogLevel::Info},
                             {0, "  find_unused_parameters: false", LogFlagUnusedParameters, LogKind::Other, LogLevel::Info}});
         }},
    };
    return table;
}

} // namespace

class TestRankRules : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rules_data();
    void rules();
};

void TestRankRules::rules_data()
{
    addRuleColumns();
    const Severity H = Severity::High, M = Severity::Medium, L = Severity::Low;
    const qint64 step414 = kT0 + 2 * kStep;
    expectFinding("uneven: extra micro-batch", "extra micro-batch", "uneven-batch", M, {2}, step414,
                  "DistributedSampler(drop_last=True)", "in step 414");
    expectFinding("uneven: extra micro-batch and oom", "extra micro-batch oom", "uneven-batch", H, {2}, step414,
                  "dataloader_drop_last=True", "in step 414");
    expectFinding("uneven: trace windows differ", "one rank profiled a step more", "uneven-batch", L, {3}, -1,
                  "drop_last=True");
    expectNothing("uneven: inputs 1.6% longer", "inputs 1.6% longer", "uneven-batch");

    // The peers began waiting at step 413's first collective.
    const qint64 wait413 = kT0 + kStep + 1500 * kMs - 20 * kMs - 400 * kMs;
    expectFinding("straggler: 400 ms late", "late 400 ms", "straggler", M, {1}, wait413, "num_workers", "Rank 1 is the straggler");
    expectFinding("straggler: watchdog", "late 400 ms watchdog", "straggler", H, {1}, wait413, "pin_memory");
    expectNothing("straggler: 150 ms late in 2 s steps", "late 150 ms", "straggler");

    expectFinding("desync: extra collective", "extra collective", "collective-desync", M, {2}, kT0 + kStep,
                  "TORCH_NCCL_DESYNC_DEBUG=1", "rank 2 differs");
    // Ranks 0 and 1 time out on SeqNum 12; rank 2 never reported it: rank 2 is the culprit.
    expectFinding("desync: watchdog timeouts", "watchdog timeouts", "collective-desync", H, {2}, kT0 + 9 * kSec,
                  "TORCH_NCCL_TRACE_BUFFER_SIZE", "timed out waiting");
    expectNothing("desync: kernels lag", "kernels lag into the next step", "collective-desync");

    expectFinding("nccl: connection refused", "connection refused", "nccl-error", H, {1}, kT0 + kSec,
                  "NCCL_SOCKET_IFNAME", "network connection");
    expectFinding("nccl: cuda failure", "cuda failure", "nccl-error", H, {0}, kT0 + kSec, "Xid", "CUDA failure");
    expectFinding("nccl: other warning", "other warning", "nccl-error", M, {3}, kT0 + kSec, "NCCL_DEBUG=INFO");
    // Info lines say nothing; the libibverbs probe is a warning on every host without InfiniBand.
    expectFinding("nccl: harmless only", "info lines and a harmless warning", "nccl-error", Severity::Info, {1},
                  kT0 + 3 * kSec, "libibverbs");

    // An abort follows a failure (or a normal shutdown): never high on its own.
    expectFinding("nccl: abort alone", "abort alone", "nccl-error", L, {1}, kT0 + kSec, "TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
                  "aborted");
    expectFinding("nccl: abort after a timeout", "abort after timeout", "nccl-error", M, {1}, kT0 + 2 * kSec,
                  "first failing rank");

    expectFinding("driver: major mismatch", "cuda 13 on a 12.2 driver", "driver-mismatch", H, {0, 1}, -1,
                  "download.pytorch.org/whl/cuXY", "CUDA 13.0 software on a driver that supports CUDA 12.2");
    expectFinding("driver: minor mismatch", "cuda 12.4 on a 12.2 driver", "driver-mismatch", L, {0, 1}, -1,
                  "minor version compatibility", "CUDA 12.4 software");
    expectFinding("driver: different drivers", "different drivers", "driver-mismatch", L, {0, 1}, -1,
                  "same NVIDIA driver", "different CUDA drivers");
    expectNothing("driver: newer driver", "cuda 12.4 on a 12.9 driver", "driver-mismatch");

    expectFinding("ddp: reduction not finished", "reduction not finished", "ddp-unused-parameters", H, {0, 2}, kT0 + kSec,
                  "find_unused_parameters=True", "DDP stopped");
    expectFinding("ddp: nothing unused", "no unused parameters found", "ddp-unused-parameters", M, {1}, kT0 + kSec,
                  "ddp_find_unused_parameters=False", "wasted traversal");
    expectNothing("ddp: arguments dump", "trainer arguments dump", "ddp-unused-parameters");
}

void TestRankRules::rules()
{
    checkRule(scenarios());
}

QTEST_GUILESS_MAIN(TestRankRules)
#include "test_rankrules.moc"
