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
    std::int64_t totalMemory = 85899345920;     ///< totalGlobalMem, bytes
    int computeMajor = 8;
    int computeMinor = 0;
    int numSms = 108;
    double fp32Flops = 15.5e12;                 ///< sustained FP32 SGEMM rate, FLOP/s
    double memoryBandwidth = 1.6e12;            ///< sustained HBM bandwidth, bytes/s
    double busBandwidth = 180e9;                ///< NCCL ring bus bandwidth over NVLink, bytes/s
    std::int64_t nonPytorchMemory = 1288490189; ///< CUDA context + NCCL buffers: what the allocator cannot reserve
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
    std::uint64_t seed = 0x5eed;       ///< every random draw derives from it
    TimeNs startNs = 0;                ///< true wall-clock time (ns since the epoch) the profiler starts
    TimeNs baseTimeNs = 0;             ///< Kineto baseTimeNanoseconds, shared by all ranks (a quarter start)
    std::string ncclVersion = "2.21.5";
    std::string processName = "python";
};

} // namespace rs::tracegen
