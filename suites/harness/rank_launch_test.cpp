// The rank launch flag: every field survives the trip to a spawned rank, the
// node placement of a launched rank included, and a cut flag is refused.

#include "wire/rank_launch.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using ranktest::internal::decodeRankLaunch;
using ranktest::internal::encodeRankLaunch;
using ranktest::internal::RankLaunch;

TEST(HarnessRankLaunch, EveryFieldRoundTrips) {
  RankLaunch launch;
  launch.rank = 3;
  launch.world_size = 4;
  launch.local_rank = 1;
  launch.local_world_size = 2;
  launch.node_rank = 1;
  launch.backend = "nccl";
  launch.store = "tcp:10.77.0.1:29500";
  launch.store_prefix = "ranktest/7/group/";
  launch.gloo_host = "10.77.0.2";
  launch.timeout = std::chrono::milliseconds(1234);
  launch.debug_wait = true;
  launch.check_collectives = true;
  launch.test = "Suite.Name/param/gloo_ws4";
  const RankLaunch back = decodeRankLaunch(encodeRankLaunch(launch));
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.world_size, 4);
  EXPECT_EQ(back.local_rank, 1);
  EXPECT_EQ(back.local_world_size, 2);
  EXPECT_EQ(back.node_rank, 1);
  EXPECT_EQ(back.backend, "nccl");
  EXPECT_EQ(back.store, "tcp:10.77.0.1:29500");
  EXPECT_EQ(back.store_prefix, "ranktest/7/group/");
  EXPECT_EQ(back.gloo_host, "10.77.0.2");
  EXPECT_EQ(back.timeout.count(), 1234);
  EXPECT_TRUE(back.debug_wait);
  EXPECT_TRUE(back.check_collectives);
  EXPECT_EQ(back.test, "Suite.Name/param/gloo_ws4");
}

TEST(HarnessRankLaunch, UnsetPlacementStaysUnset) {
  RankLaunch launch;
  launch.world_size = 2;
  const RankLaunch back = decodeRankLaunch(encodeRankLaunch(launch));
  EXPECT_FALSE(back.local_rank.has_value());
  EXPECT_FALSE(back.local_world_size.has_value());
  EXPECT_FALSE(back.node_rank.has_value());
}

TEST(HarnessRankLaunch, CutFlagIsRefused) {
  EXPECT_THROW(decodeRankLaunch("0|2|gloo"), std::invalid_argument);
}

}  // namespace
