#pragma once
// One rank's process as the PyTorch profiler sees it: a Python thread and an autograd thread that
// open ops, launch CUDA work onto a compute stream and an NCCL stream, and allocate device memory
// through the caching allocator. The simulator keeps the clocks (one CPU timeline, one per stream),
// models launch latency and the CUDA launch queue, and turns every action into profiler events for
// the listeners. It knows nothing about models: a workload drives it.

#include "cachingallocatormodel.h"
#include "joblistener.h"
#include "prng.h"

#include <array>
#include <deque>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rs::tracegen {

enum class ThreadRole : std::uint8_t { Main, Autograd };
enum class StreamRole : std::uint8_t { Compute, Comm };

/// A kernel launch as CUPTI would report it.
struct KernelSpec {
    std::string_view name;
    std::array<int, 3> grid{1, 1, 1};
    std::array<int, 3> block{128, 1, 1};
    int registers = 32;
    int sharedMemory = 0;
    TimeNs duration = 1000;  ///< nominal GPU time; the simulator applies rank speed and jitter
};

/// Autograd bookkeeping an op may carry.
struct OpOptions {
    std::int64_t sequence = -1;   ///< "Sequence number": pairs a forward op with its backward
    std::int64_t fwdThread = -1;  ///< "Fwd thread id" on backward ops
    std::int64_t flowOut = 0;     ///< starts a `fwdbwd` flow with this id
    std::int64_t flowIn = 0;      ///< ends a `fwdbwd` flow with this id
    bool gpuCopy = false;         ///< also emit a gpu_user_annotation over the GPU work inside
};

/// A device allocation made through the simulator.
struct Tensor {
    CachingAllocatorModel::BlockId block = CachingAllocatorModel::kNoBlock;
    std::int64_t bytes = 0;
    bool valid() const { return block != CachingAllocatorModel::kNoBlock; }
};

/// What c10d records about one collective (record_param_comms args, copied onto the kernel).
struct CollectiveSpec {
    std::string_view collective = "allreduce";
    std::string_view kernelName;
    std::array<int, 3> grid{24, 1, 1};
    std::int64_t nelems = 0;
    std::int64_t seq = 0;
};

/// Thrown by RankSimulator::alloc when the caching allocator cannot serve a request; the details
/// are in the rank's record (RankRecord::oom). Whoever catches it calls RankSimulator::unwind().
class OutOfMemoryError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class RankSimulator
{
public:
    RankSimulator(RankSetup setup, std::vector<JobListener *> listeners, Prng rng);

    const RankSetup &setup() const { return m_record.setup; }
    RankRecord &record() { return m_record; }
    const CachingAllocatorModel &allocator() const { return m_allocator; }
    TimeNs now() const { return m_now; }
    Prng &rng() { return m_rng; }

    /// Keeps the CPU busy for about `nominalNs` (±20%).
    void cpu(TimeNs nominalNs);
    /// Moves execution to another host thread (the CPU timeline is shared: one runs at a time).
    void useThread(ThreadRole role);
    void beginOp(Category category, std::string_view name, std::string_view shapeArgs = {},
                 const OpOptions &options = {});
    void endOp();
    std::int64_t newFlowId() { return ++m_flowIds; }

    /// cudaLaunchKernel from the current op, and the kernel on `stream`.
    void launchKernel(const KernelSpec &kernel, StreamRole stream = StreamRole::Compute);
    /// cudaMemcpyAsync + the copy; `blocking` makes the CPU wait for it (pageable device-to-host).
    void memcpyAsync(std::string_view name, std::int64_t bytes, double bandwidth, bool blocking);
    /// cudaMemsetAsync + "Memset (Device)".
    void memsetAsync(std::int64_t bytes);
    /// cudaEventRecord on `producer` + cudaStreamWaitEvent on `waiter`: GPU-side ordering only.
    void streamWaitStream(StreamRole waiter, StreamRole producer);

    /// record_param_comms → launch of an NCCL kernel whose timing depends on the other ranks.
    void issueCollective(const CollectiveSpec &spec);
    /// The collectives launched but not settled, in issue order: when each could start on this
    /// rank (true time), when the CPU enqueued it, its sequence number and how many elements it reduces.
    struct PendingInfo {
        TimeNs ready;
        TimeNs launch;
        std::int64_t seq;
        std::int64_t nelems;
    };
    std::vector<PendingInfo> pendingCollectives() const;
    /// How one pending collective ended on this rank (true times).
    struct Settled {
        TimeNs start = 0;
        TimeNs end = 0;
        bool aborted = false;
    };
    /// Settles the pending collectives and emits their kernels.
    void completeCollectives(const std::vector<Settled> &settled);

