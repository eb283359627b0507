#pragma once

// What an optimizer's state costs in memory: the bytes of the tensors it
// keeps per parameter. Measures ZeRO's saving (its local optimizer against
// a plain one over every parameter) rather than assuming it.

#include <torch/optim/optimizer.h>

#include <cstdint>

namespace distalgo::zero {

// Sums numel * element size over the state tensors of every parameter with
// state (momentum buffers, exp_avg, exp_avg_sq, max_exp_avg_sq, sum,
// square_avg, grad_avg: whichever are defined). Knows libtorch's SGD, Adam,
// AdamW, Adagrad and RMSprop; throws std::invalid_argument naming the state
// type for another optimizer's state.
std::int64_t optimizerStateBytes(const torch::optim::Optimizer& optimizer);

}  // namespace distalgo::zero
