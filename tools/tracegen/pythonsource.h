#pragma once
// The Python source a traceback from inside the simulated training shows: the training script
// (train.py), the model (a nanoGPT-style model.py) and the torch.nn / torch.autograd lines their
// calls pass through, for PyTorch 2.4 on Python 3.10. Ops that are Tensor methods or operators
// (softmax, @, +) add no frame of their own. The workload pushes these on RankSimulator's Python
// stack as it calls in.

#include "pythonframe.h"

namespace rs::tracegen {

struct PythonSource {
    // train.py: the loop around one micro-batch.
    static constexpr std::string_view kTrainPy = "/workspace/gpt/train.py";
    static constexpr std::string_view kDdpPy =
        "/usr/local/lib/python3.10/dist-packages/torch/nn/parallel/distributed.py";
    static constexpr std::string_view kTensorPy = "/usr/local/lib/python3.10/dist-packages/torch/_tensor.py";
    static constexpr std::string_view kAutogradPy =
        "/usr/local/lib/python3.10/dist-packages/torch/autograd/__init__.py";
    static constexpr std::string_view kGraphPy = "/usr/local/lib/python3.10/dist-packages/torch/autograd/graph.py";
    static constexpr PythonFrame kModuleLevel{kTrainPy, 301, "<module>", "main()"};
    static constexpr PythonFrame kMainLoop{kTrainPy, 274, "main", "loss = train_step(model, optimizer, loader, step)"};
    static constexpr PythonFrame kForwardCall{kTrainPy, 186, "train_step", "logits = model(mb.input_ids)", true};
    static constexpr PythonFrame kDdpForward{kDdpPy, 1636, "forward",
        "else self._run_ddp_forward(*inputs, **kwargs)"};
    static constexpr PythonFrame kDdpRunForward{kDdpPy, 1454, "_run_ddp_forward",
        "return self.module(*inputs, **kwargs)  # type: ignore[index]", true};
    static constexpr PythonFrame kLossCall{kTrainPy, 187, "train_step",
        "loss = F.cross_entropy(logits.view(-1, logits.size(-1)), mb.labels.view(-1))"};
    static constexpr PythonFrame kBackwardCall{kTrainPy, 188, "train_step", "loss.backward()"};
    static constexpr PythonFrame kTensorBackward{kTensorPy, 521, "backward", "torch.autograd.backward("};
    static constexpr PythonFrame kAutogradBackward{kAutogradPy, 289, "backward", "_engine_run_backward("};
    static constexpr PythonFrame kEngineRun{kGraphPy, 768, "_engine_run_backward",
        "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"};

    // model.py and the torch.nn modules it is built from.
    static constexpr std::string_view kModelPy = "/workspace/gpt/model.py";
    static constexpr std::string_view kLinearPy = "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/linear.py";
    static constexpr std::string_view kNormPy =
        "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/normalization.py";
    static constexpr std::string_view kSparsePy = "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/sparse.py";
    static constexpr std::string_view kFunctionalPy = "/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py";
    static constexpr PythonFrame kGptEmbed{kModelPy, 136, "forward", "x = self.wte(idx)", true};
    static constexpr PythonFrame kGptBlock{kModelPy, 138, "forward", "x = block(x)", true};
    static constexpr PythonFrame kGptFinalNorm{kModelPy, 139, "forward", "x = self.ln_f(x)", true};
    static constexpr PythonFrame kGptHead{kModelPy, 140, "forward", "return self.lm_head(x)", true};
    static constexpr PythonFrame kBlockAttn{kModelPy, 108, "forward", "x = x + self.attn(self.ln_1(x))", true};
    static constexpr PythonFrame kBlockAttnAdd{kModelPy, 108, "forward", "x = x + self.attn(self.ln_1(x))"};
    static constexpr PythonFrame kBlockMlp{kModelPy, 109, "forward", "x = x + self.mlp(self.ln_2(x))", true};
    static constexpr PythonFrame kBlockMlpAdd{kModelPy, 109, "forward", "x = x + self.mlp(self.ln_2(x))"};
    static constexpr PythonFrame kAttnQkv{kModelPy, 68, "forward",
        "q, k, v = self.c_attn(x).split(self.n_embd, dim=2)", true};
    static constexpr PythonFrame kAttnScores{kModelPy, 72, "forward", "att = q @ k.transpose(-2, -1)"};
    static constexpr PythonFrame kAttnSoftmax{kModelPy, 73, "forward", "att = att.softmax(dim=-1)"};
    static constexpr PythonFrame kAttnContext{kModelPy, 74, "forward", "y = att @ v"};
    static constexpr PythonFrame kAttnProj{kModelPy, 76, "forward", "return self.c_proj(y)", true};
    static constexpr PythonFrame kMlpFc{kModelPy, 89, "forward", "x = F.gelu(self.c_fc(x))", true};
    static constexpr PythonFrame kMlpGelu{kModelPy, 89, "forward", "x = F.gelu(self.c_fc(x))"};
    static constexpr PythonFrame kMlpProj{kModelPy, 90, "forward", "return self.c_proj(x)", true};
    static constexpr PythonFrame kLinear{kLinearPy, 117, "forward", "return F.linear(input, self.weight, self.bias)"};
    static constexpr PythonFrame kLayerNormModule{kNormPy, 202, "forward", "return F.layer_norm("};
    static constexpr PythonFrame kLayerNormFn{kFunctionalPy, 2576, "layer_norm", "return torch.layer_norm("};
    static constexpr PythonFrame kEmbeddingModule{kSparsePy, 164, "forward", "return F.embedding("};
    static constexpr PythonFrame kEmbeddingFn{kFunctionalPy, 2267, "embedding",
        "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)"};
    static constexpr PythonFrame kCrossEntropyFn{kFunctionalPy, 3104, "cross_entropy",
        "return torch._C._nn.cross_entropy_loss("};
};

} // namespace rs::tracegen
