// Tests whose declared world sizes differ, for the checks of how WORLD_SIZE
// and BACKEND select a matrix cell (suite_harness's HarnessCell tests).

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "ranktest/ranktest.h"

class InnerCell : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }

 protected:
  // Every rank adds one: the sum is the world size, whatever it is.
  void expectSumIsWorldSize() {
    std::vector<at::Tensor> t{at::ones({1})};
    pg()->allreduce(t)->wait();
    EXPECT_EQ(t[0].item<float>(), static_cast<float>(worldSize()));
  }
};

RANKTEST_F(InnerCell, PowerOfTwoOnly) { expectSumIsWorldSize(); }

RANKTEST_F(InnerCell, AnySize, ranktest::anyWorldSize()) {
  expectSumIsWorldSize();
}
