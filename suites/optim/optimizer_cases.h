#pragma once

// Option sets of SGD, Adam and AdamW, each built twice with the same
// options: as libtorch's optimizer and as distalgo's functional one.

#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distalgo/optim/functional_optimizer.h"

namespace optim_suite {

struct OptimizerCase {
  std::string name;  // a gtest name: letters, digits, underscores
  std::function<std::unique_ptr<torch::optim::Optimizer>(
      std::vector<at::Tensor>)>
      libtorch;
  std::function<std::shared_ptr<distalgo::optim::FunctionalOptimizer>()>
      functional;
};

// Plain, momentum, dampening with weight decay, nesterov.
std::vector<OptimizerCase> sgdCases();
// Defaults, other betas/eps with weight decay, amsgrad, amsgrad with decay.
std::vector<OptimizerCase> adamCases();
// Defaults (decay 1e-2), no decay, amsgrad, strong decay with a larger lr.
std::vector<OptimizerCase> adamWCases();

}  // namespace optim_suite
