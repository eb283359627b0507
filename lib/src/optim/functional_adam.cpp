#include "distalgo/optim/functional_adam.h"

#include <ATen/ATen.h>

#include <cmath>

#include "optim/internal/option_checks.h"

namespace distalgo::optim::internal {

AdamUpdate::AdamUpdate(const char* name, const AdamOptions& options,
                       bool decoupled)
    : name_(name), options_(options), decoupled_(decoupled) {
  requireNonNegative(name_, "lr", options_.lr);
  requireNonNegative(name_, "eps", options_.eps);
  requireBeta(name_, "betas.first", options_.betas.first);
  requireBeta(name_, "betas.second", options_.betas.second);
  requireNonNegative(name_, "weight_decay", options_.weight_decay);
}

// libtorch's Adam::step (AdamW::step when decoupled) for one parameter, op
// for op; maximize negates the gradient first, as PyTorch's Adam does. A
// complex parameter steps as its real and imaginary parts, as PyTorch's Adam
// views it (view_as_real): libtorch's would square the complex gradient.
void AdamUpdate::stepParam(const at::Tensor& parameter,
                           const at::Tensor& gradient) {
  if (!checkGradient(name_, parameter, gradient)) return;
  at::NoGradGuard no_grad;
  const bool complex = parameter.is_complex();
  const at::Tensor param = complex ? at::view_as_real(parameter) : parameter;
  const at::Tensor grad = complex ? at::view_as_real(gradient) : gradient;
  const auto [beta1, beta2] = options_.betas;
  at::Tensor g = options_.maximize ? grad.neg() : grad;
  if (decoupled_ && options_.weight_decay != 0) {
    param.mul_(1 - options_.lr * options_.weight_decay);
  }
  auto [state, created] = states_.get(parameter);
  if (created) {
    state.exp_avg = at::zeros_like(param, at::MemoryFormat::Preserve);
    state.exp_avg_sq = at::zeros_like(param, at::MemoryFormat::Preserve);
    if (options_.amsgrad) {
      state.max_exp_avg_sq = at::zeros_like(param, at::MemoryFormat::Preserve);
    }
  }
  state.step += 1;
  const double bias_correction1 = 1 - std::pow(beta1, state.step);
  const double bias_correction2 = 1 - std::pow(beta2, state.step);
  if (!decoupled_ && options_.weight_decay != 0) {
    g = g.add(param, options_.weight_decay);
  }
  state.exp_avg.mul_(beta1).add_(g, 1 - beta1);
  state.exp_avg_sq.mul_(beta2).addcmul_(g, g, 1 - beta2);
  at::Tensor denom;
  if (options_.amsgrad) {
    at::max_out(state.max_exp_avg_sq, state.exp_avg_sq, state.max_exp_avg_sq);
    denom = (state.max_exp_avg_sq.sqrt() / std::sqrt(bias_correction2))
                .add_(options_.eps);
  } else {
    denom = (state.exp_avg_sq.sqrt() / std::sqrt(bias_correction2))
                .add_(options_.eps);
  }
  const double step_size = options_.lr / bias_correction1;
  param.addcdiv_(state.exp_avg, denom, -step_size);
}

}  // namespace distalgo::optim::internal