    /// Allocates through the caching allocator and emits a `[memory]` event. When the allocator
    /// cannot serve it, emits the profiler's `[OutOfMemory]` instant, fills RankRecord::oom and
    /// throws OutOfMemoryError.
    Tensor alloc(std::int64_t bytes);
    void free(Tensor &tensor);
    /// Memory that existed before profiling started (weights, optimizer state): no event.
    Tensor allocSilently(std::int64_t bytes);

    /// The Python line the workload is executing; frames stay pushed when an exception passes
    /// (no RAII on purpose), so at an OOM the stack is the traceback. `frame` must be static.
    void pushFrame(const PythonFrame &frame) { m_python.push_back(&frame); }
    void popFrame() { m_python.pop_back(); }

    /// After an exception: every open op ends as the exception passes its RecordFunction guard,
    /// innermost first, and the Python stack is gone.
    void unwind();

    /// Tells listeners a step's events are complete.
    void endChunk();
    /// Stops the profiler: waits for the GPU (the profiler synchronises before it stops), then
    /// tells listeners the trace ended.
    void finish();

private:
    struct Frame {
        Category category;
        std::string name;
        TimeNs start;
        std::int64_t externalId;
        std::string args;
        ThreadRole thread;
        bool gpuCopy;
        TimeNs gpuFirst = -1;  // first/last compute-stream activity launched inside (true time)
        TimeNs gpuLast = -1;
    };
    struct Stream {
        std::int64_t id = 0;
        TimeNs free = 0;                // when its last queued work ends
        std::deque<TimeNs> queued;      // start times of work not yet started, for the launch queue
    };
    struct PendingCollective {
        CollectiveSpec spec;
        std::string kernelName;
        TimeNs ready = 0;
        TimeNs launch = 0;
        std::int64_t externalId = 0;
        std::int64_t correlation = 0;
        std::int64_t launchTid = 0;
    };

    std::int64_t tid() const;
    std::int64_t currentExternalId() const;
    Stream &stream(StreamRole role) { return m_streams[static_cast<int>(role)]; }
    /// Emits a runtime call from now on; returns (call start, call end) and sets the correlation.
    std::pair<TimeNs, TimeNs> runtimeCall(std::string_view name, int cbid, std::int64_t correlation,
                                          TimeNs minimumDuration);
    /// Queues `duration` of work on `role` launched by a call that returned at `launchedAt`;
    /// returns the start (true time). The call may be delayed first by a full launch queue.
    TimeNs enqueue(StreamRole role, TimeNs duration, TimeNs launchedAt);
    TimeNs waitForQueueSlot(StreamRole role);
    /// A kernel's nominal duration scaled by the rank's speed, with run-to-run noise.
    TimeNs scaledGpuTime(TimeNs nominal);
    void noteGpuActivity(TimeNs start, TimeNs end);
    void emitSpan(Category c, std::string_view name, std::int64_t pid, std::int64_t tid, TimeNs start,
                  TimeNs end, std::string_view args, const CollectiveRecord *collective = nullptr);
    void emitFlow(Phase phase, Category c, std::int64_t id, std::int64_t pid, std::int64_t tid, TimeNs t);
    void emitMemory(const MemoryRecord &m);
    [[noreturn]] void outOfMemory(std::int64_t bytes);
    void deliver(const TraceEvent &e);
    void appendKernelArgs(std::string &out, const KernelSpec &k, StreamRole role, std::int64_t externalId,
                          std::int64_t correlation) const;

    RankRecord m_record;
    std::vector<JobListener *> m_listeners;
    Prng m_rng;
    CachingAllocatorModel m_allocator;
    TimeNs m_now;
    ThreadRole m_thread = ThreadRole::Main;
    std::vector<Frame> m_stack;         // open ops of both threads, innermost last
    std::array<Stream, 2> m_streams;
    std::vector<PendingCollective> m_pending;
    std::vector<const PythonFrame *> m_python;
    std::int64_t m_externalIds = 0;
    std::int64_t m_correlations;
    std::int64_t m_evIdx = 0;
    std::int64_t m_flowIds = 0;
    std::string m_args;                 // scratch for rendering args
};

} // namespace rs::tracegen
