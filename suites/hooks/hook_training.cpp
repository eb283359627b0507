#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>

#include <algorithm>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"
#include "hook_parity.h"

namespace hookparity {
namespace {

constexpr int kRows = 5;

fixtures::Batch batch(const fixtures::BucketedModel& model, int step,
                      int rank) {
  return fixtures::rankBatch(step, rank, kRows, model.inputs, model.outputs);
}

}  // namespace

Run trainModel(const fixtures::BucketedModel& model, const Group& pg, int rank,
               int steps, double learning_rate, const MakeHook& make) {
  auto module = model.make(/*seed=*/1);
  distalgo::ddp::DistributedDataParallel ddp(
      module, pg,
      {.bucket_cap_mb = model.bucket_cap_mb,
       .first_bucket_cap_bytes = model.first_bucket_cap_bytes});
  if (make) ddp.registerCommHook(make(pg));
  Run run;
  run.losses = fixtures::sgdSteps(
      module->parameters(), steps, learning_rate, [&](int step) {
        const auto b = batch(model, step, rank);
        return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
      });
  run.parameters = fixtures::snapshot(*module);
  return run;
}

Run trainModelAlone(const fixtures::BucketedModel& model, int rank, int steps,
                    double learning_rate) {
  auto module = model.make(/*seed=*/1);
  Run run;
  run.losses = fixtures::sgdSteps(module->parameters(), steps, learning_rate,
                                  [&](int step) {
                                    const auto b = batch(model, step, rank);
                                    return torch::nn::functional::mse_loss(
                                        module->forward(b.input), b.target);
                                  });
  run.parameters = fixtures::snapshot(*module);
  return run;
}

Run trainMlp(const Group& pg, int rank, int steps, double learning_rate,
             const MakeHook& make) {
  return trainModel(fixtures::oneBucketMlp(), pg, rank, steps, learning_rate,
                    make);
}

Run trainMlpAlone(int rank, int steps, double learning_rate) {
  return trainModelAlone(fixtures::oneBucketMlp(), rank, steps, learning_rate);
}

double distance(const Run& a, const Run& b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.parameters.size(); ++i) {
    largest = std::max(
        largest,
        (a.parameters[i] - b.parameters[i]).abs().max().item<double>());
  }
  return largest;
}

bool sameOnEveryRank(const Group& pg, const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> flat;
  for (const auto& t : tensors) flat.push_back(t.reshape(-1));
  std::vector<at::Tensor> root{at::cat(flat)};
  const at::Tensor own = root[0].clone();
  pg->broadcast(root)->wait();
  return at::equal(root[0], own);
}

std::vector<at::Tensor> mlpParameters() {
  return fixtures::snapshot(*fixtures::makeMlp(/*seed=*/1));
}

}  // namespace hookparity
