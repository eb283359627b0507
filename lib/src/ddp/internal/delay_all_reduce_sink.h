#pragma once

// The C++ counterpart of PyTorch's _DDPSink: an identity autograd node that
// DDP puts after the module's outputs.

#include <ATen/core/Tensor.h>

#include <torch/csrc/distributed/c10d/reducer.hpp>
#include <vector>

namespace distalgo::ddp::internal {

// Returns `outputs` passed through one identity autograd node. Outputs
// without a grad_fn come back as they are. Gradients that backward does not
// reach stay undefined instead of becoming zeros, so the reducer can tell an
// output the loss ignores.
//
// With `delay_all_reduce`, the node's backward queues
// reducer.delay_all_reduce() to run once the whole backward pass has
// finished: in the first iteration of a static graph the reducer only counts
// which parameters got gradients and reduces nothing until this call.
std::vector<at::Tensor> passThroughSink(c10d::Reducer& reducer,
                                        bool delay_all_reduce,
                                        const std::vector<at::Tensor>& outputs);

}  // namespace distalgo::ddp::internal
