#include "ddp_mlp.h"

#include <torch/nn/functional/loss.h>

#include <utility>

#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"

namespace averaging_suite {
namespace {

constexpr int kRows = 6;

}  // namespace

DdpMlp::DdpMlp(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank,
               distalgo::ddp::CommHook hook)
    : rank_(rank), model_(fixtures::makeMlp(/*seed=*/1)) {
  ddp_ = std::make_unique<
      distalgo::ddp::DistributedDataParallel<torch::nn::Sequential>>(model_,
                                                                     pg);
  if (hook) ddp_->registerCommHook(std::move(hook));
}

void DdpMlp::backward(int step) {
  distalgo::ddp::zeroGradients(*model_);
  const auto b = fixtures::rankBatch(step, rank_, kRows, fixtures::kMlpInputs,
                                     fixtures::kMlpOutputs);
  torch::nn::functional::mse_loss(ddp_->forward(b.input), b.target).backward();
}

std::vector<at::Tensor> DdpMlp::parameterValues() const {
  return fixtures::snapshot(*model_);
}

std::vector<at::Tensor> DdpMlp::gradientValues() const {
  std::vector<at::Tensor> out;
  for (const auto& p : model_->parameters()) out.push_back(p.grad().clone());
  return out;
}

}  // namespace averaging_suite
