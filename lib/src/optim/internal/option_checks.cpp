#include "optim/internal/option_checks.h"

#include "internal/check.h"

namespace distalgo::optim::internal {
namespace {

constexpr const char* kOptimNamespace = "distalgo::optim::";

}  // namespace

void requireNonNegative(const char* optimizer, const char* option,
                        double value) {
  DISTALGO_CHECK_ARG(value >= 0, kOptimNamespace, optimizer, ": invalid ",
                     option, " ", value, ", expected >= 0");
}

void requireBeta(const char* optimizer, const char* option, double value) {
  DISTALGO_CHECK_ARG(value >= 0 && value < 1, kOptimNamespace, optimizer,
                     ": invalid ", option, " ", value, ", expected in [0, 1)");
}

bool checkGradient(const char* optimizer, const at::Tensor& param,
                   const at::Tensor& grad) {
  if (!grad.defined()) return false;
  DISTALGO_CHECK_ARG(param.defined(), kOptimNamespace, optimizer,
                     ": the parameter is undefined");
  DISTALGO_CHECK_ARG(!grad.is_sparse(), kOptimNamespace, optimizer,
                     ": sparse gradients are not supported");
  DISTALGO_CHECK_ARG(grad.sizes() == param.sizes(), kOptimNamespace, optimizer,
                     ": the gradient's shape ", grad.sizes(),
                     " differs from the parameter's ", param.sizes());
  return true;
}

}  // namespace distalgo::optim::internal
