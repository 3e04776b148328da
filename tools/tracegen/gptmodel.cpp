#include "gptmodel.h"

#include "jsonappender.h"
#include "pythonsource.h"

namespace rs::tracegen {

namespace {
constexpr std::int64_t kFloat = 4;
constexpr std::int64_t kParamsPerBlock = 12;
} // namespace

GptModel::GptModel(RankSimulator &sim, const JobConfig &job, const KernelCatalog &kernels)
    : m_sim(sim), m_job(job), m_kernels(kernels), m_params(makeParameters(job.model))
{
}

void GptModel::setMicroBatch(const MicroBatchShape &mb)
{
    m_batch = mb.batch;
    m_seqLen = mb.seqLen;
    m_rows = m_batch * m_seqLen;
}

void GptModel::backward(Tensor seed, const GradientSink &accumulate)
{
    m_grad = seed;
    for (auto it = m_tape.rbegin(); it != m_tape.rend(); ++it)
        backwardOf(*it, accumulate);
    m_tape.clear();
    m_sim.free(m_grad);
}

Tensor GptModel::takeLoss()
{
    const Tensor loss = m_loss;
    m_loss = {};
    return loss;
}

std::vector<Parameter> GptModel::makeParameters(const ModelShape &m)
{
    const std::int64_t h = m.hidden;
    std::vector<Parameter> params;
    auto add = [&](std::string name, std::vector<std::int64_t> dims) {
        Parameter p;
        p.name = std::move(name);
        p.numel = 1;
        for (const auto d : dims)
            p.numel *= d;
        p.dims = std::move(dims);
        params.push_back(std::move(p));
    };
    // Registration order of a GPT-2-style module; the token embedding is tied to the LM head.
    add("wte.weight", {m.vocab, h});
    params.back().gradsPerPass = 2;
    for (int l = 0; l < m.layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        add(p + "ln_1.weight", {h});
        add(p + "ln_1.bias", {h});
        add(p + "attn.c_attn.weight", {3 * h, h});
        add(p + "attn.c_attn.bias", {3 * h});
        add(p + "attn.c_proj.weight", {h, h});
        add(p + "attn.c_proj.bias", {h});
        add(p + "ln_2.weight", {h});
        add(p + "ln_2.bias", {h});
        add(p + "mlp.c_fc.weight", {4 * h, h});
        add(p + "mlp.c_fc.bias", {4 * h});
        add(p + "mlp.c_proj.weight", {h, 4 * h});
        add(p + "mlp.c_proj.bias", {h});
    }
    add("ln_f.weight", {h});
    add("ln_f.bias", {h});
    return params;
}

OpOptions GptModel::autograd(TapeEntry &e)
{
    e.seq = ++m_sequence;
    e.flow = m_sim.newFlowId();
    OpOptions o;
    o.sequence = e.seq;
    o.flowOut = e.flow;
    return o;
}

void GptModel::inFrame(const PythonFrame &frame, const std::function<void()> &body)
{
    // No RAII: an OOM must leave the frame pushed, so the simulator still holds the traceback.
    m_sim.pushFrame(frame);
    body();
    m_sim.popFrame();
}

void GptModel::forward()
{
    inFrame(PythonSource::kGptEmbed, [&] { embedding(); });
    for (int l = 0; l < m_job.model.layers; ++l)
        inFrame(PythonSource::kGptBlock, [&] { block(l); });
    inFrame(PythonSource::kGptFinalNorm, [&] { layerNorm(m_params.size() - 2); });
    inFrame(PythonSource::kGptHead, [&] { lmHead(); });
}

void GptModel::block(int layer)
{
    const std::int64_t h = m_job.model.hidden;
    const std::size_t base = 1 + kParamsPerBlock * static_cast<std::size_t>(layer);
    inFrame(PythonSource::kBlockAttn, [&] {
        layerNorm(base);
        inFrame(PythonSource::kAttnQkv, [&] {
            linear(base + 2, h, 3 * h);
            splitQkv();
        });
        inFrame(PythonSource::kAttnScores, [&] { attentionScores(); });
        inFrame(PythonSource::kAttnSoftmax, [&] { softmax(); });
        inFrame(PythonSource::kAttnContext, [&] { attentionContext(); });
        inFrame(PythonSource::kAttnProj, [&] { linear(base + 4, h, h); });
    });
    inFrame(PythonSource::kBlockAttnAdd, [&] { residualAdd(); });
    inFrame(PythonSource::kBlockMlp, [&] {
        layerNorm(base + 6);
        inFrame(PythonSource::kMlpFc, [&] { linear(base + 8, h, 4 * h); });
        inFrame(PythonSource::kMlpGelu, [&] { gelu(); });
        inFrame(PythonSource::kMlpProj, [&] { linear(base + 10, 4 * h, h); });
    });
    inFrame(PythonSource::kBlockMlpAdd, [&] { residualAdd(); });
}

void GptModel::embedding()
{
    const std::int64_t h = m_job.model.hidden;
    TapeEntry e{OpKind::Embedding};
    module();
    m_sim.pushFrame(PythonSource::kEmbeddingModule);
    m_sim.pushFrame(PythonSource::kEmbeddingFn);
    m_sim.beginOp(Category::CpuOp, "aten::embedding",
                  recordShapes({{m_job.model.vocab, h}, {m_batch, m_seqLen}, {}, {}, {}},
                         {"float", "long int", "Scalar", "Scalar", "Scalar"}), autograd(e));
    m_sim.beginOp(Category::CpuOp, "aten::index_select",
                  recordShapes({{m_job.model.vocab, h}, {}, {m_rows}}, {"float", "Scalar", "long int"}));
    e.saved.push_back(m_sim.alloc(m_rows * h * kFloat));
    m_sim.launchKernel(m_kernels.indexSelect(m_rows, h));
    m_sim.endOp();
    m_sim.endOp();
    m_sim.popFrame();
    m_sim.popFrame();
    m_tape.push_back(std::move(e));
}

void GptModel::layerNorm(std::size_t param)
{
    const std::int64_t h = m_job.model.hidden;
    TapeEntry e{OpKind::LayerNorm, param};
    module();
    m_sim.pushFrame(PythonSource::kLayerNormModule);
    m_sim.pushFrame(PythonSource::kLayerNormFn);
    m_sim.beginOp(Category::CpuOp, "aten::layer_norm",
                  recordShapes({{m_batch, m_seqLen, h}, {}, {h}, {h}, {}, {}},
                         {"float", "ScalarList", "float", "float", "Scalar", "Scalar"}), autograd(e));
    m_sim.beginOp(Category::CpuOp, "aten::native_layer_norm",
                  recordShapes({{m_batch, m_seqLen, h}, {}, {h}, {h}, {}}, {"float", "ScalarList", "float", "float", "Scalar"}));
    e.saved.push_back(m_sim.alloc(m_rows * h * kFloat));
    e.saved.push_back(m_sim.alloc(m_rows * kFloat)); // mean
    e.saved.push_back(m_sim.alloc(m_rows * kFloat)); // rstd
    m_sim.launchKernel(m_kernels.layerNormForward(m_rows, h));
    m_sim.endOp();
    m_sim.endOp();
    m_sim.popFrame();
    m_sim.popFrame();
    m_tape.push_back(std::move(e));
}

void GptModel::linear(std::size_t param, std::int64_t in, std::int64_t out)
{
    TapeEntry e{OpKind::Linear, param, in, out};
    module();
    m_sim.pushFrame(PythonSource::kLinear);
    m_sim.beginOp(Category::CpuOp, "aten::linear",
                  recordShapes({{m_batch, m_seqLen, in}, {out, in}, {out}}, {"float", "float", "float"}), autograd(e));
    m_sim.beginOp(Category::CpuOp, "aten::t", recordShapes({{out, in}}, {"float"}));
    m_sim.cpu(3000);
    m_sim.endOp();
    m_sim.beginOp(Category::CpuOp, "aten::addmm",
                  recordShapes({{out}, {m_rows, in}, {in, out}, {}, {}}, {"float", "float", "float", "Scalar", "Scalar"}));
    e.saved.push_back(m_sim.alloc(m_rows * out * kFloat));
    m_sim.launchKernel(m_kernels.gemm(m_rows, out, in, 1, GemmLayout::TN));
    m_sim.endOp();
    m_sim.endOp();
    m_sim.popFrame();
    m_tape.push_back(std::move(e));
}

void GptModel::splitQkv()
{
    const std::int64_t h = m_job.model.hidden;
    TapeEntry e{OpKind::SplitQkv};
    m_sim.beginOp(Category::CpuOp, "aten::split",
                  recordShapes({{m_batch, m_seqLen, 3 * h}, {}, {}}, {"float", "Scalar", "Scalar"}), autograd(e));
    m_sim.cpu(6000); // views only: q, k and v share the qkv buffer
    m_sim.endOp();
    m_tape.push_back(std::move(e));
}

void GptModel::attentionScores()
{
    const std::int64_t a = m_job.model.heads, d = m_job.model.hidden / m_job.model.heads;
    TapeEntry e{OpKind::ScoresBmm};
    m_sim.cpu(8000);
    m_sim.beginOp(Category::CpuOp, "aten::matmul",
                  recordShapes({{m_batch, a, m_seqLen, d}, {m_batch, a, d, m_seqLen}}, {"float", "float"}), autograd(e));
    m_sim.beginOp(Category::CpuOp, "aten::bmm",
                  recordShapes({{m_batch * a, m_seqLen, d}, {m_batch * a, d, m_seqLen}}, {"float", "float"}));
    e.saved.push_back(m_sim.alloc(m_batch * a * m_seqLen * m_seqLen * kFloat));
    m_sim.launchKernel(m_kernels.gemm(m_seqLen, m_seqLen, d, m_batch * a, GemmLayout::TN));
    m_sim.endOp();
    m_sim.endOp();
    m_tape.push_back(std::move(e));
}

void GptModel::softmax()
{
    const std::int64_t a = m_job.model.heads;
    TapeEntry e{OpKind::Softmax};
    m_sim.cpu(6000);
    m_sim.beginOp(Category::CpuOp, "aten::softmax",
                  recordShapes({{m_batch, a, m_seqLen, m_seqLen}, {}, {}}, {"float", "Scalar", ""}), autograd(e));
    m_sim.beginOp(Category::CpuOp, "aten::_softmax",
                  recordShapes({{m_batch, a, m_seqLen, m_seqLen}, {}, {}}, {"float", "Scalar", "Scalar"}));
    e.saved.push_back(m_sim.alloc(m_batch * a * m_seqLen * m_seqLen * kFloat));
    m_sim.launchKernel(m_kernels.softmaxForward(m_batch * a * m_seqLen, m_seqLen, false));
    m_sim.endOp();
    m_sim.endOp();
    m_tape.push_back(std::move(e));
}

void GptModel::attentionContext()
{
    const std::int64_t a = m_job.model.heads, d = m_job.model.hidden / m_job.model.heads;
    TapeEntry e{OpKind::ContextBmm};
    m_sim.cpu(6000);
    m_sim.beginOp(Category::CpuOp, "aten::matmul",
                  recordShapes({{m_batch, a, m_seqLen, m_seqLen}, {m_batch, a, m_seqLen, d}}, {"float", "float"}), autograd(e));
    m_sim.beginOp(Category::CpuOp, "aten::bmm",
                  recordShapes({{m_batch * a, m_seqLen, m_seqLen}, {m_batch * a, m_seqLen, d}}, {"float", "float"}));
    e.saved.push_back(m_sim.alloc(m_batch * a * m_seqLen * d * kFloat));
    m_sim.launchKernel(m_kernels.gemm(m_seqLen, d, m_seqLen, m_batch * a, GemmLayout::NN));
    m_sim.endOp();
    m_sim.endOp();
    m_tape.push_back(std::move(e));
}

void GptModel::gelu()
{
    const std::int64_t f = 4LL * m_job.model.hidden;
    TapeEntry e{OpKind::Gelu};
    module();
    m_sim.beginOp(Category::CpuOp, "aten::gelu", recordShapes({{m_batch, m_seqLen, f}, {}}, {"float", ""}), autograd(e));
    e.saved.push_back(m_sim.alloc(m_rows * f * kFloat));
    m_sim.launchKernel(m_kernels.pointwise(Pointwise::Gelu, m_rows * f));
    m_sim.endOp();
    m_tape.push_back(std::move(e));
}

void GptModel::residualAdd()
{
    const std::int64_t h = m_job.model.hidden;
    TapeEntry e{OpKind::ResidualAdd};
    m_sim.cpu(5000);
    m_sim.beginOp(Category::CpuOp, "aten::add",
                  recordShapes({{m_batch, m_seqLen, h}, {m_batch, m_seqLen, h}, {}}, {"float", "float", "Scalar"}), autograd(e));
    e.saved.push_back(m_sim.alloc(m_rows * h * kFloat));
    m_sim.launchKernel(m_kernels.pointwise(Pointwise::Add, m_rows * h));
    m_sim.endOp();
    m_tape.push_back(std::move(e));
}

void GptModel::lmHead()
{
    const std::int64_t h = m_job.model.hidden, v = m_job.model.vocab;
    TapeEntry e{OpKind::LmHead, 0, h, v};
    module();
    m_sim.pushFrame(PythonSource::kLinear);
    m_sim.beginOp(Category::CpuOp, "aten::linear", recordShapes({{m_batch, m_seqLen, h}, {v, h}, {}}, {"float", "float", ""}),
                  autograd(e));
    m_sim.beginOp(Category::CpuOp, "aten::t", recordShapes({{v, h}}, {"float"}));
    m_sim.cpu(3000);
    m_sim.endOp();
    m_sim.beginOp(Category::CpuOp, "aten::matmul", recordShapes({{m_batch, m_seqLen, h}, {h, v}}, {"float", "float"}));
    m_sim.beginOp(Category::CpuOp, "aten::mm", recordShapes({{m_rows, h}, {h, v}}, {"float", "float"}));
    e.saved.push_back(m_sim.alloc(m_rows * v * kFloat));
    m_sim.launchKernel(m_kernels.gemm(m_rows, v, h, 1, GemmLayout::TN));
    m_sim.endOp();
    m_sim.endOp();
    m_sim.endOp();
    m_sim.popFrame();
    m_tape.push_back(std::move(e));
}

void GptModel::lossForward()
{
    const std::int64_t v = m_job.model.vocab;
    m_sim.cpu(25000);
    m_sim.pushFrame(PythonSource::kCrossEntropyFn);
    m_sim.beginOp(Category::CpuOp, "aten::cross_entropy_loss",
                  recordShapes({{m_rows, v}, {m_rows}, {}, {}, {}, {}}, {"float", "long int", "", "Scalar", "Scalar", "Scalar"}));
    TapeEntry ls{OpKind::LogSoftmax};
    m_sim.beginOp(Category::CpuOp, "aten::log_softmax", recordShapes({{m_rows, v}, {}, {}}, {"float", "Scalar", ""}), autograd(ls));
    m_sim.beginOp(Category::CpuOp, "aten::_log_softmax", recordShapes({{m_rows, v}, {}, {}}, {"float", "Scalar", "Scalar"}));
    ls.saved.push_back(m_sim.alloc(m_rows * v * kFloat));
    m_sim.launchKernel(m_kernels.softmaxForward(m_rows, v, true));
    m_sim.endOp();
    m_sim.endOp();
    m_tape.push_back(std::move(ls));
    TapeEntry nll{OpKind::NllLoss};
    m_sim.beginOp(Category::CpuOp, "aten::nll_loss_nd",
                  recordShapes({{m_rows, v}, {m_rows}, {}, {}, {}}, {"float", "long int", "", "Scalar", "Scalar"}), autograd(nll));
    m_sim.beginOp(Category::CpuOp, "aten::nll_loss_forward",
                  recordShapes({{m_rows, v}, {m_rows}, {}, {}, {}}, {"float", "long int", "", "Scalar", "Scalar"}));
    nll.saved.push_back(m_sim.alloc(kFloat)); // the loss
    nll.saved.push_back(m_sim.alloc(kFloat)); // total_weight
    m_sim.launchKernel(m_kernels.nllLossForward(m_rows));
    m_sim.endOp();
    m_sim.endOp();
    m_tape.push_back(std::move(nll));
    m_sim.endOp();
    m_sim.popFrame();
}

void GptModel::replaceGrad(Tensor grad)
{
    m_sim.free(m_grad);
    m_grad = grad;
}

void GptModel::backwardOf(TapeEntry &e, const GradientSink &accumulate)
{
    static constexpr std::string_view kNames[] = {
        "EmbeddingBackward0", "NativeLayerNormBackward0", "AddmmBackward0", "SplitBackward0", "BmmBackward0",
        "SoftmaxBackward0", "BmmBackward0", "GeluBackward0", "AddBackward0", "MmBackward0",
        "LogSoftmaxBackward0", "NllLossBackward0"};
    const std::string_view name = kNames[static_cast<int>(e.kind)];
    const std::int64_t h = m_job.model.hidden, v = m_job.model.vocab;
    OpOptions outer;
    outer.sequence = e.seq;
    outer.fwdThread = 1;
    outer.flowIn = e.flow;
    OpOptions inner;
    inner.sequence = e.seq;
    inner.fwdThread = 1;
    m_sim.cpu(5000); // engine: pick the next ready node
    m_sim.beginOp(Category::CpuOp, std::string("autograd::engine::evaluate_function: ").append(name), {}, outer);
    m_sim.beginOp(Category::CpuOp, name, {}, inner);
    // Parameter gradients go to AccumulateGrad nodes, which the engine runs after this node.
    std::vector<std::pair<std::size_t, Tensor>> grads;
    switch (e.kind) {
    case OpKind::NllLoss: {
        m_sim.beginOp(Category::CpuOp, "aten::nll_loss_backward",
                      recordShapes({{}, {m_rows, v}, {m_rows}, {}, {}, {}, {}},
                             {"float", "float", "long int", "", "Scalar", "Scalar", "float"}));
        const Tensor g = m_sim.alloc(m_rows * v * kFloat);
        m_sim.memsetAsync(m_rows * v * kFloat);
        m_sim.launchKernel(m_kernels.nllLossBackward(m_rows));
        m_sim.endOp();
        replaceGrad(g);
        m_sim.free(m_loss);
        m_loss = e.saved[0]; // kept alive for loss.item()
        e.saved[0] = {};
        break;
    }
    case OpKind::LogSoftmax: {
        m_sim.beginOp(Category::CpuOp, "aten::_log_softmax_backward_data",
                      recordShapes({{m_rows, v}, {m_rows, v}, {}, {}}, {"float", "float", "Scalar", "Scalar"}));
        const Tensor g = m_sim.alloc(m_rows * v * kFloat);
        m_sim.launchKernel(m_kernels.softmaxBackward(m_rows, v, true));
        m_sim.endOp();
        replaceGrad(g);
        break;
    }
    case OpKind::LmHead:
    case OpKind::Linear: backwardLinear(e, grads); break;
    case OpKind::LayerNorm: {
        m_sim.beginOp(Category::CpuOp, "aten::native_layer_norm_backward",
                      recordShapes({{m_batch, m_seqLen, h}, {m_batch, m_seqLen, h}, {}, {m_batch, m_seqLen, 1},
                              {m_batch, m_seqLen, 1}, {h}, {h}, {}},
                             {"float", "float", "ScalarList", "float", "float", "float", "float", "ScalarList"}));
        const Tensor g = m_sim.alloc(m_rows * h * kFloat);
        grads.emplace_back(e.param, m_sim.alloc(h * kFloat));
        grads.emplace_back(e.param + 1, m_sim.alloc(h * kFloat));
        m_sim.launchKernel(m_kernels.layerNormBackwardInput(m_rows, h));
        m_sim.launchKernel(m_kernels.layerNormBackwardGammaBeta(m_rows, h));
        m_sim.endOp();
        replaceGrad(g);
        break;
    }
    case OpKind::SplitQkv: {
        // The q, k and v gradients are concatenated back into the qkv projection's gradient.
        m_sim.beginOp(Category::CpuOp, "aten::cat", recordShapes({{}, {}}, {"TensorList", "Scalar"}));
        const Tensor g = m_sim.alloc(m_rows * 3 * h * kFloat);
        m_sim.launchKernel(m_kernels.catCopy(m_rows * 3 * h));
        m_sim.endOp();
        for (Tensor &t : m_held)
            m_sim.free(t);
        m_held.clear();
        replaceGrad(g);
        break;
    }
    case OpKind::ScoresBmm:
    case OpKind::ContextBmm:
    case OpKind::Softmax: backwardAttention(e); break;
    case OpKind::Gelu: {
        const std::int64_t f = 4 * h;
        m_sim.beginOp(Category::CpuOp, "aten::gelu_backward",
                      recordShapes({{m_batch, m_seqLen, f}, {m_batch, m_seqLen, f}, {}}, {"float", "float", ""}));
        const Tensor g = m_sim.alloc(m_rows * f * kFloat);
        m_sim.launchKernel(m_kernels.pointwise(Pointwise::GeluBackward, m_rows * f));
        m_sim.endOp();
        replaceGrad(g);
        break;
    }
    case OpKind::ResidualAdd:
        m_sim.cpu(3000); // the gradient passes through unchanged
        break;
    case OpKind::Embedding: {
        m_sim.beginOp(Category::CpuOp, "aten::embedding_backward",
                      recordShapes({{m_batch, m_seqLen, h}, {m_batch, m_seqLen}, {}, {}, {}, {}},
                             {"float", "long int", "Scalar", "Scalar", "Scalar", "Scalar"}));
        m_sim.beginOp(Category::CpuOp, "aten::embedding_dense_backward",
                      recordShapes({{m_batch, m_seqLen, h}, {m_batch, m_seqLen}, {}, {}, {}},
                             {"float", "long int", "Scalar", "Scalar", "Scalar"}));
        grads.emplace_back(0, m_sim.alloc(v * h * kFloat));
        m_sim.memsetAsync(v * h * kFloat);
        m_sim.launchKernel(m_kernels.embeddingBackward(m_rows, h));
        m_sim.endOp();
        m_sim.endOp();
        replaceGrad({}); // the chain ends at the token ids
        break;
    }
    }
    m_sim.endOp();
    m_sim.endOp();
    for (auto &[param, grad] : grads)
        accumulate(param, grad);
    for (Tensor &t : e.saved)
        m_sim.free(t);
}

void GptModel::backwardLinear(TapeEntry &e, std::vector<std::pair<std::size_t, Tensor>> &grads)
{
    const std::int64_t in = e.in, out = e.out;
    const bool bias = e.kind == OpKind::Linear;
    m_sim.beginOp(Category::CpuOp, "aten::t", recordShapes({{out, in}}, {"float"}));
    m_sim.cpu(2500);
    m_sim.endOp();
    m_sim.beginOp(Category::CpuOp, "aten::mm", recordShapes({{m_rows, out}, {out, in}}, {"float", "float"}));
    const Tensor gradInput = m_sim.alloc(m_rows * in * kFloat);
    m_sim.launchKernel(m_kernels.gemm(m_rows, in, out, 1, GemmLayout::NN));
    m_sim.endOp();
    m_sim.beginOp(Category::CpuOp, "aten::t", recordShapes({{m_rows, out}}, {"float"}));
    m_sim.cpu(2500);
    m_sim.endOp();
    m_sim.beginOp(Category::CpuOp, "aten::mm", recordShapes({{out, m_rows}, {m_rows, in}}, {"float", "float"}));
    grads.emplace_back(e.param, m_sim.alloc(out * in * kFloat));
    m_sim.launchKernel(m_kernels.gemm(out, in, m_rows, 1, GemmLayout::NT));
    m_sim.endOp();
    if (bias) {
        m_sim.beginOp(Category::CpuOp, "aten::sum", recordShapes({{m_rows, out}, {}, {}, {}}, {"float", "ScalarList", "Scalar", ""}));
        grads.emplace_back(e.param + 1, m_sim.alloc(out * kFloat));
        m_sim.launchKernel(m_kernels.reduceSum(m_rows, out));
        m_sim.endOp();
    }
    replaceGrad(gradInput);
}

void GptModel::backwardAttention(TapeEntry &e)
{
    const std::int64_t a = m_job.model.heads, d = m_job.model.hidden / m_job.model.heads;
    const std::int64_t ba = m_batch * a, s = m_seqLen;
    const std::string bmmShapes = recordShapes({{ba, s, s}, {ba, s, d}}, {"float", "float"});
    switch (e.kind) {
    case OpKind::ContextBmm: {
        // d(probs) = dC · Vᵀ continues the chain; dV waits for the qkv concatenation.
        m_sim.beginOp(Category::CpuOp, "aten::bmm", bmmShapes);
        const Tensor gradProbs = m_sim.alloc(ba * s * s * kFloat);
        m_sim.launchKernel(m_kernels.gemm(s, s, d, ba, GemmLayout::NT));
        m_sim.endOp();
        m_sim.beginOp(Category::CpuOp, "aten::bmm", bmmShapes);
        m_held.push_back(m_sim.alloc(ba * s * d * kFloat));
        m_sim.launchKernel(m_kernels.gemm(s, d, s, ba, GemmLayout::TN));
        m_sim.endOp();
        replaceGrad(gradProbs);
        break;
    }
    case OpKind::Softmax: {
        m_sim.beginOp(Category::CpuOp, "aten::_softmax_backward_data",
                      recordShapes({{m_batch, a, s, s}, {m_batch, a, s, s}, {}, {}}, {"float", "float", "Scalar", "Scalar"}));
        const Tensor g = m_sim.alloc(ba * s * s * kFloat);
        m_sim.launchKernel(m_kernels.softmaxBackward(ba * s, s, false));
        m_sim.endOp();
        replaceGrad(g);
        break;
    }
    case OpKind::ScoresBmm: {
        m_sim.beginOp(Category::CpuOp, "aten::bmm", bmmShapes);
        const Tensor gradQ = m_sim.alloc(ba * s * d * kFloat);
        m_sim.launchKernel(m_kernels.gemm(s, d, s, ba, GemmLayout::NN));
        m_sim.endOp();
        m_sim.beginOp(Category::CpuOp, "aten::bmm", bmmShapes);
        m_held.push_back(m_sim.alloc(ba * d * s * kFloat));
        m_sim.launchKernel(m_kernels.gemm(d, s, s, ba, GemmLayout::NT));
        m_sim.endOp();
        replaceGrad(gradQ);
        break;
    }
    default:
        break;
    }
}

} // namespace rs::tracegen
