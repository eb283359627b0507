// Node layouts worked out from each rank's host: blocks as torchrun and
// mpirun's default place them, round-robin, uneven nodes.

#include "job/node_layout.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ranktest::internal::NodeLayout;
using ranktest::internal::nodeLayoutOf;

struct Place {
  int node_rank, local_rank, local_world_size;
};

std::vector<Place> places(const std::vector<std::string>& hosts) {
  std::vector<Place> out;
  for (int r = 0; r < static_cast<int>(hosts.size()); ++r) {
    const NodeLayout l = nodeLayoutOf(hosts, r);
    out.push_back({l.node_rank, l.local_rank, l.local_world_size});
  }
  return out;
}

bool operator==(const Place& a, const Place& b) {
  return a.node_rank == b.node_rank && a.local_rank == b.local_rank &&
         a.local_world_size == b.local_world_size;
}

TEST(HarnessNodeLayout, TwoNodesOfTwoConsecutiveRanksAreBlocks) {
  const std::vector<std::string> hosts{"10.0.0.1", "10.0.0.1", "10.0.0.2",
                                       "10.0.0.2"};
  EXPECT_EQ(places(hosts),
            (std::vector<Place>{{0, 0, 2}, {0, 1, 2}, {1, 0, 2}, {1, 1, 2}}));
  EXPECT_TRUE(nodeLayoutOf(hosts, 3).blocks);
}

TEST(HarnessNodeLayout, OneHostIsOneNodeOfEveryRank) {
  const std::vector<std::string> hosts(3, "127.0.0.1");
  EXPECT_EQ(places(hosts),
            (std::vector<Place>{{0, 0, 3}, {0, 1, 3}, {0, 2, 3}}));
  EXPECT_TRUE(nodeLayoutOf(hosts, 0).blocks);
}

TEST(HarnessNodeLayout, RoundRobinPlacementIsNoBlockLayout) {
  const std::vector<std::string> hosts{"a", "b", "a", "b"};
  EXPECT_EQ(places(hosts),
            (std::vector<Place>{{0, 0, 2}, {1, 0, 2}, {0, 1, 2}, {1, 1, 2}}));
  EXPECT_FALSE(nodeLayoutOf(hosts, 0).blocks);
}

TEST(HarnessNodeLayout, UnevenNodesAreNoBlockLayout) {
  const std::vector<std::string> hosts{"a", "a", "a", "b"};
  EXPECT_EQ(places(hosts),
            (std::vector<Place>{{0, 0, 3}, {0, 1, 3}, {0, 2, 3}, {1, 0, 1}}));
  EXPECT_FALSE(nodeLayoutOf(hosts, 3).blocks);
}

TEST(HarnessNodeLayout, RankOutsideTheLayoutIsRefused) {
  EXPECT_THROW(nodeLayoutOf({"a", "b"}, 2), std::invalid_argument);
  EXPECT_THROW(nodeLayoutOf({"a", "b"}, -1), std::invalid_argument);
}

}  // namespace
