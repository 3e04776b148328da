#include "workerlogtext.h"

#include "allocatorreport.h"
#include "prng.h"
#include "textformat.h"

#include <cstdarg>
#include <cstdio>

namespace rs::tracegen {

namespace {
constexpr TimeNs kMs = 1000000;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::string_view kModulePy = "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py";
constexpr std::string_view kCheckpoint = "/checkpoints/gpt-1.5b/step_";
constexpr std::string_view kTraceDir = "/workspace/runs/gpt-1.5b/profile";

__attribute__((format(printf, 1, 2))) std::string format(const char *fmt, ...)
{
    char buf[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

std::string grouped(std::int64_t n)
{
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}
} // namespace

WorkerLogText::WorkerLogText(const JobTimeline &timeline, const JobRecord &record)
    : m_timeline(timeline), m_record(record), m_config(timeline.config())
{
}

std::int64_t WorkerLogText::parameterCount(const ModelShape &m)
{
    const std::int64_t h = m.hidden;
    // Embedding (tied to the LM head), per block 12 h² + 13 h, the final norm.
    return static_cast<std::int64_t>(m.vocab) * h + m.layers * (12 * h * h + 13 * h) + 2 * h;
}

std::string WorkerLogText::info(TimeNs t, std::string_view level, std::string_view message) const
{
    return JobLogBuilder::pythonStamp(t) + " [" + std::string(level) + "] train: " + std::string(message);
}

std::vector<std::string> WorkerLogText::traceback(const OomRecord &oom)
{
    std::vector<std::string> out{"Traceback (most recent call last):"};
    auto frame = [&](std::string_view file, int line, std::string_view function, std::string_view code) {
        out.push_back(format("  File \"%.*s\", line %d, in %.*s", int(file.size()), file.data(), line,
                             int(function.size()), function.data()));
        out.push_back("    " + std::string(code));
    };
    for (const PythonFrame &f : oom.python) {
        frame(f.file, f.line, f.function, f.code);
        if (f.callsModule) {
            frame(kModulePy, 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)");
            frame(kModulePy, 1562, "_call_impl", "return forward_call(*args, **kwargs)");
        }
    }
    return out;
}

void WorkerLogText::startUp(JobLogBuilder &log, const JobTimeline::Rank &t, const RankRecord &r) const
{
    const RankId rank = r.setup.rank;
    std::string torch = "torch 2.4.0+cu";
    for (char ch : m_config.cudaVersion)
        if (ch != '.')
            torch += ch;
    log.line(t.started, rank,
             info(t.started, "INFO",
                  format("rank %d/%d (local rank %d) pid %lld on %s: %s, CUDA %s, NCCL %s, Python 3.10.12", rank,
                         m_config.worldSize, r.setup.device, static_cast<long long>(r.setup.pid),
                         m_config.hostName.c_str(), torch.c_str(), m_config.cudaVersion.c_str(),
                         m_config.ncclVersion.c_str())));
    const ModelShape &m = m_config.model;
    const RankPlan &plan = m_config.ranks.front();
    const MicroBatchShape mb = plan.steps.front().front();
    if (rank == 0) {
        log.line(t.started, rank,
                 info(t.started, "INFO",
                      format("config configs/gpt-1.5b.yaml: %d layers, d_model %d, %d heads, vocab %d; %zu micro-batches "
                             "of %d x %d tokens per rank and step; AdamW lr 3.0e-04; fp32; DDP bucket_cap_mb=%lld",
                             m.layers, m.hidden, m.heads, m.vocab, plan.steps.front().size(), mb.batch, mb.seqLen,
                             static_cast<long long>(m_config.ddpBucketBytes >> 20))));
        log.line(t.started, rank,
                 info(t.started, "INFO",
                      format("env: NCCL_BUFFSIZE=%lld TORCH_NCCL_ASYNC_ERROR_HANDLING=2 PYTORCH_CUDA_ALLOC_CONF=<unset>; "
                             "init_process_group(backend=\"nccl\", timeout=%llds); SIGTERM stops training with an "
                             "exception",
                             static_cast<long long>(m_config.ncclBuffSize),
                             static_cast<long long>(m_config.collectiveTimeoutNs / 1000000000))));
    }
    log.line(t.cudaReady, rank,
             info(t.cudaReady, "INFO",
                  format("rank %d: cuda:%d %s, %s", rank, r.setup.device, m_config.gpu.name.c_str(),
                         AllocatorReport::formatSize(m_config.gpu.totalMemory).c_str())));
    if (rank == 0)
        log.line(t.modelOnDevice, rank,
                 info(t.modelOnDevice, "INFO",
                      format("model: %s parameters, %s GiB of fp32 weights", grouped(parameterCount(m)).c_str(),
                             TextFormat::fixed(static_cast<double>(parameterCount(m) * 4) / kGiB, 2).c_str())));
    const std::int64_t resumeStep = m_config.firstStep;
    const TimeNs loading = m_timeline.ncclInitDone() + 260 * kMs;
    if (rank == 0)
        log.line(loading, rank,
                 info(loading, "INFO",
                      format("loading checkpoint %.*s%06lld (model, AdamW state, data loader position)",
                             int(kCheckpoint.size()), kCheckpoint.data(), static_cast<long long>(resumeStep))));
    log.line(t.checkpointLoaded, rank,
             info(t.checkpointLoaded, "INFO",
                  format("rank %d: checkpoint loaded in %s s", rank,
                         TextFormat::fixed(static_cast<double>(t.checkpointLoaded - loading) / 1e9, 2).c_str())));
    if (rank == 0) {
        const TimeNs at = t.profilerStart - 1 * kMs;
        const auto last = resumeStep + static_cast<std::int64_t>(plan.steps.size()) - 1;
        log.line(at, rank,
                 info(at, "INFO",
                      format("resumed at step %lld; profiling steps %lld-%lld to %.*s (record_shapes, profile_memory)",
                             static_cast<long long>(resumeStep), static_cast<long long>(resumeStep),
                             static_cast<long long>(last), int(kTraceDir.size()), kTraceDir.data())));
    }
}

void WorkerLogText::steps(JobLogBuilder &log, const RankRecord &r) const
{
    const RankId rank = r.setup.rank;
    const JobTimeline::Rank &t = m_timeline.rank(rank);
    const RankPlan *plan = nullptr;
    for (const RankPlan &p : m_config.ranks)
        if (p.rank == rank)
            plan = &p;
    Prng rng(m_config.seed ^ (0x1055ULL + static_cast<std::uint64_t>(rank)));
    for (std::size_t k = 0; k < r.stepEnds.size(); ++k) {
        const double loss = 2.6214 - 0.0009 * static_cast<double>(k) + rng.uniform(-0.045, 0.045);
        // A stopped rank's SIGTERM handler raised right after loss.item(), before this line.
        if (t.terminated && k + 1 == r.stepEnds.size())
            break;
        std::int64_t tokens = 0;
        for (const MicroBatchShape &mb : plan->steps[k])
            tokens += static_cast<std::int64_t>(mb.batch) * mb.seqLen;
        const TimeNs at = r.stepEnds[k] + 200000;
        log.line(at, rank,
                 info(at, "INFO",
                      format("step %lld | loss %s | %zu micro-batches, %lld tokens | %s s | max allocated %s GiB",
                             static_cast<long long>(m_config.firstStep + static_cast<std::int64_t>(k)),
                             TextFormat::fixed(loss, 4).c_str(), plan->steps[k].size(), static_cast<long long>(tokens),
                             TextFormat::fixed(static_cast<double>(r.stepEnds[k] - r.stepStarts[k]) / 1e9, 2).c_str(),
                             TextFormat::fixed(static_cast<double>(r.stepPeakAllocated[k]) / kGiB, 2).c_str())));
    }
}

void WorkerLogText::outOfMemory(JobLogBuilder &log, const JobTimeline::Rank &t, const RankRecord &r) const
{
    const OomRecord &oom = *r.oom;
    const RankId rank = r.setup.rank;
    // log.exception(): the message, then the traceback, in one write.
    std::string text = info(t.errorLogged, "ERROR",
                            format("rank %d: OutOfMemoryError in step %lld, micro-batch %d/%d (%d x %d tokens); "
                                   "torch.cuda.memory_summary() follows",
                                   rank, static_cast<long long>(oom.step), oom.microBatch, oom.microBatches,
                                   oom.shape.batch, oom.shape.seqLen));
    for (const std::string &l : traceback(oom))
        text += "\n" + l;
    text += "\ntorch.OutOfMemoryError: " + AllocatorReport::oomMessage(oom, m_config.gpu, r.setup.device);
    log.block(t.errorLogged, rank, text);
    log.block(t.errorLogged + 9 * kMs, rank, AllocatorReport::memorySummary(oom.stats, r.setup.device));
    // sys.exit(1) without destroy_process_group(): PyTorch 2.4 warns from the destructor.
    const TimeNs exiting = t.exited - 200 * kMs;
    log.line(exiting, rank,
             JobLogBuilder::c10Prefix(exiting, 'W', "ProcessGroupNCCL.cpp:1168")
                 + "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On "
                   "normal program exit, the application should call destroy_process_group to ensure that any pending "
                   "NCCL operations have finished in this process. In rare cases this process can exit before this "
                   "point and block the progress of another member of the process group. This constraint has always "
                   "been present,  but this warning has only been added since PyTorch 2.4 (function operator())");
}

void WorkerLogText::watchdog(JobLogBuilder &log, const RankRecord &r) const
{
    const CollectiveTimeout &w = *r.timeout;
    const RankId rank = r.setup.rank;
    const std::string label = "[Rank " + std::to_string(rank) + "] ";
    log.line(w.detected, rank,
             JobLogBuilder::c10Prefix(w.detected, 'E', "ProcessGroupNCCL.cpp:632") + label
                 + format("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%lld, OpType=ALLREDUCE, "
                          "NumelIn=%lld, NumelOut=%lld, Timeout(ms)=%lld) ran for %lld milliseconds before timing out.",
                          static_cast<long long>(w.seq), static_cast<long long>(w.nelems),
                          static_cast<long long>(w.nelems), static_cast<long long>(m_config.collectiveTimeoutNs / kMs),
                          static_cast<long long>((w.detected - w.workStart) / kMs)));
    const TimeNs next = w.detected + 61000;
    log.line(next, rank,
             JobLogBuilder::c10Prefix(next, 'E', "ProcessGroupNCCL.cpp:1664")
                 + format("[PG 0 (default_pg) Rank %d] Exception (either an error or timeout) detected by watchdog at "
                          "work: %lld, last enqueued NCCL work: %lld, last completed NCCL work: %lld.",
                          rank, static_cast<long long>(w.seq), static_cast<long long>(w.lastEnqueuedSeq),
                          static_cast<long long>(w.lastCompletedSeq)));
    // TORCH_NCCL_ASYNC_ERROR_HANDLING=2: the communicators were aborted, the process carries on.
    const TimeNs cleaned = w.aborted + 180000;
    log.line(cleaned, rank,
             JobLogBuilder::c10Prefix(cleaned, 'E', "ProcessGroupNCCL.cpp:621") + label
                 + "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
                   "subsequent GPU operations might run on corrupted/incomplete data.");
}

void WorkerLogText::write(JobLogBuilder &log) const
{
    for (const RankRecord &r : m_record.ranks) {
        const JobTimeline::Rank &t = m_timeline.rank(r.setup.rank);
        startUp(log, t, r);
        steps(log, r);
        if (r.oom)
            outOfMemory(log, t, r);
        if (r.timeout)
            watchdog(log, r);
        if (t.terminated) {
            const auto step = m_config.firstStep + static_cast<std::int64_t>(r.stepStarts.size()) - 1;
            log.line(t.errorLogged, r.setup.rank,
                     info(t.errorLogged, "ERROR",
                          format("rank %d: stopped in step %lld by SIGTERM from torchrun (another worker failed); "
                                 "profiler trace written",
                                 r.setup.rank, static_cast<long long>(step))));
        }
    }
}

} // namespace rs::tracegen
