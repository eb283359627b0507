#pragma once

// PyTorch's ZeroRedundancyOptimizer partition: which rank owns (updates and
// broadcasts) each parameter. Pure computation, identical on every rank.

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace distalgo::zero {

// One parameter of a rank's shard and the parameter group it came from.
struct ShardEntry {
  std::size_t group;
  at::Tensor parameter;
};

// The owner rank of every element of `numels` ([group][index] -> rank).
// Group by group, each group's sizes sorted descending (stable) go to the
// rank with the smallest running total; totals carry over between groups and
// ties go to the lowest rank. Throws std::invalid_argument if world_size < 1.
std::vector<std::vector<int>> assignOwners(
    const std::vector<std::vector<std::int64_t>>& numels, int world_size);

// assignOwners over the groups' parameters: per rank, the (group, parameter)
// pairs it owns, groups in order and parameters in their original order.
std::vector<std::vector<ShardEntry>> partitionParameters(
    const std::vector<std::vector<at::Tensor>>& groups, int world_size);

}  // namespace distalgo::zero
