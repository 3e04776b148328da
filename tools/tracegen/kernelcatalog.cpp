#include "kernelcatalog.h"

#include <algorithm>
#include <cmath>

namespace rs::tracegen {

namespace {
// Every kernel pays a fixed ramp-up cost regardless of size.
constexpr TimeNs kKernelFloorNs = 2500;
constexpr std::int64_t kForeachChunk = 65536;

constexpr std::string_view kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
constexpr std::string_view kGelu =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
    "at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
    "at::detail::Array<char*, 2>)";
constexpr std::string_view kGeluBackward =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl("
    "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, at::native::GeluBackwardCUDAKernelImpl("
    "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(float, float)#1}, at::detail::Array<char*, 3>)";
constexpr std::string_view kFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
constexpr std::string_view kLayerNorm =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, "
    "float const*, float const*, float*, float*, float*)";
constexpr std::string_view kLayerNormGradInput =
    "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<float, float>(float const*, "
    "float const*, float const*, float const*, float const*, float*, int)";
constexpr std::string_view kGammaBeta =
    "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, "
    "float const*, float const*, float const*, float*, float*)";
constexpr std::string_view kSoftmaxWarpFwd =
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*, "
    "int, int, int, bool const*, int, bool)";
constexpr std::string_view kSoftmaxWarpBwd =
    "void (anonymous namespace)::softmax_warp_backward<float, float, float, 10, false, false>(float*, float const*, "
    "float const*, int, int, int, bool const*)";
constexpr std::string_view kSoftmaxFwd =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
constexpr std::string_view kSoftmaxBwd =
    "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxBackwardEpilogue>(float*, float const*, float const*, long)";
constexpr std::string_view kLogSoftmaxFwd =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)";
constexpr std::string_view kLogSoftmaxBwd =
    "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
    "at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)";
constexpr std::string_view kNllFwd =
    "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, "
    "float*, float const*, long const*, float const*, bool, long, long, long, long)";
constexpr std::string_view kNllBwd =
    "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, "
    "float const*, long const*, float const*, float const*, bool, int, int, long, long)";
constexpr std::string_view kIndexSelect =
    "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>("
    "at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float const, unsigned int>, "
    "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)";
constexpr std::string_view kEmbeddingBwd =
    "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, long>(long const*, "
    "float const*, float*, int, long, int, int)";
constexpr std::string_view kReduceSum =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4>)";

constexpr std::string_view kCat =
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::(anonymous "
    "namespace)::OpaqueType<4u>, unsigned int, 3, 128, 1>(at::native::(anonymous namespace)::OpaqueType<4u>*, "
    "at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<4u>, "
    "unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)";

#define RS_MTA(depth, functor, op)                                                                             \
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "                 \
    "namespace)::TensorListMetadata<" depth ">, at::native::(anonymous namespace)::" functor ", " op ", float>(" \
    "at::native::(anonymous namespace)::TensorListMetadata<" depth ">, at::native::(anonymous namespace)::"      \
    functor ", " op ", float)"
constexpr std::string_view kForeachMul = RS_MTA("1", "BinaryOpScalarFunctor<float, 1, 1, 0>", "std::multiplies<float>");
constexpr std::string_view kForeachLerp = RS_MTA("2", "TernaryOpScalarFunctor<float, 2, 2, 0>", "at::native::LerpFunctor<float>");
constexpr std::string_view kForeachAddcmul = RS_MTA("3", "PointwiseOpScalarFunctor<float, 3, 3, 0>", "std::multiplies<float>");
constexpr std::string_view kForeachDiv = RS_MTA("1", "BinaryOpScalarFunctor<float, 1, 1, 0>", "std::divides<float>");
constexpr std::string_view kForeachAdd = RS_MTA("1", "BinaryOpScalarFunctor<float, 1, 1, 0>", "std::plus<float>");
constexpr std::string_view kForeachAddcdiv = RS_MTA("3", "PointwiseOpScalarFunctor<float, 3, 3, 0>", "std::divides<float>");
#undef RS_MTA
constexpr std::string_view kForeachSqrt =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, "
    "at::native::(anonymous namespace)::Sqrt<float> >(at::native::(anonymous namespace)::TensorListMetadata<2>, "
    "at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, at::native::(anonymous "
    "namespace)::Sqrt<float>)";

constexpr std::string_view kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
} // namespace

