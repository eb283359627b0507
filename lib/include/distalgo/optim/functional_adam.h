#pragma once

// Adam and AdamW, one parameter at a time (PyTorch's _FunctionalAdam and
// _FunctionalAdamW). Their arithmetic is libtorch 1.13's torch::optim::Adam
// and AdamW op for op, so each gives bit-identical parameters to its
// libtorch counterpart.
//
// Example:
//   distalgo::optim::FunctionalAdamW adamw({.lr = 1e-3, .amsgrad = true});
//   adamw.stepParam(weight, weight_gradient);

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "distalgo/optim/adam_options.h"
#include "distalgo/optim/functional_optimizer.h"
#include "distalgo/optim/internal/param_states.h"

namespace distalgo::optim {
namespace internal {

// The update both share; `decoupled` picks AdamW's weight decay.
class AdamUpdate : public FunctionalOptimizer {
 public:
  void stepParam(const at::Tensor& parameter,
                 const at::Tensor& gradient) override;

 protected:
  // Throws std::invalid_argument, as libtorch and PyTorch refuse them, for a
  // negative lr, eps or weight decay and for betas outside [0, 1).
  AdamUpdate(const char* name, const AdamOptions& options, bool decoupled);

 private:
  struct State {
    std::int64_t step = 0;
    at::Tensor exp_avg;
    at::Tensor exp_avg_sq;
    at::Tensor max_exp_avg_sq;  // amsgrad only
  };

  const char* name_;
  AdamOptions options_;
  bool decoupled_;
  ParamStates<State> states_;
};

}  // namespace internal

// Adam: weight decay is an L2 penalty added to the gradient.
class FunctionalAdam : public internal::AdamUpdate {
 public:
  explicit FunctionalAdam(AdamOptions options = {})
      : AdamUpdate("FunctionalAdam", options, /*decoupled=*/false) {}
};

// AdamW: weight decay shrinks the parameter by lr * weight_decay before the
// Adam update, apart from the gradient.
class FunctionalAdamW : public internal::AdamUpdate {
 public:
  explicit FunctionalAdamW(AdamWOptions options = {})
      : AdamUpdate("FunctionalAdamW",
                   {.lr = options.lr,
                    .betas = options.betas,
                    .eps = options.eps,
                    .weight_decay = options.weight_decay,
                    .amsgrad = options.amsgrad,
                    .maximize = options.maximize},
                   /*decoupled=*/true) {}
};

}  // namespace distalgo::optim
