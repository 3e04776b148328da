#pragma once
// torch.optim.AdamW with foreach=True (the default on CUDA): zero_grad(set_to_none=True) frees every
// gradient, and step() runs a fixed sequence of _foreach_* ops, each launched as multi_tensor_apply
// kernels over 65536-element chunks. The _foreach_sqrt temporaries are the step's transient memory.

#include "kernelcatalog.h"
#include "parameter.h"

#include <vector>

namespace rs::tracegen {

class AdamWOptimizer
{
public:
    AdamWOptimizer(std::vector<Parameter> &params, const KernelCatalog &kernels) : m_params(params), m_kernels(kernels) {}

    void zeroGrad(RankSimulator &sim);
    void step(RankSimulator &sim);

private:
    /// One _foreach_ op over every parameter, packed into launches like multi_tensor_apply does.
    /// An out-of-place op allocates one output per parameter into `outputs`.
    void foreachOp(RankSimulator &sim, std::string_view name, std::string_view args, Foreach op,
                   std::vector<Tensor> *outputs = nullptr);

    std::vector<Parameter> &m_params;
    const KernelCatalog &m_kernels;
};

} // namespace rs::tracegen
