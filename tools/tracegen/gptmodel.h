#pragma once
// A GPT-2-style decoder in FP32 (token embedding tied to the LM head, pre-norm blocks of attention
// and a 4x MLP) expressed as the ATen ops the profiler records, with their backward formulas.
//
// Activation memory is the point: every forward op's output stays alive for backward and is freed
// when that op's backward runs, so allocated memory climbs through forward and falls through
// backward, and a micro-batch with longer sequences climbs higher (attention is quadratic in them).

#include "kernelcatalog.h"
#include "parameter.h"

#include <functional>
#include <vector>

namespace rs::tracegen {

class GptModel
{
public:
    /// Receives a parameter's gradient when the engine would run its AccumulateGrad node.
    using GradientSink = std::function<void(std::size_t param, Tensor grad)>;

    GptModel(RankSimulator &sim, const JobConfig &job, const KernelCatalog &kernels);

    /// In registration order (what model.parameters() yields).
    std::vector<Parameter> &parameters() { return m_params; }
    const std::vector<Parameter> &parameters() const { return m_params; }

    void setMicroBatch(const MicroBatchShape &mb);
    std::int64_t batch() const { return m_batch; }
    std::int64_t seqLen() const { return m_seqLen; }
    /// Embedding, the blocks, the final norm and the LM head (the module's forward).
    void forward();
    /// Cross-entropy over the logits (the training loop's loss).
    void lossForward();
    /// Runs the backward of every op recorded since the last backward, newest first, starting
    /// from `seed` (the loss gradient, consumed).
    void backward(Tensor seed, const GradientSink &accumulate);
    /// The last micro-batch's loss, kept alive for loss.item(); the caller frees it.
    Tensor takeLoss();

private:
    enum class OpKind : std::uint8_t {
        Embedding, LayerNorm, Linear, SplitQkv, ScoresBmm, Softmax, ContextBmm, Gelu, ResidualAdd,
        LmHead, LogSoftmax, NllLoss,
    };
    /// A forward op remembered for backward, with the activations it keeps alive.
    struct TapeEntry {
        OpKind kind;
        std::size_t param = 0;     // the weight (the bias follows it) of ops with parameters
        std::int64_t in = 0;       // input features (Linear)
        std::int64_t out = 0;      // output features (Linear)
        std::int64_t seq = 0;
        std::int64_t flow = 0;
        std::vector<Tensor> saved;
    };

    static std::vector<Parameter> makeParameters(const ModelShape &model);
    OpOptions autograd(TapeEntry &e);
    /// Runs `body` with `frame` on the simulator's Python stack.
    void inFrame(const PythonFrame &frame, const std::function<void()> &body);
    void module() { m_sim.cpu(14000); } // Python nn.Module call overhead between ops

    void embedding();
    void block(int layer);
    void layerNorm(std::size_t param);
    void linear(std::size_t param, std::int64_t in, std::int64_t out);
    void splitQkv();
    void attentionScores();
    void softmax();
    void attentionContext();
    void gelu();
    void residualAdd();
    void lmHead();

    void backwardOf(TapeEntry &e, const GradientSink &accumulate);
    void backwardLinear(TapeEntry &e, std::vector<std::pair<std::size_t, Tensor>> &grads);
    void backwardAttention(TapeEntry &e);
    void replaceGrad(Tensor grad);

    RankSimulator &m_sim;
    const JobConfig &m_job;
    const KernelCatalog &m_kernels;
    std::vector<Parameter> m_params;
    std::int64_t m_batch = 0;
    std::int64_t m_seqLen = 0;
    std::int64_t m_rows = 0;       // tokens: batch * seqLen
    std::vector<TapeEntry> m_tape;
    Tensor m_grad;                 // the gradient flowing back through the tape
    std::vector<Tensor> m_held;    // key/value gradients waiting for the qkv concatenation
    Tensor m_loss;
    std::int64_t m_sequence = 0;   // autograd sequence numbers
};

} // namespace rs::tracegen
