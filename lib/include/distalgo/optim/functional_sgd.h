#pragma once

// Stochastic gradient descent, one parameter at a time (PyTorch's
// _FunctionalSGD). Its arithmetic is libtorch 1.13's torch::optim::SGD op
// for op, so both give bit-identical parameters.
//
// Example:
//   auto sgd = std::make_shared<distalgo::optim::FunctionalSgd>(
//       distalgo::optim::SgdOptions{.lr = 0.1, .momentum = 0.9});
//   sgd->step(model->parameters());  // as torch::optim::SGD::step()

#include <ATen/core/Tensor.h>

#include "distalgo/optim/functional_optimizer.h"
#include "distalgo/optim/internal/param_states.h"

namespace distalgo::optim {

// PyTorch's SGD options and defaults (libtorch's SGDOptions lacks maximize).
struct SgdOptions {
  double lr = 1e-2;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  // Nesterov momentum; needs momentum > 0 and dampening 0.
  bool nesterov = false;
  // Ascend the gradient instead (steps with its negation).
  bool maximize = false;
};

class FunctionalSgd : public FunctionalOptimizer {
 public:
  // Throws std::invalid_argument, as libtorch and PyTorch refuse them, for
  // a negative lr, momentum or weight decay, and for nesterov without
  // momentum or with dampening.
  explicit FunctionalSgd(SgdOptions options = {});

  void stepParam(const at::Tensor& param, const at::Tensor& grad) override;

  const SgdOptions& options() const { return options_; }

 private:
  struct State {
    at::Tensor momentum_buffer;
  };

  SgdOptions options_;
  internal::ParamStates<State> states_;
};

}  // namespace distalgo::optim
