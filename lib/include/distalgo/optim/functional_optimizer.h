#pragma once

// An optimizer that steps one parameter at a time with a gradient it is
// given (PyTorch's functional optimizers and their step_param), so that a
// communication hook can step a bucket's parameters as soon as the bucket is
// reduced (hook_then_optimizer.h). It keeps its own per-parameter state; a
// parameter gets its state at its first step, so the optimizer needs no
// parameter list up front.

#include <ATen/core/Tensor.h>

#include <vector>

namespace distalgo::optim {

class FunctionalOptimizer {
 public:
  virtual ~FunctionalOptimizer() = default;

  // Updates `param` in place (without recording autograd history) from
  // `grad`. An undefined `grad` leaves `param` and its state untouched, as a
  // parameter without a gradient is in a libtorch step. Throws
  // std::invalid_argument for a sparse gradient or one shaped unlike
  // `param`. Parameters may be stepped from several threads at once; one
  // parameter from one thread at a time.
  virtual void stepParam(const at::Tensor& param, const at::Tensor& grad) = 0;

  // stepParam for each parameter and the gradient at the same position.
  // Throws std::invalid_argument if the lists differ in length.
  void step(const std::vector<at::Tensor>& params,
            const std::vector<at::Tensor>& grads);
  // stepParam for each parameter with its own .grad(): what a libtorch
  // optimizer's step() does over the same parameters.
  void step(const std::vector<at::Tensor>& params);
};

}  // namespace distalgo::optim