TimeNs KernelCatalog::computeTime(double flops) const
{
    return kKernelFloorNs + static_cast<TimeNs>(flops / m_gpu.fp32Flops * 1e9);
}

TimeNs KernelCatalog::memoryTime(double bytes) const
{
    return kKernelFloorNs + static_cast<TimeNs>(bytes / m_gpu.memoryBandwidth * 1e9);
}

int KernelCatalog::gridFor(std::int64_t numel, int perBlock)
{
    return static_cast<int>(std::clamp<std::int64_t>(ceilDiv(numel, perBlock), 1, 2147483647));
}

KernelSpec KernelCatalog::gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                               GemmLayout layout) const
{
    KernelSpec s;
    switch (layout) {
    case GemmLayout::NN: s.name = "ampere_sgemm_128x128_nn"; break;
    case GemmLayout::NT: s.name = "ampere_sgemm_128x64_nt"; break;
    case GemmLayout::TN: s.name = "ampere_sgemm_128x64_tn"; break;
    }
    const int tileN = layout == GemmLayout::NN ? 128 : 64;
    s.grid = {static_cast<int>(ceilDiv(n, tileN)), static_cast<int>(ceilDiv(m, 128)), static_cast<int>(batch)};
    s.block = {layout == GemmLayout::NN ? 256 : 128, 1, 1};
    s.registers = layout == GemmLayout::NN ? 122 : 126;
    s.sharedMemory = layout == GemmLayout::NN ? 32768 : 24576;
    s.duration = computeTime(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
                             static_cast<double>(batch));
    return s;
}

KernelSpec KernelCatalog::pointwise(Pointwise op, std::int64_t numel) const
{
    KernelSpec s;
    int tensors = 3;
    switch (op) {
    case Pointwise::Add: s.name = kAdd; break;
    case Pointwise::Gelu: s.name = kGelu; tensors = 2; break;
    case Pointwise::GeluBackward: s.name = kGeluBackward; break;
    case Pointwise::Fill: s.name = kFill; tensors = 1; break;
    }
    s.grid = {gridFor(numel, 512), 1, 1};
    s.block = {128, 1, 1};
    s.registers = op == Pointwise::Fill ? 16 : 28;
    s.duration = memoryTime(4.0 * static_cast<double>(numel) * tensors);
    return s;
}

KernelSpec KernelCatalog::layerNormForward(std::int64_t rows, std::int64_t cols) const
{
    return {kLayerNorm, {gridFor(rows, 1), 1, 1}, {32, 4, 1}, 34, 0,
            memoryTime(8.0 * static_cast<double>(rows * cols))};
}

KernelSpec KernelCatalog::layerNormBackwardInput(std::int64_t rows, std::int64_t cols) const
{
    return {kLayerNormGradInput, {gridFor(rows, 1), 1, 1}, {128, 1, 1}, 40, 0,
            memoryTime(12.0 * static_cast<double>(rows * cols))};
}

KernelSpec KernelCatalog::layerNormBackwardGammaBeta(std::int64_t rows, std::int64_t cols) const
{
    return {kGammaBeta, {gridFor(cols, 32), 1, 1}, {32, 32, 1}, 56, 8192,
            memoryTime(8.0 * static_cast<double>(rows * cols))};
}

KernelSpec KernelCatalog::softmaxForward(std::int64_t rows, std::int64_t cols, bool log) const
{
    KernelSpec s;
    if (!log && cols <= 1024) {
        s = {kSoftmaxWarpFwd, {gridFor(rows, 4), 1, 1}, {32, 4, 1}, 64, 0, 0};
    } else {
        s = {log ? kLogSoftmaxFwd : kSoftmaxFwd, {gridFor(rows, 1), 1, 1}, {1024, 1, 1}, 37, 0, 0};
        s.sharedMemory = 0;
    }
    s.duration = memoryTime(8.0 * static_cast<double>(rows * cols));
    return s;
}

