#pragma once
// What a synthetic training job looks like: the GPUs, the model, and per rank the micro-batches of
// every profiled step. A scenario (the demo incident, the benchmark) is nothing but a JobConfig;
// the simulation turns it into timings, memory and collectives.

#include <cstdint>
#include <string>
#include <vector>

namespace rs::tracegen {

using TimeNs = std::int64_t;
using RankId = std::int32_t;

/// The accelerator every rank runs on. Rates are what a well-fed A100 sustains, not datasheet peaks.
struct GpuSpec {
    std::string name = "NVIDIA A100-SXM4-80GB";
    /// totalGlobalMem = cudaMemGetInfo's total: 81050 MiB, the "79.15 GiB" of OOM messages. NVML
    /// (nvidia-smi's memory.total) counts 81920 MiB; the difference is the driver's reservation.
    std::int64_t totalMemory = 84987740160;
    std::int64_t nvmlTotalMemory = 85899345920;
    int computeMajor = 8;
    int computeMinor = 0;
    int numSms = 108;
    double fp32Flops = 15.5e12;                 ///< sustained FP32 SGEMM rate, FLOP/s
    double memoryBandwidth = 1.6e12;            ///< sustained HBM bandwidth, bytes/s
    double busBandwidth = 180e9;                ///< NCCL ring bus bandwidth over NVLink, bytes/s
    std::int64_t contextMemory = 517996544;     ///< CUDA context, cuBLAS/cuDNN handles (494 MiB)
    std::int64_t ncclMemory = 333447168;        ///< NCCL channel buffers and proxy state (318 MiB)
    double idlePowerW = 61.5;
    double maxPowerW = 400.0;

    /// What the process holds outside the caching allocator: the allocator can reserve the rest.
    std::int64_t nonPytorchMemory() const { return contextMemory + ncclMemory; }
};

/// A GPT-style decoder: `layers` blocks of attention + MLP, FP32 weights, AdamW.
struct ModelShape {
    int layers = 12;
    int hidden = 3072;
    int heads = 24;
    int vocab = 32000;
};

/// One micro-batch: `batch` sequences padded to `seqLen` tokens.
struct MicroBatchShape {
    int batch = 6;
    int seqLen = 1024;
};

/// Everything that differs between ranks.
struct RankPlan {
    RankId rank = 0;
    std::int64_t pid = 0;               ///< OS process id (the CPU pid in the trace)
    int device = 0;                     ///< local CUDA device index (the GPU pid in the trace)
    TimeNs clockSkewNs = 0;             ///< this host's clock minus the true time
    double clockDriftPpm = 0.0;         ///< how fast this host's clock runs away during the trace
    double computeSpeed = 1.0;          ///< multiplies GPU kernel durations (a slow GPU has > 1)
    std::int64_t pciBus = 0;            ///< the GPU's PCI bus number (nvidia-smi 00000000:BB:00.0, NCCL busId BB000)
    std::vector<std::vector<MicroBatchShape>> steps; ///< per profiled step, its micro-batches
};

struct JobConfig {
    GpuSpec gpu;
    int visibleDevices = 4;            ///< GPUs listed in deviceProperties (one node)
    ModelShape model;
    int worldSize = 4;                 ///< ranks in the job; ranks not in `ranks` are simulated as peers only
    std::vector<RankPlan> ranks;       ///< the ranks whose traces are written
    std::int64_t firstStep = 10;       ///< N of the first ProfilerStep#N (earlier steps were warm-up)
    std::int64_t ddpBucketBytes = 500LL << 20; ///< DDP bucket_cap_mb: gradients per allreduce
    /// Collectives the default process group ran before the first profiled step (DDP's start-up
    /// checks and broadcasts, earlier steps): the profiled ones continue its sequence numbers.
    std::int64_t priorCollectives = 0;
    std::uint64_t seed = 0x5eed;       ///< every random draw derives from it
    TimeNs startNs = 0;                ///< true wall-clock time (ns since the epoch) the profiler starts
    TimeNs baseTimeNs = 0;             ///< Kineto baseTimeNanoseconds, shared by all ranks (a quarter start)
    std::string ncclVersion = "2.21.5";
    std::string cudaVersion = "12.4";
    std::int64_t ncclBuffSize = 0;     ///< NCCL_BUFFSIZE set in the environment (0: unset, NCCL's 4 MiB)
    std::string processName = "python";
    std::string hostName = "gpu-node-07";
    /// init_process_group(timeout=...): how long ProcessGroupNCCL's watchdog lets a collective run.
    TimeNs collectiveTimeoutNs = 600LL * 1000000000;
};

} // namespace rs::tracegen
