#pragma once

// Shared pieces of the ZeRO state-dict suites: the MLP trained with the same
// gradients on every rank (no DDP needed: the state is what is under test),
// copies of it, and a consolidated state on every rank.

#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/optimizer.h>

#include <string>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "zero_parity.h"

namespace zero_suite {

// Sets the MLP's gradients from the MSE on batch `step`, the same batch on
// every rank.
void setGradients(torch::nn::Sequential& model, int step);

// The MLP (seed 1) with `model`'s current parameter values.
torch::nn::Sequential copyOf(torch::nn::Sequential& model);

// SGD with momentum, which has per-parameter state.
const OptimizerCase& sgdCase();

// twoGroups' split with learning rate `lr` in both groups.
std::vector<torch::optim::OptimizerParamGroup> twoGroupsWithLr(
    torch::nn::Sequential& model, const OptimizerCase& optimizer, double lr);

// Collective: consolidates to every rank in turn, so that each gets the
// state dict.
std::string consolidateOnEveryRank(
    distalgo::zero::ZeroRedundancyOptimizer& zero);

std::string savePlain(torch::optim::Optimizer& optimizer);
void loadPlain(torch::optim::Optimizer& optimizer, const std::string& bytes);

}  // namespace zero_suite
