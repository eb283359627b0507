#include <torch/nn/functional/loss.h>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"
#include "hook_parity.h"

namespace hookparity {
namespace {

constexpr int kRows = 5;

fixtures::Batch batch(int step, int rank) {
  return fixtures::rankBatch(step, rank, kRows, fixtures::kMlpInputs,
                             fixtures::kMlpOutputs);
}

}  // namespace

Run trainMlp(const Group& pg, int rank, int steps, double learning_rate,
             const std::function<distalgo::ddp::CommHook(Group)>& make) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  distalgo::ddp::DistributedDataParallel ddp(model, pg);
  if (make) ddp.registerCommHook(make(pg));
  Run run;
  run.losses = fixtures::sgdSteps(
      model->parameters(), steps, learning_rate, [&](int step) {
        const auto b = batch(step, rank);
        return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
      });
  run.parameters = fixtures::snapshot(*model);
  return run;
}

Run trainMlpAlone(int rank, int steps, double learning_rate) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  Run run;
  run.losses = fixtures::sgdSteps(model->parameters(), steps, learning_rate,
                                  [&](int step) {
                                    const auto b = batch(step, rank);
                                    return torch::nn::functional::mse_loss(
                                        model->forward(b.input), b.target);
                                  });
  run.parameters = fixtures::snapshot(*model);
  return run;
}

std::vector<at::Tensor> mlpParameters() {
  return fixtures::snapshot(*fixtures::makeMlp(/*seed=*/1));
}

}  // namespace hookparity
