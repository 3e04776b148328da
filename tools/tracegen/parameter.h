#pragma once
// A model parameter and the device memory that belongs to it: the weight, its gradient and the two
// AdamW moments. Shared by the model, the DDP reducer and the optimizer.

#include "ranksimulator.h"

#include <string>
#include <vector>

namespace rs::tracegen {

struct Parameter {
    std::string name;                  ///< e.g. "h.3.mlp.fc1.weight"
    std::vector<std::int64_t> dims;
    std::int64_t numel = 0;
    int gradsPerPass = 1;              ///< gradient contributions per backward (2 for a tied weight)
    Tensor weight;
    Tensor grad;                       ///< invalid after zero_grad(set_to_none=True)
    Tensor expAvg;
    Tensor expAvgSq;

    std::int64_t bytes() const { return numel * 4; }
};

} // namespace rs::tracegen
