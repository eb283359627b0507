#include "distalgo/optim/functional_optimizer.h"

#include "internal/check.h"

namespace distalgo::optim {

void FunctionalOptimizer::step(const std::vector<at::Tensor>& params,
                               const std::vector<at::Tensor>& grads) {
  DISTALGO_CHECK_ARG(params.size() == grads.size(),
                     "distalgo::optim::FunctionalOptimizer::step: expected one "
                     "gradient per parameter (",
                     params.size(), "), found ", grads.size());
  for (std::size_t i = 0; i < params.size(); ++i)
    stepParam(params[i], grads[i]);
}

void FunctionalOptimizer::step(const std::vector<at::Tensor>& params) {
  for (const at::Tensor& param : params) stepParam(param, param.grad());
}

}  // namespace distalgo::optim
