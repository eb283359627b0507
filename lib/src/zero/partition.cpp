#include "distalgo/zero/partition.h"

#include <algorithm>
#include <numeric>

#include "internal/check.h"

namespace distalgo::zero {

std::vector<std::vector<int>> assignOwners(
    const std::vector<std::vector<std::int64_t>>& numels, int world_size) {
  DISTALGO_CHECK_ARG(
      world_size >= 1,
      "distalgo::zero::assignOwners: world_size must be at least 1, got ",
      world_size);
  std::vector<std::int64_t> load(world_size, 0);
  std::vector<std::vector<int>> owners;
  owners.reserve(numels.size());
  for (const auto& sizes : numels) {
    std::vector<std::size_t> order(sizes.size());
    std::iota(order.begin(), order.end(), 0);
    // Stable, so equal sizes keep their order and every rank agrees.
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return sizes[a] > sizes[b]; });
    std::vector<int> group_owners(sizes.size());
    for (const auto index : order) {
      // min_element returns the first minimum: ties go to the lowest rank.
      const auto rank = static_cast<int>(
          std::min_element(load.begin(), load.end()) - load.begin());
      group_owners[index] = rank;
      load[rank] += sizes[index];
    }
    owners.push_back(std::move(group_owners));
  }
  return owners;
}

std::vector<std::vector<ShardEntry>> partitionParameters(
    const std::vector<std::vector<at::Tensor>>& groups, int world_size) {
  std::vector<std::vector<std::int64_t>> numels;
  numels.reserve(groups.size());
  for (const auto& group : groups) {
    auto& sizes = numels.emplace_back();
    for (const auto& p : group) sizes.push_back(p.numel());
  }
  const auto owners = assignOwners(numels, world_size);
  std::vector<std::vector<ShardEntry>> shards(world_size);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t i = 0; i < groups[g].size(); ++i) {
      shards[owners[g][i]].push_back({g, groups[g][i]});
    }
  }
  return shards;
}

}  // namespace distalgo::zero
