#pragma once
// One rank's training loop under DDP with gradient accumulation, as the PyTorch profiler records
// it: per step zero_grad, then per micro-batch the data loader, the input copies,
// DistributedDataParallel.forward, the loss and the backward on the autograd thread (DDP launches
// the allreduces during the last one, the others run under no_sync()); then AdamW and loss.item().

#include "adamwoptimizer.h"
#include "ddpreducer.h"
#include "gptmodel.h"
#include "kernelcatalog.h"

#include <vector>

namespace rs::tracegen {

class TransformerWorkload
{
public:
    TransformerWorkload(RankSimulator &sim, const JobConfig &job);

    /// Allocates what existed before the profiler started: weights, last step's gradients and the
    /// AdamW moments (no memory events, like a real trace that starts mid-training).
    void setUp();
    /// Phase 1 of a step: ProfilerStep begins, zero_grad, every micro-batch's forward and backward.
    /// Returns once DDP has launched the step's allreduces (their timing depends on other ranks).
    void runUntilAllreduce(std::int64_t stepNumber, const std::vector<MicroBatchShape> &microBatches);
    /// Phase 2, once the allreduces are settled: DDP finalize, AdamW, loss.item(), step end.
    void finishStep();

    std::size_t bucketCount() const { return m_reducer.bucketCount(); }
    std::int64_t parameterCount() const;

private:
    void microBatch(const MicroBatchShape &mb, bool synchronise);
    void copyInputs();
    void backward(bool synchronise);
    /// The engine's AccumulateGrad node for `param`, then DDP's hook.
    void accumulateGrad(std::size_t param, Tensor grad);

    RankSimulator &m_sim;
    KernelCatalog m_kernels;
    GptModel m_model;
    DdpReducer m_reducer;
    AdamWOptimizer m_optimizer;
    Tensor m_inputIds;
    Tensor m_labels;
};

} // namespace rs::tracegen
