// ZeroRedundancyOptimizer's state dict (PyTorch's consolidate_state_dict,
// state_dict, load_state_dict) in libtorch's optimizer archive format. Every
// step goes through a plain optimizer of the local type over all groups,
// built with the factory, so any libtorch optimizer type works and reads
// and writes its own state types.

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "internal/check.h"
#include "zero/internal/gather_bytes.h"
#include "zero/internal/optimizer_archive.h"

namespace distalgo::zero {
namespace {

constexpr const char* kZeroStateDict =
    "distalgo::zero::ZeroRedundancyOptimizer::";

// A plain optimizer over every group, with the local groups' options.
std::unique_ptr<torch::optim::Optimizer> fullOptimizer(
    const LocalOptimizerFactory& factory,
    const std::vector<std::vector<at::Tensor>>& groups,
    const torch::optim::Optimizer& local) {
  std::vector<torch::optim::OptimizerParamGroup> full;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    full.emplace_back(groups[g], local.param_groups()[g].options().clone());
  }
  return factory(std::move(full));
}

}  // namespace

void ZeroRedundancyOptimizer::consolidateStateDict(int to) {
  refuseUnderOverlap("consolidateStateDict()");
  DISTALGO_CHECK_ARG(to >= 0 && to < world_size_, kZeroStateDict,
                     "consolidateStateDict: rank ", to, " is not in [0, ",
                     world_size_, ") (on rank ", rank_, ")");
  // This rank's shard, written against all groups: a load by position then
  // places it, and the receiver needs no knowledge of who owns what.
  std::vector<internal::ArchiveGroup> groups;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    groups.push_back({groups_[g], &local_->param_groups()[g].options()});
  }
  std::vector<at::Tensor> owned;
  for (const auto& entry : partition_[rank_]) owned.push_back(entry.parameter);
  const auto shards = internal::gatherBytes(
      pg_, internal::writeArchive(groups, local_->state(), owned), to);

  consolidated_.reset();
  if (rank_ != to) return;
  auto full = fullOptimizer(factory_, groups_, *local_);
  // Each load sets the states its shard has and keeps the others' (and
  // sets the options of the shard's writer: not what is written below).
  // On the CPU, as PyTorch consolidates: the shards' tensors were saved on
  // their ranks' devices.
  for (const auto& shard : shards) {
    internal::loadOptimizer(*full, shard, c10::Device(c10::kCPU));
  }
  std::vector<at::Tensor> all;
  for (const auto& group : groups_)
    all.insert(all.end(), group.begin(), group.end());
  // As the shards were written: decimal names on every libtorch, and this
  // rank's options, as PyTorch's state_dict() takes its own param_groups.
  consolidated_ = Consolidated{
      state_version_, internal::writeArchive(groups, full->state(), all)};
}

std::string ZeroRedundancyOptimizer::stateDict() const {
  DISTALGO_CHECK_STATE(consolidated_, kZeroStateDict, "stateDict: rank ", rank_,
                       " holds no consolidated state; call "
                       "consolidateStateDict(",
                       rank_, ") on every rank first");
  DISTALGO_CHECK_STATE(consolidated_->version == state_version_, kZeroStateDict,
                       "stateDict: the state consolidated on rank ", rank_,
                       " is stale (step(), addParamGroup() or loadStateDict() "
                       "ran since); call consolidateStateDict() again");
  return consolidated_->bytes;
}

void ZeroRedundancyOptimizer::loadStateDict(const std::string& state) {
  refuseUnderOverlap("loadStateDict()");
  std::vector<at::Tensor> owned;
  for (const auto& entry : partition_[rank_]) owned.push_back(entry.parameter);
  std::optional<internal::LoadedPerDevice> full;
  std::vector<std::unique_ptr<torch::optim::OptimizerOptions>> options;
  try {
    internal::checkArchiveFits(state, groups_);
    full.emplace(owned, state,
                 [&] { return fullOptimizer(factory_, groups_, *local_); });
    options = internal::readGroupOptions(state, *local_);
  } catch (const std::invalid_argument& e) {
    // The archive helpers say what is wrong; this names who refused it.
    DISTALGO_CHECK_ARG(false, kZeroStateDict, "loadStateDict on rank ", rank_,
                       ": ", e.what());
  }
  // Nothing above changed this optimizer; now keep this rank's shard.
  for (const auto& parameter : owned) {
    const auto key = internal::stateKey(parameter);
    auto& loaded = full->of(parameter).state();
    const auto found = loaded.find(key);
    if (found == loaded.end()) {
      local_->state().erase(key);
    } else {
      local_->state()[key] = std::move(found->second);
    }
  }
  for (std::size_t g = 0; g < options.size(); ++g) {
    local_->param_groups()[g].set_options(std::move(options[g]));
  }
  ++state_version_;
}

}  // namespace distalgo::zero
