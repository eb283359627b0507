#include "distalgo/zero/state_bytes.h"

#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include <initializer_list>
#include <typeinfo>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "internal/check.h"
#include "zero/internal/overlap_state.h"

namespace distalgo::zero {
namespace {

std::int64_t bytesOf(std::initializer_list<at::Tensor> tensors) {
  std::int64_t bytes = 0;
  for (const at::Tensor& t : tensors) {
    if (t.defined()) bytes += t.numel() * t.element_size();
  }
  return bytes;
}

std::int64_t stateBytes(const torch::optim::OptimizerParamState& state) {
  // The state types share no accessor for their tensors: ask each.
  if (const auto* s =
          dynamic_cast<const torch::optim::SGDParamState*>(&state)) {
    return bytesOf({s->momentum_buffer()});
  }
  if (const auto* s =
          dynamic_cast<const torch::optim::AdamParamState*>(&state)) {
    return bytesOf({s->exp_avg(), s->exp_avg_sq(), s->max_exp_avg_sq()});
  }
  if (const auto* s =
          dynamic_cast<const torch::optim::AdamWParamState*>(&state)) {
    return bytesOf({s->exp_avg(), s->exp_avg_sq(), s->max_exp_avg_sq()});
  }
  if (const auto* s =
          dynamic_cast<const torch::optim::AdagradParamState*>(&state)) {
    return bytesOf({s->sum()});
  }
  if (const auto* s =
          dynamic_cast<const torch::optim::RMSpropParamState*>(&state)) {
    return bytesOf({s->square_avg(), s->momentum_buffer(), s->grad_avg()});
  }
  DISTALGO_CHECK_ARG(false,
                     "optimizerStateBytes: unknown optimizer state type ",
                     typeid(state).name());
}

}  // namespace

std::int64_t optimizerStateBytes(const torch::optim::Optimizer& optimizer) {
  std::int64_t bytes = 0;
  for (const auto& [key, state] : optimizer.state())
    bytes += stateBytes(*state);
  return bytes;
}

std::int64_t ZeroRedundancyOptimizer::stateBytes() const {
  std::int64_t bytes = optimizerStateBytes(*local_);
  if (const auto overlap = overlap_state_.lock())
    bytes += overlap->stateBytes();
  return bytes;
}

}  // namespace distalgo::zero
