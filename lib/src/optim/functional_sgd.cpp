#include "distalgo/optim/functional_sgd.h"

#include <ATen/ATen.h>

#include "internal/check.h"
#include "optim/internal/option_checks.h"

namespace distalgo::optim {
namespace {

constexpr const char* kName = "FunctionalSgd";

}  // namespace

FunctionalSgd::FunctionalSgd(SgdOptions options) : options_(options) {
  internal::requireNonNegative(kName, "lr", options_.lr);
  internal::requireNonNegative(kName, "momentum", options_.momentum);
  internal::requireNonNegative(kName, "weight_decay", options_.weight_decay);
  DISTALGO_CHECK_ARG(
      !options_.nesterov || (options_.momentum > 0 && options_.dampening == 0),
      "distalgo::optim::FunctionalSgd: nesterov momentum requires a momentum "
      "> 0 and zero dampening");
}

// libtorch's SGD::step for one parameter, op for op; maximize negates the
// gradient first, as PyTorch's SGD does.
void FunctionalSgd::stepParam(const at::Tensor& param, const at::Tensor& grad) {
  if (!internal::checkGradient(kName, param, grad)) return;
  at::NoGradGuard no_grad;
  at::Tensor d_p = options_.maximize ? grad.neg() : grad;
  if (options_.weight_decay != 0) {
    d_p = d_p.add(param, options_.weight_decay);
  }
  if (options_.momentum != 0) {
    auto [state, created] = states_.get(param);
    at::Tensor& buf = state.momentum_buffer;
    if (created) {
      // A copy: `grad` may be a view into a communication bucket.
      buf = d_p.clone().detach();
    } else {
      buf.mul_(options_.momentum).add_(d_p, 1 - options_.dampening);
    }
    d_p = options_.nesterov ? d_p.add(buf, options_.momentum) : buf;
  }
  param.add_(d_p, -1 * options_.lr);
}

}  // namespace distalgo::optim