KernelSpec KernelCatalog::softmaxBackward(std::int64_t rows, std::int64_t cols, bool log) const
{
    KernelSpec s;
    if (!log && cols <= 1024)
        s = {kSoftmaxWarpBwd, {gridFor(rows, 4), 1, 1}, {32, 4, 1}, 64, 0, 0};
    else
        s = {log ? kLogSoftmaxBwd : kSoftmaxBwd, {gridFor(rows, 1), 1, 1}, {1024, 1, 1}, 40, 0, 0};
    s.duration = memoryTime(12.0 * static_cast<double>(rows * cols));
    return s;
}

KernelSpec KernelCatalog::nllLossForward(std::int64_t rows) const
{
    return {kNllFwd, {1, 1, 1}, {32, 1, 1}, 30, 2048, memoryTime(12.0 * static_cast<double>(rows)) + 8000};
}

KernelSpec KernelCatalog::nllLossBackward(std::int64_t rows) const
{
    return {kNllBwd, {1, 1, 1}, {32, 1, 1}, 24, 0, memoryTime(12.0 * static_cast<double>(rows)) + 4000};
}

KernelSpec KernelCatalog::indexSelect(std::int64_t rows, std::int64_t cols) const
{
    return {kIndexSelect, {gridFor(rows * cols, 128 * 4), 1, 1}, {128, 1, 1}, 32, 0,
            memoryTime(8.0 * static_cast<double>(rows * cols))};
}

KernelSpec KernelCatalog::embeddingBackward(std::int64_t rows, std::int64_t cols) const
{
    return {kEmbeddingBwd, {gridFor(cols, 32), 1, 1}, {32, 32, 1}, 40, 8448,
            memoryTime(12.0 * static_cast<double>(rows * cols))};
}

KernelSpec KernelCatalog::reduceSum(std::int64_t rows, std::int64_t cols) const
{
    return {kReduceSum, {gridFor(cols, 32), 4, 1}, {32, 16, 1}, 32, 16,
            memoryTime(4.0 * static_cast<double>(rows * cols))};
}

KernelSpec KernelCatalog::catCopy(std::int64_t numel) const
{
    return {kCat, {gridFor(numel, 128 * 16), 3, 1}, {128, 1, 1}, 30, 0, memoryTime(8.0 * static_cast<double>(numel))};
}

int KernelCatalog::foreachDepth(Foreach op)
{
    switch (op) {
    case Foreach::MulScalar:
    case Foreach::DivScalar:
    case Foreach::AddScalar: return 1;
    case Foreach::Lerp:
    case Foreach::Sqrt: return 2;
    case Foreach::AddcmulScalar:
    case Foreach::AddcdivScalar: return 3;
    }
    return 1;
}

KernelSpec KernelCatalog::foreachLaunch(Foreach op, std::int64_t chunks) const
{
    KernelSpec s;
    switch (op) {
    case Foreach::MulScalar: s.name = kForeachMul; break;
    case Foreach::Lerp: s.name = kForeachLerp; break;
    case Foreach::AddcmulScalar: s.name = kForeachAddcmul; break;
    case Foreach::Sqrt: s.name = kForeachSqrt; break;
    case Foreach::DivScalar: s.name = kForeachDiv; break;
    case Foreach::AddScalar: s.name = kForeachAdd; break;
    case Foreach::AddcdivScalar: s.name = kForeachAddcdiv; break;
    }
    s.grid = {static_cast<int>(chunks), 1, 1};
    s.block = {512, 1, 1};
    s.registers = 32 + 8 * foreachDepth(op);
    // Reads every list once and writes the last one.
    const double bytes = 4.0 * static_cast<double>(chunks * kForeachChunk) * (foreachDepth(op) + 1);
    s.duration = memoryTime(bytes);
    return s;
}

std::string_view KernelCatalog::allReduceKernelName()
{
    return kAllReduce;
}

TimeNs KernelCatalog::allReduceTime(std::int64_t bytes, int worldSize) const
{
    // A ring allreduce moves 2 (n - 1) / n of the buffer through every link.
    const double factor = 2.0 * (worldSize - 1) / std::max(1, worldSize);
    return 18000 + static_cast<TimeNs>(factor * static_cast<double>(bytes) / m_gpu.busBandwidth * 1e9);
}

} // namespace rs::tracegen
