#include "zero_parity.h"

#include <gtest/gtest.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/compare.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"

namespace zero_suite {
namespace {

constexpr int kParityRows = 6;

template <typename Optimizer, typename Options>
OptimizerCase makeCase(std::string name, Options defaults, double tolerance) {
  return {
      std::move(name), distalgo::zero::localOptimizer<Optimizer>(defaults),
      [defaults](double lr) -> std::unique_ptr<torch::optim::OptimizerOptions> {
        auto options = std::make_unique<Options>(defaults);
        options->lr(lr);
        return options;
      },
      tolerance};
}

}  // namespace

std::vector<OptimizerCase> optimizerCases() {
  namespace optim = torch::optim;
  // Every case runs the same kernels on the same inputs on the owner, so
  // all are in fact bit for bit; the adaptive ones keep a 1e-6 margin.
  return {
      makeCase<optim::SGD>(
          "SGD", optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-3), 0),
      makeCase<optim::Adam>("Adam", optim::AdamOptions(1e-3), 1e-6),
      makeCase<optim::AdamW>("AdamW", optim::AdamWOptions(1e-3), 1e-6),
      makeCase<optim::Adagrad>("Adagrad", optim::AdagradOptions(1e-2), 1e-6),
      makeCase<optim::RMSprop>("RMSprop", optim::RMSpropOptions(1e-3), 1e-6),
  };
}

torch::optim::OptimizerParamGroup firstLayer(torch::nn::Sequential& model,
                                             const OptimizerCase& optimizer) {
  auto params = model->parameters();  // w1, b1, w2, b2
  return {{params[0], params[1]}, optimizer.options(0.05)};
}

torch::optim::OptimizerParamGroup lastLayer(torch::nn::Sequential& model,
                                            const OptimizerCase& optimizer) {
  auto params = model->parameters();
  return {{params[2], params[3]}, optimizer.options(0.02)};
}

std::vector<torch::optim::OptimizerParamGroup> twoGroups(
    torch::nn::Sequential& model, const OptimizerCase& optimizer) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.push_back(firstLayer(model, optimizer));
  groups.push_back(lastLayer(model, optimizer));
  return groups;
}

void expectSameParameters(const std::vector<at::Tensor>& actual,
                          const std::vector<at::Tensor>& expected,
                          double tolerance) {
  fixtures::expectSameTensors(actual, expected, tolerance);
}

std::vector<at::Tensor> trainWithDdp(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank, int steps,
    const std::function<StepFn(torch::nn::Sequential&)>& makeStep) {
  return trainWithDdp(pg, rank, steps, makeStep, fixtures::oneBucketMlp());
}

std::vector<at::Tensor> trainWithDdp(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank, int steps,
    const std::function<StepFn(torch::nn::Sequential&)>& makeStep,
    const fixtures::BucketedModel& bucketed) {
  auto model = bucketed.make(/*seed=*/1);
  distalgo::ddp::DistributedDataParallel ddp(
      model, pg,
      {.bucket_cap_mb = bucketed.bucket_cap_mb,
       .first_bucket_cap_bytes = bucketed.first_bucket_cap_bytes});
  const StepFn step = makeStep(model);
  for (int i = 0; i < steps; ++i) {
    distalgo::ddp::zeroGradients(*model);
    const auto b = fixtures::rankBatch(i, rank, kParityRows, bucketed.inputs,
                                       bucketed.outputs);
    torch::nn::functional::mse_loss(ddp.forward(b.input), b.target).backward();
    step();
  }
  return fixtures::snapshot(*model);
}

}  // namespace zero_suite
