#include "distalgo/zero/zero_redundancy_optimizer.h"

#include <ATen/ATen.h>

#include <map>
#include <string>
#include <tuple>
#include <unordered_set>

#include "distalgo/join/join.h"
#include "internal/check.h"
#include "internal/same_parameters.h"

namespace distalgo::zero {
namespace {

constexpr const char* kZeroOptimizer =
    "distalgo::zero::ZeroRedundancyOptimizer: ";

// Throws if a parameter of `group` (number `g`) is undefined or already in
// `seen`; adds the group's parameters to `seen`.
std::vector<at::Tensor> checkedGroup(
    const torch::optim::OptimizerParamGroup& group, std::size_t g,
    std::unordered_set<const c10::TensorImpl*>& seen) {
  std::vector<at::Tensor> parameters;
  for (std::size_t i = 0; i < group.params().size(); ++i) {
    const auto& p = group.params()[i];
    DISTALGO_CHECK_ARG(p.defined(), kZeroOptimizer, "parameter ", i,
                       " of group ", g, " is undefined");
    const bool first_seen = seen.insert(p.unsafeGetTensorImpl()).second;
    DISTALGO_CHECK_ARG(first_seen, kZeroOptimizer, "parameter ", i,
                       " of group ", g,
                       " already appears in an earlier group or earlier in "
                       "this one");
    parameters.push_back(p);
  }
  return parameters;
}

std::unordered_set<const c10::TensorImpl*> known(
    const std::vector<std::vector<at::Tensor>>& groups) {
  std::unordered_set<const c10::TensorImpl*> seen;
  for (const auto& group : groups) {
    for (const auto& p : group) seen.insert(p.unsafeGetTensorImpl());
  }
  return seen;
}

}  // namespace

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(
    const std::vector<torch::optim::OptimizerParamGroup>& groups,
    c10::intrusive_ptr<c10d::ProcessGroup> pg, LocalOptimizerFactory factory,
    ZeroOptions options)
    : pg_(std::move(pg)), options_(options) {
  DISTALGO_CHECK_ARG(pg_, kZeroOptimizer, "null group");
  DISTALGO_CHECK_ARG(factory, kZeroOptimizer, "no local optimizer factory");
  DISTALGO_CHECK_ARG(
      !(options_.overlap_with_ddp && options_.parameters_as_bucket_view),
      kZeroOptimizer,
      "overlap_with_ddp does not support parameters_as_bucket_view: the "
      "overlapped step broadcasts DDP's buckets, not this rank's shard");
  rank_ = pg_->getRank();
  world_size_ = pg_->getSize();
  std::unordered_set<const c10::TensorImpl*> seen;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    groups_.push_back(checkedGroup(groups[g], g, seen));
  }
  DISTALGO_CHECK_ARG(!seen.empty(), kZeroOptimizer,
                     "got an empty parameter list");
  repartition();

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
  factory_ = std::move(factory);
  local_ = factory_(std::move(local_groups));
  DISTALGO_CHECK_ARG(local_, kZeroOptimizer,
                     "the factory returned no optimizer");
}

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(
    const std::vector<at::Tensor>& parameters,
    c10::intrusive_ptr<c10d::ProcessGroup> pg, LocalOptimizerFactory factory,
    ZeroOptions options)
    : ZeroRedundancyOptimizer(
          std::vector<torch::optim::OptimizerParamGroup>{
              torch::optim::OptimizerParamGroup(parameters)},
          std::move(pg), std::move(factory), options) {}

void ZeroRedundancyOptimizer::addParamGroup(
    const torch::optim::OptimizerParamGroup& group) {
  // DDP's buckets, which the overlap partitions, hold the model's parameters
  // only.
  refuseUnderOverlap("addParamGroup()");
  auto seen = known(groups_);
  groups_.push_back(checkedGroup(group, groups_.size(), seen));
  try {
    repartition();
  } catch (...) {
    groups_.pop_back();  // leave the optimizer as it was
    throw;
  }
  // Rebuilt rather than extended: some libtorch optimizers (Adagrad) create
  // their state in the constructor and cannot step a group added later.
  std::vector<torch::optim::OptimizerParamGroup> local_groups;
  for (const auto& local : local_->param_groups()) {
    local_groups.emplace_back(local.params(), local.options().clone());
  }
  auto& added = local_groups.emplace_back(
      std::vector<at::Tensor>{},
      group.has_options() ? group.options().clone() : nullptr);
  for (const auto& entry : partition_[rank_]) {
    if (entry.group == groups_.size() - 1) {
      added.params().push_back(entry.parameter);
    }
  }
  auto rebuilt = factory_(std::move(local_groups));
  // The state is keyed by parameter, and the parameters are the same.
  for (const auto& [key, state] : local_->state()) {
    rebuilt->state()[key] = state->clone();
  }
  local_ = std::move(rebuilt);
  ++state_version_;
}

