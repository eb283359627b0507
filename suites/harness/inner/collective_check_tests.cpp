// Ranks that call different collectives on purpose, for the
// collective-mismatch check (suites/harness/collective_check_test.cpp). Each
// would hang until its deadline without the check.

#include <ATen/ATen.h>

#include <chrono>
#include <vector>

#include "ranktest/ranktest.h"

using namespace std::chrono_literals;

class InnerCollectiveCheck : public ranktest::DistributedTest {
 public:
  // Far beyond the check's time to fail, so that a hang is not mistaken for it.
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2}, .timeout = 30s};
  }

 protected:
  // Rank 0 sums, rank 1 broadcasts: Gloo alone waits for ever.
  void allreduceAgainstBroadcast() {
    std::vector<at::Tensor> tensors{at::ones({2})};
    if (rank() == 0) {
      pg()->allreduce(tensors)->wait();
    } else {
      pg()->broadcast(tensors)->wait();
    }
  }
};

RANKTEST_F(InnerCollectiveCheck, AllreduceAgainstBroadcast,
           ranktest::checkCollectives()) {
  allreduceAgainstBroadcast();
}

// Run with RANKTEST_CHECK_COLLECTIVES=1.
RANKTEST_F(InnerCollectiveCheck, AllreduceAgainstBroadcastUnlessAsked) {
  allreduceAgainstBroadcast();
}

RANKTEST_F(InnerCollectiveCheck, ShapesDiffer, ranktest::checkCollectives()) {
  std::vector<at::Tensor> tensors{at::ones({rank() == 0 ? 2 : 3})};
  pg()->allreduce(tensors)->wait();
}

RANKTEST_F(InnerCollectiveCheck, DtypesDiffer, ranktest::checkCollectives()) {
  std::vector<at::Tensor> tensors{
      at::ones({2}, rank() == 0 ? at::kFloat : at::kDouble)};
  pg()->allreduce(tensors)->wait();
}
