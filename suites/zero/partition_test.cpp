// The greedy partition without processes: sizes sorted descending go to the
// least-loaded rank, ties to the lowest, totals carried across groups.

#include "distalgo/zero/partition.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace zero_suite {
namespace {

using distalgo::zero::assignOwners;
using distalgo::zero::partitionParameters;
using Owners = std::vector<std::vector<int>>;

TEST(ZeroPartition, LargestGoesToLeastLoadedRank) {
  // 9 -> 0, 7 -> 1, 5 -> 1 (7 < 9), 3 -> 0 (9 < 12): 12 each.
  EXPECT_EQ(assignOwners({{9, 7, 5, 3}}, 2), (Owners{{0, 1, 1, 0}}));
}

TEST(ZeroPartition, TiesGoToTheLowestRankAndEqualSizesKeepTheirOrder) {
  EXPECT_EQ(assignOwners({{4, 4, 4}}, 3), (Owners{{0, 1, 2}}));
  // 5 -> 0; then both 2s, first to last, go to the lighter rank 1.
  EXPECT_EQ(assignOwners({{2, 5, 2}}, 2), (Owners{{1, 0, 1}}));
}

TEST(ZeroPartition, LoadsCarryOverBetweenGroups) {
  EXPECT_EQ(assignOwners({{10}, {3, 3}}, 2), (Owners{{0}, {1, 1}}));
  // An earlier group's assignment never depends on later groups.
  EXPECT_EQ(assignOwners({{10}, {3, 3}, {20}}, 2)[0], (std::vector<int>{0}));
}

// PyTorch's test_sharding: sizes [9, 7, 5, 3] repeated W times give every
// rank 24 elements.
TEST(ZeroPartition, PyTorchShardingCaseIsPerfectlyBalanced) {
  for (int world_size : {1, 2, 3, 4, 5}) {
    std::vector<at::Tensor> group;
    for (int copy = 0; copy < world_size; ++copy) {
      for (int size : {9, 7, 5, 3}) group.push_back(at::zeros({size}));
    }
    const auto shards = partitionParameters({group}, world_size);
    ASSERT_EQ(shards.size(), static_cast<std::size_t>(world_size));
    for (const auto& shard : shards) {
      std::int64_t numel = 0;
      for (const auto& entry : shard) numel += entry.parameter.numel();
      EXPECT_EQ(numel, 24) << "world size " << world_size;
    }
  }
}

TEST(ZeroPartition, EveryParameterOnExactlyOneRankInOriginalOrder) {
  std::vector<std::vector<at::Tensor>> groups(3);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (int i = 0; i < 7; ++i) {
      groups[g].push_back(at::zeros({1 + (i * 5 + static_cast<int>(g)) % 6}));
    }
  }
  const int world_size = 3;
  const auto shards = partitionParameters(groups, world_size);
  std::vector<std::vector<int>> count(groups.size(), std::vector<int>(7, 0));
  for (const auto& shard : shards) {
    std::vector<int> last(groups.size(), -1);
    std::size_t last_group = 0;
    for (const auto& entry : shard) {
      ASSERT_LT(entry.group, groups.size());
      EXPECT_GE(entry.group, last_group) << "groups out of order";
      last_group = entry.group;
      const auto& group = groups[entry.group];
      int index = -1;
      for (std::size_t i = 0; i < group.size(); ++i) {
        if (group[i].is_same(entry.parameter)) index = static_cast<int>(i);
      }
      ASSERT_GE(index, 0) << "unknown parameter";
      EXPECT_GT(index, last[entry.group]) << "parameters out of order";
      last[entry.group] = index;
      ++count[entry.group][index];
    }
  }
  for (const auto& group : count) {
    EXPECT_THAT(group, testing::Each(1));
  }
}

TEST(ZeroPartition, IsDeterministic) {
  const std::vector<std::vector<std::int64_t>> sizes{{5, 1, 5, 8, 2, 2},
                                                     {7, 7, 3}};
  EXPECT_EQ(assignOwners(sizes, 4), assignOwners(sizes, 4));
}

TEST(ZeroPartition, RefusesWorldSizeBelowOne) {
  EXPECT_THAT([] { assignOwners({{1}}, 0); },
              testing::ThrowsMessage<std::invalid_argument>(
                  testing::HasSubstr("world_size must be at least 1")));
}

}  // namespace
}  // namespace zero_suite
