#include "distalgo/optim/functional_optimizer.h"

#include <stdexcept>
#include <string>

namespace distalgo::optim {

void FunctionalOptimizer::step(const std::vector<at::Tensor>& params,
                               const std::vector<at::Tensor>& grads) {
  if (params.size() != grads.size()) {
    throw std::invalid_argument(
        "distalgo::optim::FunctionalOptimizer::step: expected one gradient "
        "per parameter (" +
        std::to_string(params.size()) + "), found " +
        std::to_string(grads.size()));
  }
  for (std::size_t i = 0; i < params.size(); ++i)
    stepParam(params[i], grads[i]);
}

void FunctionalOptimizer::step(const std::vector<at::Tensor>& params) {
  for (const at::Tensor& param : params) stepParam(param, param.grad());
}

}  // namespace distalgo::optim
