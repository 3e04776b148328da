#include "ranksimulator.h"

#include "jsonappender.h"

#include <algorithm>
#include <stdexcept>

namespace rs::tracegen {

namespace {
// Host-side costs measured on typical A100 hosts, in ns.
constexpr TimeNs kLaunchCallNs = 4500;     // cudaLaunchKernel returning
constexpr TimeNs kLaunchLatencyNs = 4000;  // from the call returning to the earliest kernel start
constexpr TimeNs kMemoryEventNs = 400;     // allocator bookkeeping per [memory] event
// CUDA's pending-launch queue: once this many kernels wait on a stream, launches block. This is
// what stops a GPU-bound Python thread from running arbitrarily far ahead.
constexpr std::size_t kLaunchQueueDepth = 1024;
// CUPTI runtime callback ids (cupti_runtime_cbid.h).
constexpr int kCbidLaunchKernel = 211;
constexpr int kCbidMemcpyAsync = 41;
constexpr int kCbidMemsetAsync = 51;
constexpr int kCbidEventRecord = 135;
constexpr int kCbidStreamWaitEvent = 147;
constexpr int kCbidDeviceSynchronize = 165;
// An exception leaving an op: C++ unwinding through the dispatcher, then Python frames.
constexpr TimeNs kUnwindPerOpNs = 30000;
} // namespace

RankSimulator::RankSimulator(RankSetup setup, std::vector<JobListener *> listeners, Prng rng)
    : m_listeners(std::move(listeners)),
      m_rng(rng),
      m_allocator(setup.job->gpu.totalMemory - setup.job->gpu.nonPytorchMemory(),
                  // Device pointers live in the same 0x7fxx... range as host mappings.
                  0x7f3a00000000LL + static_cast<std::int64_t>(setup.device) * 0x2000000000LL),
      m_now(setup.profilerStartNs),
      m_correlations(100000 + 977 * setup.rank)
{
    m_record.setup = std::move(setup);
    m_streams[0].id = m_record.setup.computeStream;
    m_streams[1].id = m_record.setup.commStream;
    m_streams[0].free = m_streams[1].free = m_now;
    for (JobListener *l : m_listeners)
        l->rankStarted(m_record.setup);
}

void RankSimulator::cpu(TimeNs nominalNs)
{
    m_now += m_rng.jitterNs(nominalNs, 0.2);
}

void RankSimulator::useThread(ThreadRole role)
{
    if (role == m_thread)
        return;
    // Handing work to the autograd thread (or back) costs a wake-up.
    cpu(12000);
    m_thread = role;
}

std::int64_t RankSimulator::tid() const
{
    return m_thread == ThreadRole::Main ? setup().mainTid : setup().autogradTid;
}

std::int64_t RankSimulator::currentExternalId() const
{
    for (auto it = m_stack.rbegin(); it != m_stack.rend(); ++it)
        if (it->thread == m_thread)
            return it->externalId;
    return 0;
}

void RankSimulator::beginOp(Category category, std::string_view name, std::string_view shapeArgs,
                            const OpOptions &options)
{
    Frame f{category, std::string(name), m_now, ++m_externalIds, {}, m_thread, options.gpuCopy};
    JsonAppender j(f.args);
    j.raw("\"External id\": ").integer(f.externalId).raw(",\"Record function id\": 0");
    if (options.sequence >= 0)
        j.raw(", \"Sequence number\": ").integer(options.sequence);
    if (options.fwdThread >= 0)
        j.raw(", \"Fwd thread id\": ").integer(options.fwdThread);
    j.raw(", \"Ev Idx\": ").integer(m_evIdx++);
    if (!shapeArgs.empty())
        j.raw(", ").raw(shapeArgs);
    if (options.flowOut)
        emitFlow(Phase::FlowStart, Category::FlowFwdBwd, options.flowOut, setup().pid, tid(), m_now);
    if (options.flowIn)
        emitFlow(Phase::FlowEnd, Category::FlowFwdBwd, options.flowIn, setup().pid, tid(), m_now);
    m_stack.push_back(std::move(f));
    cpu(1500); // dispatcher entry
}

void RankSimulator::endOp()
{
    if (m_stack.empty() || m_stack.back().thread != m_thread)
        throw std::logic_error("RankSimulator::endOp without a matching beginOp on this thread");
    cpu(800); // dispatcher exit
    Frame f = std::move(m_stack.back());
    m_stack.pop_back();
    emitSpan(f.category, f.name, setup().pid, tid(), f.start, m_now, f.args);
    if (f.gpuCopy && f.gpuFirst >= 0) {
        // Kineto widens GPU annotations by 1 ns each side so they wrap their kernels.
        m_args.clear();
        JsonAppender(m_args).raw("\"External id\": ").integer(f.externalId);
        emitSpan(Category::GpuUserAnnotation, f.name, setup().device, setup().computeStream, f.gpuFirst - 1,
                 f.gpuLast + 1, m_args);
    }
}

TimeNs RankSimulator::waitForQueueSlot(StreamRole role)
{
    Stream &s = stream(role);
    while (!s.queued.empty() && s.queued.front() <= m_now)
        s.queued.pop_front();
    if (s.queued.size() < kLaunchQueueDepth)
        return m_now;
    return s.queued[s.queued.size() - kLaunchQueueDepth];
}

TimeNs RankSimulator::enqueue(StreamRole role, TimeNs duration, TimeNs launchedAt)
{
    Stream &s = stream(role);
    const TimeNs start = std::max(s.free, launchedAt + m_rng.jitterNs(kLaunchLatencyNs, 0.4));
    s.free = start + duration;
    s.queued.push_back(start);
    if (role == StreamRole::Compute)
        noteGpuActivity(start, s.free);
    return start;
}

void RankSimulator::noteGpuActivity(TimeNs start, TimeNs end)
{
    for (Frame &f : m_stack) {
        if (!f.gpuCopy)
            continue;
        if (f.gpuFirst < 0 || start < f.gpuFirst)
            f.gpuFirst = start;
        f.gpuLast = std::max(f.gpuLast, end);
    }
}

std::pair<TimeNs, TimeNs> RankSimulator::runtimeCall(std::string_view name, int cbid, std::int64_t correlation,
                                                     TimeNs minimumDuration)
{
    const TimeNs start = m_now;
    const TimeNs end = start + std::max(m_rng.jitterNs(kLaunchCallNs, 0.3), minimumDuration);
    m_args.clear();
    JsonAppender j(m_args);
    if (const std::int64_t ext = currentExternalId())
        j.raw("\"External id\": ").integer(ext).raw(",");
    j.raw("\"cbid\": ").integer(cbid).raw(", \"correlation\": ").integer(correlation);
    emitSpan(Category::CudaRuntime, name, setup().pid, tid(), start, end, m_args);
    m_now = end;
    return {start, end};
}

void RankSimulator::appendKernelArgs(std::string &out, const KernelSpec &k, StreamRole role,
                                     std::int64_t externalId, std::int64_t correlation) const
{
    const double blocks = static_cast<double>(k.grid[0]) * k.grid[1] * k.grid[2];
    const double threads = static_cast<double>(k.block[0]) * k.block[1] * k.block[2];
    const double blocksPerSm = blocks / setup().job->gpu.numSms;
    const double warpsPerSm = blocksPerSm * threads / 32.0;
    const auto occupancy = static_cast<std::int64_t>(std::min(100.0, warpsPerSm / 64.0 * 100.0));
    JsonAppender j(out);
    if (externalId)
        j.raw("\"External id\": ").integer(externalId).raw(", ");
    j.raw("\"queued\": 0, \"device\": ").integer(setup().device).raw(", \"context\": 1, \"stream\": ");
    j.integer(m_streams[static_cast<int>(role)].id).raw(", \"correlation\": ").integer(correlation);
    j.raw(", \"registers per thread\": ").integer(k.registers).raw(", \"shared memory\": ").integer(k.sharedMemory);
    j.raw(", \"blocks per SM\": ").fixed(blocksPerSm, 6).raw(", \"warps per SM\": ").fixed(warpsPerSm, 6);
    j.raw(", \"grid\": [").integer(k.grid[0]).raw(", ").integer(k.grid[1]).raw(", ").integer(k.grid[2]);
    j.raw("], \"block\": [").integer(k.block[0]).raw(", ").integer(k.block[1]).raw(", ").integer(k.block[2]);
    j.raw("], \"est. achieved occupancy %\": ").integer(occupancy);
}

void RankSimulator::launchKernel(const KernelSpec &kernel, StreamRole role)
{
    const TimeNs slot = waitForQueueSlot(role);
    const std::int64_t corr = ++m_correlations;
    const std::int64_t ext = currentExternalId();
    const auto [callStart, callEnd] = runtimeCall("cudaLaunchKernel", kCbidLaunchKernel, corr, slot - m_now);
    const TimeNs duration = scaledGpuTime(kernel.duration);
    const TimeNs start = enqueue(role, duration, callEnd);
    m_args.clear();
    appendKernelArgs(m_args, kernel, role, ext, corr);
    emitFlow(Phase::FlowStart, Category::FlowAc2g, corr, setup().pid, tid(), callStart);
    emitSpan(Category::Kernel, kernel.name, setup().device, stream(role).id, start, start + duration, m_args);
    emitFlow(Phase::FlowEnd, Category::FlowAc2g, corr, setup().device, stream(role).id, start);
}

TimeNs RankSimulator::scaledGpuTime(TimeNs nominal)
{
    return m_rng.jitterNs(static_cast<TimeNs>(static_cast<double>(nominal) * setup().computeSpeed), 0.03);
}

void RankSimulator::memcpyAsync(std::string_view name, std::int64_t bytes, double bandwidth, bool blocking)
{
    const std::int64_t corr = ++m_correlations;
    const std::int64_t ext = currentExternalId();
    const TimeNs callStart = m_now;
    const TimeNs duration = m_rng.jitterNs(1500 + static_cast<TimeNs>(static_cast<double>(bytes) / bandwidth * 1e9), 0.1);
    // The copy is queued when the call reaches the driver, a couple of µs in.
    const TimeNs start = enqueue(StreamRole::Compute, duration, callStart + 2000);
    const TimeNs minimum = blocking ? start + duration + 3000 - callStart : 0;
    runtimeCall("cudaMemcpyAsync", kCbidMemcpyAsync, corr, minimum);
    m_args.clear();
    JsonAppender j(m_args);
    if (ext)
        j.raw("\"External id\": ").integer(ext).raw(", ");
    j.raw("\"device\": ").integer(setup().device).raw(", \"context\": 1, \"stream\": ").integer(setup().computeStream);
    j.raw(", \"correlation\": ").integer(corr).raw(", \"bytes\": ").integer(bytes);
    j.raw(", \"memory bandwidth (GB/s)\": ").fixed(static_cast<double>(bytes) / static_cast<double>(duration), 6);
    emitFlow(Phase::FlowStart, Category::FlowAc2g, corr, setup().pid, tid(), callStart);
    emitSpan(Category::GpuMemcpy, name, setup().device, setup().computeStream, start, start + duration, m_args);
    emitFlow(Phase::FlowEnd, Category::FlowAc2g, corr, setup().device, setup().computeStream, start);
}

void RankSimulator::memsetAsync(std::int64_t bytes)
{
    const std::int64_t corr = ++m_correlations;
    const std::int64_t ext = currentExternalId();
    const auto [callStart, callEnd] = runtimeCall("cudaMemsetAsync", kCbidMemsetAsync, corr, 0);
    const TimeNs duration = m_rng.jitterNs(
        1200 + static_cast<TimeNs>(static_cast<double>(bytes) / setup().job->gpu.memoryBandwidth * 1e9), 0.05);
    const TimeNs start = enqueue(StreamRole::Compute, duration, callEnd);
    m_args.clear();
    JsonAppender j(m_args);
    if (ext)
        j.raw("\"External id\": ").integer(ext).raw(", ");
    j.raw("\"device\": ").integer(setup().device).raw(", \"context\": 1, \"stream\": ").integer(setup().computeStream);
    j.raw(", \"correlation\": ").integer(corr).raw(", \"bytes\": ").integer(bytes);
    j.raw(", \"memory bandwidth (GB/s)\": ").fixed(static_cast<double>(bytes) / static_cast<double>(duration), 6);
    emitFlow(Phase::FlowStart, Category::FlowAc2g, corr, setup().pid, tid(), callStart);
    emitSpan(Category::GpuMemset, "Memset (Device)", setup().device, setup().computeStream, start,
             start + duration, m_args);
    emitFlow(Phase::FlowEnd, Category::FlowAc2g, corr, setup().device, setup().computeStream, start);
}

void RankSimulator::streamWaitStream(StreamRole waiter, StreamRole producer)
{
    runtimeCall("cudaEventRecord", kCbidEventRecord, ++m_correlations, 0);
    runtimeCall("cudaStreamWaitEvent", kCbidStreamWaitEvent, ++m_correlations, 0);
    Stream &w = stream(waiter);
    w.free = std::max(w.free, stream(producer).free);
}

void RankSimulator::issueCollective(const CollectiveSpec &spec)
{
    const auto &s = setup();
    std::string ranks = "[";
    for (int r = 0; r < s.worldSize; ++r)
        ranks += (r ? ", " : "") + std::to_string(r);
    ranks += "]";
    std::string args;
    JsonAppender j(args);
    j.raw("\"Input Dims\": [[").integer(spec.nelems).raw("]], \"Input type\": [\"float\"], ");
    j.raw("\"Collective name\": ").quoted(spec.collective).raw(", \"dtype\": \"Float\", \"In msg nelems\": ");
    j.integer(spec.nelems).raw(", \"Out msg nelems\": ").integer(spec.nelems).raw(", \"Group size\": ");
    j.integer(s.worldSize).raw(", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Global rank start\": 0, "
                               "\"Global rank stride\": 1, \"Process Group Name\": \"0\", "
                               "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": ");
    j.quoted(ranks).raw(", \"Rank\": ").integer(s.rank).raw(", \"Seq\": ").integer(spec.seq);

    beginOp(Category::CpuOp, "record_param_comms", args);
    const std::int64_t ext = m_stack.back().externalId;
    std::string annotation;
    JsonAppender(annotation).raw("\"Input Dims\": [[").integer(spec.nelems).raw("]], \"Input type\": [\"float\"]");
    beginOp(Category::UserAnnotation, "nccl:all_reduce", annotation);
    cpu(6000);
    endOp();
    // ProcessGroupNCCL makes its stream wait for the compute stream, so the gradients are final.
    runtimeCall("cudaEventRecord", kCbidEventRecord, ++m_correlations, 0);
    runtimeCall("cudaStreamWaitEvent", kCbidStreamWaitEvent, ++m_correlations, 0);
    const TimeNs computeDone = stream(StreamRole::Compute).free;
    const std::int64_t corr = ++m_correlations;
    const auto [callStart, callEnd] = runtimeCall("cudaLaunchKernel", kCbidLaunchKernel, corr, 0);
    PendingCollective p;
    p.spec = spec;
    p.kernelName = std::string(spec.kernelName);
    p.spec.kernelName = {};
    p.ready = std::max(computeDone, callEnd + m_rng.jitterNs(kLaunchLatencyNs, 0.4));
    p.launch = callStart;
    p.externalId = ext;
    p.correlation = corr;
    p.launchTid = tid();
    m_pending.push_back(std::move(p));
    cpu(3000);
    endOp();
}

std::vector<RankSimulator::PendingInfo> RankSimulator::pendingCollectives() const
{
    std::vector<PendingInfo> out;
    out.reserve(m_pending.size());
    for (const PendingCollective &p : m_pending)
        out.push_back({p.ready, p.launch, p.spec.seq, p.spec.nelems});
    return out;
}

void RankSimulator::completeCollectives(const std::vector<Settled> &settled)
{
    if (settled.size() != m_pending.size())
        throw std::logic_error("completeCollectives: one outcome per pending collective expected");
    Stream &comm = stream(StreamRole::Comm);
    for (std::size_t i = 0; i < m_pending.size(); ++i) {
        const PendingCollective &p = m_pending[i];
        const auto [start, end, aborted] = settled[i];
        KernelSpec k;
        k.name = p.kernelName;
        k.grid = p.spec.grid;
        k.block = {640, 1, 1};
        k.registers = 96;
        k.sharedMemory = 0;
        m_args.clear();
        appendKernelArgs(m_args, k, StreamRole::Comm, p.externalId, p.correlation);
        JsonAppender j(m_args);
        j.raw(", \"Collective name\": ").quoted(p.spec.collective).raw(", \"In msg nelems\": ").integer(p.spec.nelems);
        j.raw(", \"Out msg nelems\": ").integer(p.spec.nelems).raw(", \"Group size\": ").integer(setup().worldSize);
        j.raw(", \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", "
              "\"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
              "\"Process Group Ranks\": \"[");
        for (int r = 0; r < setup().worldSize; ++r)
            j.raw(r ? ", " : "").integer(r);
        j.raw("]\", \"Seq\": ").integer(p.spec.seq);
        const CollectiveRecord record{p.spec.collective, p.spec.nelems, p.spec.seq, setup().worldSize};
        // Kineto links a launch to its kernel only once the kernel ran, so the flow starts here.
        emitFlow(Phase::FlowStart, Category::FlowAc2g, p.correlation, setup().pid, p.launchTid, p.launch);
        emitSpan(Category::Kernel, p.kernelName, setup().device, comm.id, start, end, m_args, &record);
        emitFlow(Phase::FlowEnd, Category::FlowAc2g, p.correlation, setup().device, comm.id, start);
        comm.free = std::max(comm.free, end);
        m_record.collectives.push_back({p.spec.seq, p.spec.nelems, p.launch, start, end, aborted});
    }
    m_pending.clear();
}

void RankSimulator::outOfMemory(std::int64_t bytes)
{
    OomRecord oom;
    oom.time = m_now;
    oom.requested = bytes;
    oom.rounded = CachingAllocatorModel::roundSize(bytes);
    oom.segment = CachingAllocatorModel::segmentSize(oom.rounded);
    oom.allocated = m_allocator.allocated();
    oom.reserved = m_allocator.reserved();
    for (const Frame &f : m_stack)
        if (f.thread == m_thread)
            oom.ops.push_back(f.name);
    for (const PythonFrame *f : m_python)
        oom.python.push_back(*f);
    oom.stats = m_allocator.stats();
    // c10::reportOutOfMemoryToProfiler: the rounded request and the totals, no address.
    emitMemory({0, oom.rounded, oom.allocated, oom.reserved, setup().device});
    m_record.oom = std::move(oom);
    throw OutOfMemoryError("rank " + std::to_string(setup().rank) + ": CUDA out of memory");
}

Tensor RankSimulator::alloc(std::int64_t bytes)
{
    const auto a = m_allocator.allocate(bytes);
    if (a.block == CachingAllocatorModel::kNoBlock)
        outOfMemory(bytes);
    const MemoryRecord m{a.addr, a.size, m_allocator.allocated(), m_allocator.reserved(), setup().device};
    emitMemory(m);
    if (m_allocator.allocated() >= m_record.peakAllocated) {
        m_record.peakAllocated = m_allocator.allocated();
        m_record.peakAllocatedAt = m_now;
    }
    if (!m_record.stepPeakAllocated.empty())
        m_record.stepPeakAllocated.back() = std::max(m_record.stepPeakAllocated.back(), m_allocator.allocated());
    m_record.peakReserved = std::max(m_record.peakReserved, m_allocator.reserved());
    cpu(kMemoryEventNs);
    return {a.block, a.size};
}

void RankSimulator::free(Tensor &tensor)
{
    if (!tensor.valid())
        return;
    const std::int64_t addr = m_allocator.addressOf(tensor.block);
    const std::int64_t size = m_allocator.release(tensor.block);
    const MemoryRecord m{addr, -size, m_allocator.allocated(), m_allocator.reserved(), setup().device};
    emitMemory(m);
    cpu(kMemoryEventNs);
    tensor = {};
}

Tensor RankSimulator::allocSilently(std::int64_t bytes)
{
    const auto a = m_allocator.allocate(bytes);
    if (a.block == CachingAllocatorModel::kNoBlock)
        throw std::runtime_error("the model state alone does not fit on the device");
    m_record.peakAllocated = std::max(m_record.peakAllocated, m_allocator.allocated());
    m_record.peakReserved = std::max(m_record.peakReserved, m_allocator.reserved());
    m_record.initialAllocated = m_allocator.allocated();
    m_record.initialReserved = m_allocator.reserved();
    return {a.block, a.size};
}

void RankSimulator::unwind()
{
    while (!m_stack.empty()) {
        m_thread = m_stack.back().thread;
        m_now += m_rng.jitterNs(kUnwindPerOpNs, 0.3);
        endOp();
    }
    m_python.clear();
    m_thread = ThreadRole::Main;
}

void RankSimulator::endChunk()
{
    for (JobListener *l : m_listeners)
        l->chunkEnded(setup());
}

void RankSimulator::finish()
{
    if (!m_stack.empty())
        throw std::logic_error("RankSimulator::finish with ops still open");
    // profile.__exit__ calls torch.cuda.synchronize(): after an exception the GPU may still be
    // working through kernels the CPU queued before it failed.
    const TimeNs gpuBusy = std::max(m_streams[0].free, m_streams[1].free);
    if (gpuBusy > m_now)
        runtimeCall("cudaDeviceSynchronize", kCbidDeviceSynchronize, ++m_correlations, gpuBusy - m_now + 3000);
    cpu(50000); // the profiler's own stop
    m_record.windowEnd = m_now;
    m_record.finalAllocated = m_allocator.allocated();
    m_record.finalReserved = m_allocator.reserved();
    m_record.allocRetries = m_allocator.allocRetries();
    m_record.allocatorStats = m_allocator.stats();
    for (JobListener *l : m_listeners)
        l->rankFinished(setup(), setup().hostClock(m_now));
}

void RankSimulator::emitSpan(Category c, std::string_view name, std::int64_t pid, std::int64_t tidValue,
                             TimeNs start, TimeNs end, std::string_view args, const CollectiveRecord *collective)
{
    TraceEvent e;
    e.phase = Phase::Complete;
    e.category = c;
    e.name = name;
    e.pid = pid;
    e.tid = tidValue;
    e.ts = setup().hostClock(start);
    e.dur = std::max<TimeNs>(0, setup().hostClock(end) - e.ts);
    e.args = args;
    e.collective = collective;
    deliver(e);
}

void RankSimulator::emitFlow(Phase phase, Category c, std::int64_t id, std::int64_t pid, std::int64_t tidValue,
                             TimeNs t)
{
    TraceEvent e;
    e.phase = phase;
    e.category = c;
    e.name = categoryName(c);
    e.pid = pid;
    e.tid = tidValue;
    e.ts = setup().hostClock(t);
    e.flowId = id;
    deliver(e);
}

void RankSimulator::emitMemory(const MemoryRecord &m)
{
    std::string args;
    JsonAppender j(args);
    j.raw("\"Total Reserved\": ").integer(m.totalReserved).raw(", \"Total Allocated\": ").integer(m.totalAllocated);
    j.raw(", \"Bytes\": ").integer(m.bytes);
    if (m.addr)
        j.raw(", \"Addr\": ").integer(m.addr);
    j.raw(", \"Device Type\": 1, \"Device Id\": ").integer(m.deviceId).raw(", \"Ev Idx\": ").integer(m_evIdx++);
    TraceEvent e;
    e.phase = Phase::Instant;
    e.category = Category::CpuInstantEvent;
    e.name = m.addr ? "[memory]" : "[OutOfMemory]";
    e.pid = setup().pid;
    e.tid = tid();
    e.ts = setup().hostClock(m_now);
    e.args = args;
    e.memory = &m;
    m_record.memoryEvents += m.addr ? 1 : 0;
    deliver(e);
}

void RankSimulator::deliver(const TraceEvent &e)
{
    ++m_record.events;
    for (JobListener *l : m_listeners)
        l->event(setup(), e);
}

} // namespace rs::tracegen
