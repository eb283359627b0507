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
    : DdpMlp(pg, rank, std::move(hook), fixtures::oneBucketMlp()) {}

DdpMlp::DdpMlp(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank,
               distalgo::ddp::CommHook hook,
               const fixtures::BucketedModel& model)
    : rank_(rank), features_(model.inputs), model_(model.make(/*seed=*/1)) {
  ddp_ = std::make_unique<
      distalgo::ddp::DistributedDataParallel<torch::nn::Sequential>>(
      model_, pg,
      distalgo::ddp::DdpOptions{
          .bucket_cap_mb = model.bucket_cap_mb,
          .first_bucket_cap_bytes = model.first_bucket_cap_bytes});
  if (hook) ddp_->registerCommHook(std::move(hook));
}

void DdpMlp::backward(int step) {
  distalgo::ddp::zeroGradients(*model_);
  const auto b =
      fixtures::rankBatch(step, rank_, kRows, features_, fixtures::kMlpOutputs);
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
