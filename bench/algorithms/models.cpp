#include "algorithms/models.h"

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <stdexcept>

#include "fixtures/models.h"

namespace bench {
namespace {

constexpr std::uint64_t kSeed = 7;
constexpr int kWide = 256;
constexpr int kLinkWidth = 2048;
// Batches are made before timing and cycled through.
constexpr int kDistinctBatches = 16;

// A step dominated by moving 0.5 M gradients (2 MiB per allreduce) rather
// than by a collective's latency.
torch::nn::Sequential makeWideMlp() {
  torch::manual_seed(kSeed);
  return torch::nn::Sequential(torch::nn::Linear(kWide, 1024),
                               torch::nn::ReLU(),
                               torch::nn::Linear(1024, kWide));
}

// Layers of similar size, so that ZeRO's greedy partition splits Adam's
// state (24 MiB) evenly and its broadcasts weigh in a step.
torch::nn::Sequential makeDeepMlp() {
  constexpr int kHidden = 512;
  constexpr int kHiddenLayers = 11;
  torch::manual_seed(kSeed);
  torch::nn::Sequential model(torch::nn::Linear(kWide, kHidden),
                              torch::nn::ReLU());
  for (int i = 0; i < kHiddenLayers; ++i) {
    model->push_back(torch::nn::Linear(kHidden, kHidden));
    model->push_back(torch::nn::ReLU());
  }
  model->push_back(torch::nn::Linear(kHidden, kWide));
  return model;
}

// A step that moves 100 MB of gradients, as a model of realistic size does
// (6 layers of 2048 x 2048, 25.2 M parameters), on little compute per row.
torch::nn::Sequential makeLinkMlp() {
  constexpr int kLayers = 6;
  torch::manual_seed(kSeed);
  torch::nn::Sequential model;
  for (int i = 0; i < kLayers; ++i) {
    if (i > 0) model->push_back(torch::nn::ReLU());
    model->push_back(torch::nn::Linear(kLinkWidth, kLinkWidth));
  }
  return model;
}

}  // namespace

const Model& modelNamed(const std::string& name) {
  static const std::vector<Model> models = {
      {"mlp", [] { return fixtures::makeMlp(kSeed); }, fixtures::kMlpInputs,
       fixtures::kMlpOutputs},
      {"convnet", [] { return fixtures::makeConvNet(kSeed); },
       fixtures::kMlpInputs, fixtures::kMlpOutputs},
      {"wide_mlp", &makeWideMlp, kWide, kWide},
      {"deep_mlp", &makeDeepMlp, kWide, kWide},
      {"link_mlp", &makeLinkMlp, kLinkWidth, kLinkWidth},
  };
  for (const Model& model : models) {
    if (model.name == name) return model;
  }
  throw std::invalid_argument("unknown model " + name);
}

std::vector<fixtures::Batch> rankBatches(const Model& model, int rank,
                                         int rows) {
  std::vector<fixtures::Batch> batches;
  for (int i = 0; i < kDistinctBatches; ++i) {
    batches.push_back(
        fixtures::rankBatch(i, rank, rows, model.inputs, model.outputs));
  }
  return batches;
}

}  // namespace bench
