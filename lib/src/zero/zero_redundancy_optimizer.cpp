#include "distalgo/zero/zero_redundancy_optimizer.h"

#include <stdexcept>
#include <string>
#include <unordered_set>

namespace distalgo::zero {
namespace {

constexpr const char* kWhere = "distalgo::zero::ZeroRedundancyOptimizer: ";

std::vector<std::vector<at::Tensor>> checkedParameters(
    const std::vector<torch::optim::OptimizerParamGroup>& groups) {
  std::vector<std::vector<at::Tensor>> parameters;
  std::unordered_set<const c10::TensorImpl*> seen;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto& group = parameters.emplace_back();
    for (std::size_t i = 0; i < groups[g].params().size(); ++i) {
      const auto& p = groups[g].params()[i];
      const auto where =
          "parameter " + std::to_string(i) + " of group " + std::to_string(g);
      if (!p.defined()) {
        throw std::invalid_argument(kWhere + where + " is undefined");
      }
      if (!seen.insert(p.unsafeGetTensorImpl()).second) {
        throw std::invalid_argument(kWhere + where +
                                    " already appears in an earlier group or "
                                    "earlier in this one");
      }
      group.push_back(p);
    }
  }
  if (seen.empty()) {
    throw std::invalid_argument(std::string(kWhere) +
                                "got an empty parameter list");
  }
  return parameters;
}

}  // namespace

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(
    const std::vector<torch::optim::OptimizerParamGroup>& groups,
    c10::intrusive_ptr<c10d::ProcessGroup> pg, LocalOptimizerFactory factory)
    : pg_(std::move(pg)) {
  if (!pg_) throw std::invalid_argument(std::string(kWhere) + "null group");
  if (!factory) {
    throw std::invalid_argument(std::string(kWhere) +
                                "no local optimizer factory");
  }
  rank_ = pg_->getRank();
  world_size_ = pg_->getSize();
  const auto parameters = checkedParameters(groups);
  std::vector<std::vector<std::int64_t>> numels;
  for (const auto& group : parameters) {
    auto& sizes = numels.emplace_back();
    for (const auto& p : group) sizes.push_back(p.numel());
  }
  const auto owners = assignOwners(numels, world_size_);
  partition_.resize(world_size_);
  for (std::size_t g = 0; g < parameters.size(); ++g) {
    for (std::size_t i = 0; i < parameters[g].size(); ++i) {
      partition_[owners[g][i]].push_back({g, parameters[g][i]});
      owned_.push_back({parameters[g][i], owners[g][i]});
    }
  }

  // One local group per global group, even empty, so indices match and each
  // keeps its options.
  std::vector<torch::optim::OptimizerParamGroup> local_groups;
  for (const auto& group : groups) {
    local_groups.emplace_back(
        std::vector<at::Tensor>{},
        group.has_options() ? group.options().clone() : nullptr);
  }
  for (const auto& entry : partition_[rank_]) {
    local_groups[entry.group].params().push_back(entry.parameter);
  }
  local_ = factory(std::move(local_groups));
  if (!local_) {
    throw std::invalid_argument(std::string(kWhere) +
                                "the factory returned no optimizer");
  }
}

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(
    const std::vector<at::Tensor>& parameters,
    c10::intrusive_ptr<c10d::ProcessGroup> pg, LocalOptimizerFactory factory)
    : ZeroRedundancyOptimizer(
          std::vector<torch::optim::OptimizerParamGroup>{
              torch::optim::OptimizerParamGroup(parameters)},
          std::move(pg), std::move(factory)) {}

at::Tensor ZeroRedundancyOptimizer::step(
    torch::optim::Optimizer::LossClosure closure) {
  at::Tensor loss = local_->step(std::move(closure));
  broadcastShards();
  return loss;
}

void ZeroRedundancyOptimizer::broadcastShards() {
  // All broadcasts in flight at once, then wait: the same global order on
  // every rank keeps them matched.
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  works.reserve(owned_.size());
  for (const auto& [parameter, owner] : owned_) {
    std::vector<at::Tensor> tensors{parameter.detach()};
    c10d::BroadcastOptions options;
    options.rootRank = owner;
    works.push_back(pg_->broadcast(tensors, options));
  }
  for (auto& work : works) work->wait();
}

}  // namespace distalgo::zero
