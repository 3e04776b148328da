#include "adamwoptimizer.h"

#include <array>

namespace rs::tracegen {

namespace {
constexpr std::int64_t kChunkElements = 65536;
constexpr std::int64_t kMaxBlocksPerLaunch = 320;
// depth_to_max_tensors in ATen's MultiTensorApply.cuh.
constexpr std::array<int, 5> kMaxTensors = {110, 64, 48, 36, 30};

constexpr std::string_view kListScalar = "\"Input Dims\": [[], []], \"Input type\": [\"TensorList\", \"Scalar\"]";
constexpr std::string_view kTwoLists = "\"Input Dims\": [[], [], []], \"Input type\": [\"TensorList\", \"TensorList\", \"Scalar\"]";
constexpr std::string_view kThreeLists =
    "\"Input Dims\": [[], [], [], []], \"Input type\": [\"TensorList\", \"TensorList\", \"TensorList\", \"Scalar\"]";
constexpr std::string_view kOneList = "\"Input Dims\": [[]], \"Input type\": [\"TensorList\"]";
} // namespace

void AdamWOptimizer::zeroGrad(RankSimulator &sim)
{
    sim.beginOp(Category::UserAnnotation, "Optimizer.zero_grad#AdamW.zero_grad");
    for (Parameter &p : m_params) {
        sim.cpu(1500); // Python: p.grad = None
        sim.free(p.grad);
    }
    sim.endOp();
}

void AdamWOptimizer::foreachOp(RankSimulator &sim, std::string_view name, std::string_view args, Foreach op,
                               std::vector<Tensor> *outputs)
{
    sim.beginOp(Category::CpuOp, name, args);
    sim.cpu(25000); // argument checks and grouping tensors by device and dtype
    if (outputs) {
        outputs->reserve(m_params.size());
        for (const Parameter &p : m_params)
            outputs->push_back(sim.alloc(p.bytes()));
    }
    const int maxTensors = kMaxTensors[static_cast<std::size_t>(KernelCatalog::foreachDepth(op) - 1)];
    std::int64_t blocks = 0;
    int tensors = 0;
    for (const Parameter &p : m_params) {
        const std::int64_t chunks = (p.numel + kChunkElements - 1) / kChunkElements;
        ++tensors;
        for (std::int64_t c = 0; c < chunks; ++c) {
            if (++blocks == kMaxBlocksPerLaunch) {
                sim.launchKernel(m_kernels.foreachLaunch(op, blocks));
                blocks = 0;
                // A tensor cut mid-way carries over into the next launch.
                tensors = c + 1 < chunks ? 1 : 0;
            }
        }
        if (tensors == maxTensors) {
            if (blocks)
                sim.launchKernel(m_kernels.foreachLaunch(op, blocks));
            blocks = 0;
            tensors = 0;
        }
    }
    if (blocks)
        sim.launchKernel(m_kernels.foreachLaunch(op, blocks));
    sim.endOp();
}

void AdamWOptimizer::step(RankSimulator &sim)
{
    OpOptions gpu;
    gpu.gpuCopy = true;
    sim.beginOp(Category::UserAnnotation, "Optimizer.step#AdamW.step", {}, gpu);
    sim.cpu(60000); // _init_group: collecting params, grads and state
    // _multi_tensor_adamw, in its order of operations.
    foreachOp(sim, "aten::_foreach_mul_", kListScalar, Foreach::MulScalar);        // weight decay
    foreachOp(sim, "aten::_foreach_lerp_", kTwoLists, Foreach::Lerp);              // exp_avg
    foreachOp(sim, "aten::_foreach_mul_", kListScalar, Foreach::MulScalar);        // exp_avg_sq *= beta2
    foreachOp(sim, "aten::_foreach_addcmul_", kThreeLists, Foreach::AddcmulScalar); // += (1 - beta2) g²

    std::vector<Tensor> denom; // out-of-place: one temporary per parameter
    foreachOp(sim, "aten::_foreach_sqrt", kOneList, Foreach::Sqrt, &denom);
    foreachOp(sim, "aten::_foreach_div_", kListScalar, Foreach::DivScalar);
    foreachOp(sim, "aten::_foreach_add_", kListScalar, Foreach::AddScalar);
    foreachOp(sim, "aten::_foreach_addcdiv_", kThreeLists, Foreach::AddcdivScalar);
    for (Tensor &t : denom)
        sim.free(t);
    sim.endOp();
}

} // namespace rs::tracegen