void ZeroRedundancyOptimizer::repartition() {
  std::vector<at::Tensor> flat;
  std::vector<std::string> names;
  std::vector<std::int64_t> group_sizes;
  std::vector<std::vector<std::int64_t>> numels;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    group_sizes.push_back(static_cast<std::int64_t>(groups_[g].size()));
    auto& sizes = numels.emplace_back();
    for (std::size_t i = 0; i < groups_[g].size(); ++i) {
      flat.push_back(groups_[g][i]);
      names.push_back("group " + std::to_string(g) + ", parameter " +
                      std::to_string(i));
      sizes.push_back(groups_[g][i].numel());
    }
  }
  distalgo::internal::checkSameParametersOnEveryRank(
      pg_, flat, names, "distalgo::zero::ZeroRedundancyOptimizer", group_sizes);

  const auto owners = assignOwners(numels, world_size_);
  partition_.assign(world_size_, {});
  broadcasts_.clear();
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    for (std::size_t i = 0; i < groups_[g].size(); ++i) {
      partition_[owners[g][i]].push_back({g, groups_[g][i]});
      if (!options_.parameters_as_bucket_view) {
        broadcasts_.push_back({groups_[g][i], owners[g][i]});
      }
    }
  }
  if (options_.parameters_as_bucket_view) buildBucketViews();
}

void ZeroRedundancyOptimizer::buildBucketViews() {
  at::NoGradGuard no_grad;
  for (int owner = 0; owner < world_size_; ++owner) {
    // One buffer per (device, dtype), in the order the shard first uses
    // them: the same on every rank.
    using Key = std::tuple<int, int, int>;  // device type, index, dtype
    std::map<Key, std::size_t> bucket_of;
    std::vector<std::vector<at::Tensor>> buckets;
    for (const auto& entry : partition_[owner]) {
      const auto& p = entry.parameter;
      const Key key{static_cast<int>(p.device().type()), p.device().index(),
                    static_cast<int>(p.scalar_type())};
      const auto [it, added] = bucket_of.emplace(key, buckets.size());
      if (added) buckets.emplace_back();
      buckets[it->second].push_back(p);
    }
    for (const auto& parameters : buckets) {
      std::int64_t total = 0;
      for (const auto& p : parameters) total += p.numel();
      at::Tensor buffer = at::empty({total}, parameters[0].options());
      std::int64_t offset = 0;
      for (const auto& p : parameters) {
        at::Tensor view = buffer.narrow(0, offset, p.numel()).view(p.sizes());
        view.copy_(p.detach());
        // Same TensorImpl, new storage: holders of the parameter keep it.
        at::Tensor(p).set_data(view);
        offset += p.numel();
      }
      broadcasts_.push_back({buffer, owner});
    }
  }
}

at::Tensor ZeroRedundancyOptimizer::step(
    torch::optim::Optimizer::LossClosure closure) {
  refuseUnderOverlap("step()");
  // Under a Join (ZeRO first or alone): this rank still trains. Waited on
  // before returning, so no heartbeat is in flight if this rank then leaves.
  const auto heartbeat = join::Join::notifyJoinContext(*this);
  at::Tensor loss = local_->step(std::move(closure));
  ++state_version_;
  broadcastShards();
  if (heartbeat) heartbeat->wait();
  return loss;
}

void ZeroRedundancyOptimizer::refuseUnderOverlap(const char* what) const {
  DISTALGO_CHECK_STATE(!options_.overlap_with_ddp, kZeroOptimizer, what,
                       " on rank ", rank_,
                       ": built with overlap_with_ddp, so the DDP hook "
                       "(distalgo/zero/overlap.h) steps it; this is not "
                       "supported");
}

bool ZeroRedundancyOptimizer::attachOverlap(
    OverlapKey /*key*/, std::weak_ptr<internal::OverlapState> hook_state) {
  if (overlap_hooked_) return false;
  overlap_hooked_ = true;
  overlap_state_ = std::move(hook_state);
  return true;
}

void ZeroRedundancyOptimizer::broadcastShards() {
  // All broadcasts in flight at once, then wait: the same global order on
  // every rank keeps them matched.
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  works.reserve(broadcasts_.size());
  for (const auto& [tensor, owner] : broadcasts_) {
    std::vector<at::Tensor> tensors{tensor.detach()};
    c10d::BroadcastOptions options;
    options.rootRank = owner;
    works.push_back(pg_->broadcast(tensors, options));
  }
  for (auto& work : works) work->wait();
}

}  // namespace distalgo::zero
