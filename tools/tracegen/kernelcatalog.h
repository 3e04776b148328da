#pragma once
// The CUDA kernels an FP32 transformer step launches on an A100, with the names, launch shapes and
// rough durations CUPTI would report. Durations come from a roofline: FLOPs over the sustained
// SGEMM rate for matrix products, bytes over the sustained HBM bandwidth for everything else.

#include "jobconfig.h"
#include "ranksimulator.h"

#include <cstdint>
#include <string_view>

namespace rs::tracegen {

enum class GemmLayout : std::uint8_t { NN, NT, TN };

enum class Pointwise : std::uint8_t { Add, Gelu, GeluBackward, Fill };

/// The multi_tensor_apply functors torch.optim's foreach AdamW uses.
enum class Foreach : std::uint8_t { MulScalar, Lerp, AddcmulScalar, Sqrt, DivScalar, AddScalar, AddcdivScalar };

class KernelCatalog
{
public:
    explicit KernelCatalog(const GpuSpec &gpu) : m_gpu(gpu) {}

    /// C[m, n] = A[m, k] · B[k, n], `batch` times.
    KernelSpec gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, GemmLayout layout) const;
    KernelSpec pointwise(Pointwise op, std::int64_t numel) const;
    KernelSpec layerNormForward(std::int64_t rows, std::int64_t cols) const;
    KernelSpec layerNormBackwardInput(std::int64_t rows, std::int64_t cols) const;
    KernelSpec layerNormBackwardGammaBeta(std::int64_t rows, std::int64_t cols) const;
    /// Row-wise softmax; `log` selects log_softmax. Rows up to 1024 wide use the warp kernels.
    KernelSpec softmaxForward(std::int64_t rows, std::int64_t cols, bool log) const;
    KernelSpec softmaxBackward(std::int64_t rows, std::int64_t cols, bool log) const;
    KernelSpec nllLossForward(std::int64_t rows) const;
    KernelSpec nllLossBackward(std::int64_t rows) const;
    KernelSpec indexSelect(std::int64_t rows, std::int64_t cols) const;
    KernelSpec embeddingBackward(std::int64_t rows, std::int64_t cols) const;
    /// Column sum of a [rows, cols] matrix (a bias gradient).
    KernelSpec reduceSum(std::int64_t rows, std::int64_t cols) const;
    /// torch.cat of contiguous float tensors totalling `numel` elements.
    KernelSpec catCopy(std::int64_t numel) const;
    /// One multi_tensor_apply launch covering `chunks` chunks of 65536 elements.
    KernelSpec foreachLaunch(Foreach op, std::int64_t chunks) const;
    /// How many tensor lists a foreach functor reads and writes (its TensorListMetadata depth).
    static int foreachDepth(Foreach op);
    /// The NCCL ring allreduce kernel and the time the transfer itself takes once all ranks arrived.
    static std::string_view allReduceKernelName();
    TimeNs allReduceTime(std::int64_t bytes, int worldSize) const;

private:
    TimeNs computeTime(double flops) const;
    TimeNs memoryTime(double bytes) const;
    static int gridFor(std::int64_t numel, int perBlock);

    GpuSpec m_gpu;
};

} // namespace rs::tracegen
