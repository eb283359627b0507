// Subgroups on Gloo: who gets a group, that it works, that nested groups of
// disjoint groups do not collide, and which group sizes are refused.

#include "distalgo/groups/subgroups.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "averaging_util.h"
#include "distalgo/groups/subgroup_provider.h"
#include "ranktest/ranktest.h"

namespace averaging_suite {
namespace {

using distalgo::groups::newGroup;
using distalgo::groups::newSubgroups;
using distalgo::groups::SubgroupProvider;

// The sum over `group` of every member's global rank.
int sumOfRanks(const c10::intrusive_ptr<c10d::ProcessGroup>& group,
               int global_rank) {
  std::vector<at::Tensor> t{at::full({1}, global_rank, at::kInt)};
  group->allreduce(t)->wait();
  return t[0].item<int>();
}

class AveragingSubgroups : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }
};

RANKTEST_F(AveragingSubgroups, NewGroupGivesMembersAWorkingGroup) {
  const int last = worldSize() - 1;
  // Unsorted on purpose: group ranks follow the sorted global ranks.
  const auto group = newGroup(store(), pg(), {last, 0});
  if (rank() != 0 && rank() != last) {
    EXPECT_FALSE(group);
    return;
  }
  ASSERT_TRUE(group);
  EXPECT_EQ(group->getSize(), 2);
  EXPECT_EQ(group->getRank(), rank() == 0 ? 0 : 1);
  EXPECT_EQ(sumOfRanks(group, rank()), last);
}

RANKTEST_F(AveragingSubgroups, NewSubgroupsSplitsConsecutiveRanks,
           ranktest::worldSizes({4})) {
  for (const int size : {1, 2, 4}) {
    SCOPED_TRACE(size);
    const auto group = newSubgroups(store(), pg(), size);
    ASSERT_TRUE(group);
    EXPECT_EQ(group->getSize(), size);
    EXPECT_EQ(group->getRank(), rank() % size);
    const int first = rank() / size * size;
    EXPECT_EQ(sumOfRanks(group, rank()), size * first + size * (size - 1) / 2);
  }
}

// Both halves create a pair inside their own half at the same time: the two
// pairs must get different store prefixes, or their rendezvous would mix.
RANKTEST_F(AveragingSubgroups, NestedGroupsOfDisjointGroupsStayApart,
           ranktest::worldSizes({4})) {
  const auto half = newSubgroups(store(), pg(), 2);
  const auto pair = newGroup(store(), half, {0, 1});
  ASSERT_TRUE(pair);
  EXPECT_EQ(sumOfRanks(pair, rank()), rank() < 2 ? 1 : 5);
  EXPECT_EQ(sumOfRanks(pg(), rank()), 6);
}

RANKTEST_F(AveragingSubgroups, NewSubgroupsRejectsBadGroupSizes,
           ranktest::worldSizes({4})) {
  for (const int size : {0, -1, 3, 5}) {
    SCOPED_TRACE(size);
    expectInvalidArgument([&] { newSubgroups(store(), pg(), size); },
                          "newSubgroups: expected a group size in [1, 4] that "
                          "divides the world size 4");
  }
  // The refusals sent nothing: the group still works.
  EXPECT_EQ(sumOfRanks(pg(), rank()), 6);
}

RANKTEST_F(AveragingSubgroups, NewGroupRejectsBadRanks) {
  expectInvalidArgument([&] { newGroup(store(), pg(), {}); },
                        "expected at least one rank, got none");
  expectInvalidArgument(
      [&] {
        newGroup(store(), pg(), {0, worldSize()});
      },
      "expected ranks in [0, ");
  expectInvalidArgument([&] { newGroup(store(), pg(), {-1}); },
                        "expected ranks in [0, ");
  expectInvalidArgument(
      [&] {
        newGroup(store(), pg(), {1, 0, 1});
      },
      "expected distinct ranks, got 1 twice");
}

RANKTEST_F(AveragingSubgroups, ProviderCreatesItsGroupOnFirstUseOnly,
           ranktest::worldSizes({4})) {
  // Built before it sees any process group, as a hook state is.
  SubgroupProvider provider(2);
  EXPECT_FALSE(provider.created());
  const auto group = provider.get(store(), pg());
  EXPECT_TRUE(provider.created());
  ASSERT_TRUE(group);
  EXPECT_EQ(group->getSize(), 2);
  EXPECT_EQ(sumOfRanks(group, rank()), rank() < 2 ? 1 : 5);
  // The same group again, with no collective: only some ranks ask.
  if (rank() == 0) {
    EXPECT_EQ(provider.get(store(), pg()).get(), group.get());
  }
}

RANKTEST_F(AveragingSubgroups, ProviderDefaultsToTheNode,
           ranktest::worldSizes({4})) {
  // Each rank is its own process: its environment is its own. A reused
  // process runs later tests, so the variable is restored at the end.
  const char* saved = std::getenv("LOCAL_WORLD_SIZE");
  const std::optional<std::string> previous =
      saved ? std::optional<std::string>(saved) : std::nullopt;
  ::unsetenv("LOCAL_WORLD_SIZE");
  EXPECT_EQ(SubgroupProvider().get(store(), pg())->getSize(), 4);
  ::setenv("LOCAL_WORLD_SIZE", "2", 1);
  EXPECT_EQ(SubgroupProvider().get(store(), pg())->getSize(), 2);
  ::setenv("LOCAL_WORLD_SIZE", "two", 1);
  expectInvalidArgument([&] { SubgroupProvider().get(store(), pg()); },
                        "expected LOCAL_WORLD_SIZE to be a number, got 'two'");
  // An explicit size wins over the environment.
  EXPECT_EQ(SubgroupProvider(1).get(store(), pg())->getSize(), 1);
  if (previous) {
    ::setenv("LOCAL_WORLD_SIZE", previous->c_str(), 1);
  } else {
    ::unsetenv("LOCAL_WORLD_SIZE");
  }
}

RANKTEST_F(AveragingSubgroups, ProviderOfAGroupReturnsIt) {
  auto provider = SubgroupProvider::of(pg());
  EXPECT_TRUE(provider.created());
  EXPECT_EQ(provider.get(store(), pg()).get(), pg().get());
}

}  // namespace
}  // namespace averaging_suite
