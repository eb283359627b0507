#include "ddp_training.h"

#include <torch/nn/functional/loss.h>

#include <algorithm>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"

namespace optim_suite {
namespace {

constexpr int kRows = 6;

}  // namespace

Trained trainMlp(const Group& pg, int rank, distalgo::ddp::DdpOptions options,
                 int steps, const OptimizerCase* optimizer,
                 distalgo::ddp::CommHook hook) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  distalgo::ddp::DistributedDataParallel ddp(model, pg, options);
  auto buckets = std::make_shared<std::size_t>(0);
  if (hook) {
    ddp.registerCommHook(
        [hook = std::move(hook), buckets](distalgo::ddp::GradBucket& bucket) {
          *buckets = std::max(*buckets, bucket.index() + 1);
          return hook(bucket);
        });
  }
  std::unique_ptr<torch::optim::Optimizer> libtorch;
  if (optimizer) libtorch = optimizer->libtorch(model->parameters());
  for (int step = 0; step < steps; ++step) {
    distalgo::ddp::zeroGradients(*model);
    *buckets = 0;
    const auto b = fixtures::rankBatch(step, rank, kRows, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
    torch::nn::functional::mse_loss(ddp.forward(b.input), b.target).backward();
    if (libtorch) libtorch->step();
  }
  Trained trained{fixtures::snapshot(*model), {}, *buckets};
  for (const auto& p : model->parameters()) {
    trained.gradients.push_back(p.grad().clone());
  }
  return trained;
}

std::vector<at::Tensor> initialMlpParameters() {
  return fixtures::snapshot(*fixtures::makeMlp(/*seed=*/1));
}

}  // namespace optim_suite
