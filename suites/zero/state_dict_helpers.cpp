#include "state_dict_helpers.h"

#include <torch/nn/functional/loss.h>
#include <torch/serialize.h>

#include <sstream>

#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"

namespace zero_suite {

void setGradients(torch::nn::Sequential& model, int step) {
  fixtures::zeroGrads(model->parameters());
  const auto b =
      fixtures::rankBatch(step, /*rank=*/0, /*rows=*/6, fixtures::kMlpInputs,
                          fixtures::kMlpOutputs);
  torch::nn::functional::mse_loss(model->forward(b.input), b.target).backward();
}

torch::nn::Sequential copyOf(torch::nn::Sequential& model) {
  auto copy = fixtures::makeMlp(/*seed=*/1);
  at::NoGradGuard no_grad;
  const auto from = model->parameters();
  const auto to = copy->parameters();
  for (std::size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  return copy;
}

std::vector<torch::optim::OptimizerParamGroup> twoGroupsWithLr(
    torch::nn::Sequential& model, const OptimizerCase& optimizer, double lr) {
  const auto p = model->parameters();
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<at::Tensor>{p[0], p[1]},
                      optimizer.options(lr));
  groups.emplace_back(std::vector<at::Tensor>{p[2], p[3]},
                      optimizer.options(lr));
  return groups;
}

const OptimizerCase& sgdCase() {
  static const auto cases = optimizerCases();
  return cases.front();
}

std::string consolidateOnEveryRank(
    distalgo::zero::ZeroRedundancyOptimizer& zero) {
  std::string mine;
  for (int to = 0; to < zero.worldSize(); ++to) {
    zero.consolidateStateDict(to);
    if (zero.rank() == to) mine = zero.stateDict();
  }
  return mine;
}

std::string savePlain(torch::optim::Optimizer& optimizer) {
  std::ostringstream bytes;
  torch::save(optimizer, bytes);
  return bytes.str();
}

void loadPlain(torch::optim::Optimizer& optimizer, const std::string& bytes) {
  std::istringstream stream(bytes);
  torch::load(optimizer, stream);
}

}  // namespace zero_suite
