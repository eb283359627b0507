#pragma once

// Shared pieces of the ZeRO suite: optimizer cases, two parameter groups
// with different learning rates over the MLP, and a DDP training loop.

#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/bucketed_models.h"

namespace zero_suite {

// A libtorch optimizer type: its factory and options with a given lr.
struct OptimizerCase {
  std::string name;
  distalgo::zero::LocalOptimizerFactory factory;
  std::function<std::unique_ptr<torch::optim::OptimizerOptions>(double lr)>
      options;
  // Largest elementwise difference allowed between ZeRO and the plain
  // optimizer after training (0: bit for bit).
  double tolerance;
};

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

// Expects the lists equal: bit for bit when `tolerance` is 0, elementwise
// within it otherwise.
void expectSameParameters(const std::vector<at::Tensor>& actual,
                          const std::vector<at::Tensor>& expected,
                          double tolerance);

// Trains the MLP (same seed on every rank) under DDP for `steps` steps on
// fixtures::rankBatch; `step` runs the optimizer after each backward.
// Returns the final parameters.
using StepFn = std::function<void()>;
std::vector<at::Tensor> trainWithDdp(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank, int steps,
    const std::function<StepFn(torch::nn::Sequential&)>& makeStep);
// The same for a model of several buckets, at its caps.
std::vector<at::Tensor> trainWithDdp(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank, int steps,
    const std::function<StepFn(torch::nn::Sequential&)>& makeStep,
    const fixtures::BucketedModel& model);

}  // namespace zero_suite
