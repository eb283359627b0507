#include "algorithms/ddp_mode.h"

#include <ATen/ATen.h>
#include <torch/optim/sgd.h>

#include <memory>

namespace bench {

DdpMode::DdpMode(const Model& model, const ranktest::Rank& rank, int rows,
                 const distalgo::ddp::DdpOptions& options)
    : group_(c10::make_intrusive<ranktest::CountingProcessGroup>(rank.pg)),
      store_(rank.store),
      ddp_(model.make(), group_, options),
      batches_(rankBatches(model, rank.rank, rows)) {}

void DdpMode::setOptimizerStep(std::function<void()> step) {
  optimizer_step_ = std::move(step);
}

void DdpMode::addRankValue(std::string metric, std::function<double()> read) {
  values_.emplace_back(std::move(metric), std::move(read));
}

void DdpMode::step(int index) {
  const fixtures::Batch& batch = batches_[index % batches_.size()];
  distalgo::ddp::zeroGradients(*ddp_.module());
  at::mse_loss(ddp_.forward(batch.input), batch.target).backward();
  if (optimizer_step_) optimizer_step_();
  ++timed_steps_;
}

void DdpMode::startTiming() {
  group_->reset();
  timed_steps_ = 0;
}

std::vector<RankValue> DdpMode::rankValues() {
  const double steps = std::max(timed_steps_, 1);
  std::vector<RankValue> values;
  for (const auto& [collective, traffic] : group_->allTraffic()) {
    values.push_back({"sent_bytes:" + collective, traffic.bytes / steps});
    values.push_back({"calls:" + collective, traffic.calls / steps});
  }
  for (const auto& [metric, read] : values_) values.push_back({metric, read()});
  return values;
}

void useSgd(DdpMode& mode, double learning_rate) {
  auto sgd = std::make_shared<torch::optim::SGD>(
      mode.ddp().module()->parameters(),
      torch::optim::SGDOptions(learning_rate));
  mode.setOptimizerStep([sgd] { sgd->step(); });
}

}  // namespace bench
