// CountingProcessGroup forwards to the real group and counts what this rank
// puts into each collective.

#include <ATen/ATen.h>

#include "ranktest/ranktest.h"

namespace {

class HarnessCountingGroup : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }
};

RANKTEST_F(HarnessCountingGroup, CountsCallsAndBytesAndForwardsResults) {
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  std::vector<at::Tensor> t{at::ones({4})};  // 16 bytes
  counting->allreduce(t)->wait();
  counting->allreduce(t)->wait();
  EXPECT_TRUE(at::equal(t[0], at::full({4}, worldSize() * worldSize())));
  EXPECT_EQ(counting->traffic("allreduce").calls, 2);
  EXPECT_EQ(counting->traffic("allreduce").bytes, 32);

  std::vector<at::Tensor> b{at::zeros({3}, at::kDouble)};  // 24 bytes
  counting->broadcast(b)->wait();
  // Only the root's tensor travels.
  EXPECT_EQ(counting->traffic("broadcast").bytes, rank() == 0 ? 24 : 0);
  EXPECT_EQ(counting->traffic("broadcast").calls, 1);
  EXPECT_EQ(counting->traffic("allgather").calls, 0);

  counting->reset();
  EXPECT_TRUE(counting->allTraffic().empty());
}

}  // namespace
