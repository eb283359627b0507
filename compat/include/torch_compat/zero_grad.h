#pragma once

// Optimizer::zero_grad with the choice made explicit: 1.13 takes no argument
// and zeroes in place; 2.x takes set_to_none and defaults to true.

#include <torch/optim/optimizer.h>

namespace torch_compat {

// Zeroes the gradients of `optimizer`'s parameters in place, or, with
// `set_to_none`, drops them (the next backward allocates them anew).
template <class Optimizer = torch::optim::Optimizer>
void zeroGrad(Optimizer& optimizer, bool set_to_none) {
  if constexpr (requires { optimizer.zero_grad(set_to_none); }) {
    optimizer.zero_grad(set_to_none);
  } else if (!set_to_none) {
    optimizer.zero_grad();
  } else {
    for (auto& group : optimizer.param_groups()) {
      for (auto& parameter : group.params()) {
        parameter.mutable_grad().reset();
      }
    }
  }
}

}  // namespace torch_compat
