#include "transformerworkload.h"

#include "jsonappender.h"
#include "pythonsource.h"

#include <string>

namespace rs::tracegen {

namespace {
constexpr std::int64_t kFloat = 4;
constexpr double kPageableCopyBandwidth = 9e9;
} // namespace

TransformerWorkload::TransformerWorkload(RankSimulator &sim, const JobConfig &job)
    : m_sim(sim),
      m_kernels(job.gpu),
      m_model(sim, job, m_kernels),
      m_reducer(m_model.parameters(), job.ddpBucketBytes, job.priorCollectives),
      m_optimizer(m_model.parameters(), m_kernels)
{
}

std::int64_t TransformerWorkload::parameterCount() const
{
    std::int64_t n = 0;
    for (const Parameter &p : m_model.parameters())
        n += p.numel;
    return n;
}

void TransformerWorkload::setUp()
{
    std::vector<Parameter> &params = m_model.parameters();
    // The job resumed from a checkpoint just before the profiled steps: weights and AdamW moments
    // are on the device, gradients do not exist yet (they appear in the first backward).
    for (Parameter &p : params)
        p.weight = m_sim.allocSilently(p.bytes());
    for (Parameter &p : params) {
        p.expAvg = m_sim.allocSilently(p.bytes());
        p.expAvgSq = m_sim.allocSilently(p.bytes());
    }
}

void TransformerWorkload::runUntilAllreduce(std::int64_t stepNumber, const std::vector<MicroBatchShape> &microBatches)
{
    m_sim.useThread(ThreadRole::Main);
    OpOptions step;
    step.gpuCopy = true;
    m_sim.beginOp(Category::UserAnnotation, "ProfilerStep#" + std::to_string(stepNumber), {}, step);
    m_sim.record().stepStarts.push_back(m_sim.now());
    m_sim.record().microBatches.push_back(static_cast<int>(microBatches.size()));
    m_sim.record().stepPeakAllocated.push_back(m_sim.allocator().allocated());
    m_optimizer.zeroGrad(m_sim);
    m_sim.pushFrame(PythonSource::kModuleLevel);
    m_sim.pushFrame(PythonSource::kMainLoop);
    for (std::size_t i = 0; i < microBatches.size(); ++i) {
        try {
            microBatch(microBatches[i], i + 1 == microBatches.size());
        } catch (const OutOfMemoryError &) {
            // Only the training loop knows where in the step the allocation failed.
            OomRecord &oom = *m_sim.record().oom;
            oom.step = stepNumber;
            oom.microBatch = static_cast<int>(i) + 1;
            oom.microBatches = static_cast<int>(microBatches.size());
            oom.shape = microBatches[i];
            throw;
        }
    }
    m_sim.popFrame();
    m_sim.popFrame();
}

void TransformerWorkload::finishStep()
{
    m_reducer.finalize(m_sim);
    m_sim.useThread(ThreadRole::Main);
    m_sim.cpu(30000);
    m_optimizer.step(m_sim);
    // Logging the loss forces the host to wait for the whole step: this is where a rank that
    // waited in its allreduce shows the wait on the CPU side.
    m_sim.cpu(20000);
    m_sim.beginOp(Category::CpuOp, "aten::item", recordShapes({{}}, {"float"}));
    m_sim.beginOp(Category::CpuOp, "aten::_local_scalar_dense", recordShapes({{}}, {"float"}));
    m_sim.memcpyAsync("Memcpy DtoH (Device -> Pageable)", kFloat, kPageableCopyBandwidth, true);
    m_sim.endOp();
    m_sim.endOp();
    Tensor loss = m_model.takeLoss();
    m_sim.free(loss);
    m_sim.cpu(40000);
    m_sim.endOp(); // ProfilerStep#N
    m_sim.record().stepEnds.push_back(m_sim.now());
    m_sim.endChunk();
}

void TransformerWorkload::microBatch(const MicroBatchShape &mb, bool synchronise)
{
    m_model.setMicroBatch(mb);
    m_sim.beginOp(Category::UserAnnotation, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    m_sim.cpu(m_sim.rng().range(250000, 900000));
    m_sim.endOp();
    copyInputs();
    m_sim.cpu(30000);
    m_sim.pushFrame(PythonSource::kForwardCall);
    m_sim.pushFrame(PythonSource::kDdpForward);
    m_sim.pushFrame(PythonSource::kDdpRunForward);
    m_sim.beginOp(Category::UserAnnotation, "DistributedDataParallel.forward");
    m_sim.cpu(40000); // DDP's pre-forward bookkeeping
    m_model.forward();
    m_sim.endOp();
    m_sim.popFrame();
    m_sim.popFrame();
    m_sim.popFrame();
    m_sim.pushFrame(PythonSource::kLossCall);
    m_model.lossForward();
    m_sim.popFrame();
    m_sim.pushFrame(PythonSource::kBackwardCall);
    m_sim.pushFrame(PythonSource::kTensorBackward);
    m_sim.pushFrame(PythonSource::kAutogradBackward);
    m_sim.pushFrame(PythonSource::kEngineRun);
    backward(synchronise);
    for (int i = 0; i < 4; ++i)
        m_sim.popFrame();
}

void TransformerWorkload::copyInputs()
{
    const std::int64_t batch = m_model.batch(), seqLen = m_model.seqLen(), tokens = batch * seqLen;
    for (Tensor *t : {&m_inputIds, &m_labels}) {
        m_sim.beginOp(Category::CpuOp, "aten::to",
                      recordShapes({{batch, seqLen}, {}, {}, {}, {}, {}},
                             {"long int", "Device", "Scalar", "Scalar", "Scalar", "Scalar"}));
        m_sim.beginOp(Category::CpuOp, "aten::_to_copy",
                      recordShapes({{batch, seqLen}, {}, {}, {}, {}, {}, {}},
                             {"long int", "Scalar", "", "Device", "", "Scalar", ""}));
        m_sim.beginOp(Category::CpuOp, "aten::empty_strided",
                      recordShapes({{}, {}, {}, {}, {}, {}}, {"ScalarList", "ScalarList", "Scalar", "", "Device", ""}));
        *t = m_sim.alloc(tokens * 8);
        m_sim.endOp();
        m_sim.beginOp(Category::CpuOp, "aten::copy_",
                      recordShapes({{batch, seqLen}, {batch, seqLen}, {}}, {"long int", "long int", "Scalar"}));
        m_sim.memcpyAsync("Memcpy HtoD (Pageable -> Device)", tokens * 8, kPageableCopyBandwidth, false);
        m_sim.endOp();
        m_sim.endOp();
        m_sim.endOp();
    }
}

void TransformerWorkload::backward(bool synchronise)
{
    m_reducer.prepare(synchronise);
    // loss.backward() seeds the gradient on the Python thread, then the engine's device thread runs.
    m_sim.cpu(20000);
    m_sim.beginOp(Category::CpuOp, "aten::ones_like", recordShapes({{}, {}, {}, {}, {}, {}}, {"float", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"}));
    const Tensor seed = m_sim.alloc(kFloat);
    m_sim.launchKernel(m_kernels.pointwise(Pointwise::Fill, 1));
    m_sim.endOp();
    m_sim.useThread(ThreadRole::Autograd);
    m_model.backward(seed, [this](std::size_t param, Tensor grad) { accumulateGrad(param, grad); });
    m_sim.free(m_inputIds);
    m_sim.free(m_labels);
    // A synchronising backward ends in DDP's finalize, on this thread, once the allreduces are known.
    if (!synchronise)
        m_sim.useThread(ThreadRole::Main);
}

void TransformerWorkload::accumulateGrad(std::size_t param, Tensor grad)
{
    Parameter &p = m_model.parameters()[param];
    m_sim.cpu(4000);
    m_sim.beginOp(Category::CpuOp, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
    m_sim.beginOp(Category::CpuOp, "torch::autograd::AccumulateGrad");
    if (!p.grad.valid()) {
        // First contribution after zero_grad(set_to_none=True): the tensor itself becomes .grad.
        m_sim.beginOp(Category::CpuOp, "aten::detach", recordShapes({{}}, {"float"}));
        m_sim.cpu(2000);
        m_sim.endOp();
        p.grad = grad;
    } else {
        std::string dims = "[";
        for (std::size_t i = 0; i < p.dims.size(); ++i)
            dims += (i ? ", " : "") + std::to_string(p.dims[i]);
        dims += "]";
        m_sim.beginOp(Category::CpuOp, "aten::add_",
                      "\"Input Dims\": [" + dims + ", " + dims + ", []], \"Input type\": [\"float\", \"float\", \"Scalar\"]");
        m_sim.launchKernel(m_kernels.pointwise(Pointwise::Add, p.numel));
        m_sim.endOp();
        m_sim.free(grad);
    }
    m_sim.endOp();
    m_sim.endOp();
    m_reducer.gradReady(m_sim, param);
}

} // namespace rs::tracegen
