#include "bench_common/models.h"

#include <ATen/ATen.h>

#include "bench_common/ranks.h"
#include "fixtures/models.h"

namespace bench_common {
namespace {

constexpr double kLearningRate = 0.01;
// Batches are made before timing and cycled through.
constexpr int kDistinctBatches = 16;

constexpr int kWideFeatures = 256;

// A model whose step is dominated by moving its 0.5 M gradients (2 MiB per
// allreduce) rather than by per-collective latency.
torch::nn::Sequential makeWideMlp(std::uint64_t seed) {
  torch::manual_seed(seed);
  return torch::nn::Sequential(torch::nn::Linear(kWideFeatures, 1024),
                               torch::nn::ReLU(),
                               torch::nn::Linear(1024, kWideFeatures));
}

// 3.2 M parameters (12 MiB of float) in 13 layers of similar size, so
// that ZeRO's greedy partition can split Adam's state (24 MiB) evenly and
// its broadcasts weigh in a step.
torch::nn::Sequential makeDeepMlp(std::uint64_t seed) {
  constexpr int kHidden = 512;
  constexpr int kHiddenLayers = 11;
  torch::manual_seed(seed);
  torch::nn::Sequential model(torch::nn::Linear(kWideFeatures, kHidden),
                              torch::nn::ReLU());
  for (int i = 0; i < kHiddenLayers; ++i) {
    model->push_back(torch::nn::Linear(kHidden, kHidden));
    model->push_back(torch::nn::ReLU());
  }
  model->push_back(torch::nn::Linear(kHidden, kWideFeatures));
  return model;
}

}  // namespace

const std::vector<ModelRow>& modelRows() {
  static const std::vector<ModelRow> rows = {
      {"mlp", &fixtures::makeMlp, fixtures::kMlpInputs, fixtures::kMlpOutputs},
      {"convnet", &fixtures::makeConvNet, fixtures::kMlpInputs,
       fixtures::kMlpOutputs},
      {"wide_mlp", &makeWideMlp, kWideFeatures, kWideFeatures},
      {"deep_mlp", &makeDeepMlp, kWideFeatures, kWideFeatures},
  };
  return rows;
}

const ModelRow* findModel(const std::string& name) {
  for (const ModelRow& row : modelRows()) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

std::vector<fixtures::Batch> rankBatches(const ModelRow& model, int rank,
                                         int rows) {
  std::vector<fixtures::Batch> batches;
  for (int i = 0; i < kDistinctBatches; ++i) {
    batches.push_back(
        fixtures::rankBatch(i, rank, rows, model.inputs, model.outputs));
  }
  return batches;
}

RankSetup setUpRank(const ModelRow& model, const std::string& store_path,
                    int rank, int world_size, int rows) {
  at::set_num_threads(1);
  return {glooGroup(store_path, rank, world_size),
          rankBatches(model, rank, rows)};
}

Trainer::Trainer(const ModelRow& model, const Group& group,
                 const std::function<void(Ddp&, const Group&)>& install)
    : ddp(model.make(kModelSeed), group),
      sgd(ddp.module()->parameters(), torch::optim::SGDOptions(kLearningRate)) {
  if (install) install(ddp, group);
}

void trainSteps(Ddp& ddp, const std::function<void()>& optimizer_step,
                const std::vector<fixtures::Batch>& batches, int first, int n,
                std::vector<double>* us) {
  for (int i = 0; i < n; ++i) {
    const fixtures::Batch& b =
        batches[static_cast<std::size_t>(first + i) % batches.size()];
    const std::int64_t start = nowNs();
    distalgo::ddp::zeroGradients(*ddp.module());
    at::Tensor loss = at::mse_loss(ddp.forward(b.input), b.target);
    loss.backward();
    optimizer_step();
    const std::int64_t end = nowNs();
    if (us) us->push_back(static_cast<double>(end - start) / 1e3);
  }
}

void Trainer::steps(const std::vector<fixtures::Batch>& batches, int first,
                    int n, std::vector<double>* us) {
  trainSteps(
      ddp, [this] { sgd.step(); }, batches, first, n, us);
}

}  // namespace bench_common
