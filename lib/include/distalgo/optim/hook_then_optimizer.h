#pragma once

// A communication hook that also steps the optimizer: once a bucket is
// reduced, its parameters are stepped right away with the reduced
// gradients, overlapping the optimizer with the rest of backward
// (PyTorch's _hook_then_optimizer). No optimizer.step() follows backward.
//
// Example:
//   auto sgd = std::make_shared<distalgo::optim::FunctionalSgd>(
//       distalgo::optim::SgdOptions{.lr = 0.1, .momentum = 0.9});
//   ddp.registerCommHook(distalgo::optim::hookThenOptimizer(
//       distalgo::hooks::allreduceHook(pg), sgd));
//   distalgo::ddp::zeroGradients(*model);
//   loss(ddp.forward(x)).backward();  // reduced and stepped here
//
// Gradients are still written: after backward each parameter's .grad()
// holds its reduced gradient, as without the optimizer. Zero them before the
// next backward as usual (distalgo::ddp::zeroGradients, which keeps
// gradient_as_bucket_view's views), or backward accumulates into them and
// the next step uses the sum. Under noSync no bucket is reduced, so nothing
// is stepped until the next synchronized backward. Every parameter of a
// bucket is stepped, also one no rank used in the iteration (its gradient
// is zero), as in PyTorch; a libtorch optimizer skips a parameter whose
// .grad() is undefined.

#include <memory>
#include <optional>
#include <vector>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/optim/functional_optimizer.h"

namespace distalgo::optim {

// Wraps `hook` (any hook: allreduce, fp16 compression, ...). When the
// future `hook` returns completes, steps each parameter of the bucket
// (only those in `params_to_optimize`, when given) with its reduced
// gradient, then completes with the bucket's buffer holding the reduced
// gradients. Throws std::invalid_argument for an empty hook or a null
// optimizer. The optimizer is shared: the caller may keep it to read or
// change its state.
ddp::CommHook hookThenOptimizer(
    ddp::CommHook hook, std::shared_ptr<FunctionalOptimizer> optimizer,
    std::optional<std::vector<at::Tensor>> params_to_optimize = std::nullopt);

}  // namespace distalgo::optim
