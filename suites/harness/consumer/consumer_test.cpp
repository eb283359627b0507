// The smallest user of an installed ranktest: one distributed test.

#include <ATen/ATen.h>

#include "ranktest/ranktest.h"

class ConsumerAllreduce : public ranktest::DistributedTest {};

RANKTEST_F(ConsumerAllreduce, SumsTwoRanks) {
  std::vector<at::Tensor> t{at::ones({1})};
  pg()->allreduce(t)->wait();
  EXPECT_EQ(t[0].item<float>(), 2.0f);
}
