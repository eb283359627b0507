#pragma once

// Shared pieces of the ZeRO suite: optimizer cases and two parameter groups
// with different learning rates over the MLP.

#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/compare.h"

namespace zero_suite {

// A libtorch optimizer type: its factory and options with a given lr.
struct OptimizerCase {
  std::string name;
  distalgo::zero::LocalOptimizerFactory factory;
  std::function<std::unique_ptr<torch::optim::OptimizerOptions>(double lr)>
      options;
  // How far ZeRO may end from the plain optimizer after training.
  fixtures::Tolerance tolerance;
};

// Rows of data per rank and step in the suite's DDP runs.
inline constexpr int kParityRows = 6;

std::vector<OptimizerCase> optimizerCases();

// The MLP's first layer in one group (lr 0.05), its last in another
// (lr 0.02), options from `optimizer`.
std::vector<torch::optim::OptimizerParamGroup> twoGroups(
    torch::nn::Sequential& model, const OptimizerCase& optimizer);
// twoGroups' first and second group alone.
torch::optim::OptimizerParamGroup firstLayer(torch::nn::Sequential& model,
                                             const OptimizerCase& optimizer);
torch::optim::OptimizerParamGroup lastLayer(torch::nn::Sequential& model,
                                            const OptimizerCase& optimizer);

}  // namespace zero_suite
