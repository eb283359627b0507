#pragma once

// Moves ZeRO's optimizer state between ranks when the overlap hook replaces
// the greedy partition by its bucket partition.

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <functional>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"

namespace distalgo::zero::internal {

// Collective. `from[r]` is rank r's shard and `local` this rank's optimizer
// over its shard (a group per global group). Every parameter's state goes
// to `destination(parameter)` on the rank `new_owner(parameter)` (possibly
// this one). A shard whose state all stays is not sent; otherwise its owner
// serialises its whole optimizer (Optimizer::save) and broadcasts it, and
// the receivers load it into an optimizer of the same shape from `factory`,
// so any libtorch optimizer type works.
void transferState(
    c10d::ProcessGroup& pg, const std::vector<std::vector<ShardEntry>>& from,
    torch::optim::Optimizer& local, const LocalOptimizerFactory& factory,
    const std::function<int(const at::Tensor&)>& new_owner,
    const std::function<torch::optim::Optimizer&(const at::Tensor&)>&
        destination);

}  // namespace distalgo::zero::internal
