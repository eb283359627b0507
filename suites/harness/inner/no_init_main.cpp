// A test binary with its own main() that forgets ranktest::init: a user's
// mistake that used to pass silently (its parameterised tests never
// registered). suite_harness checks that it fails at once, saying what to
// add. RANKTEST_INNER_CALL_INIT=1 calls init, as a correct main does;
// =after_googletest calls it after testing::InitGoogleTest, as a main may.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "ranktest/ranktest.h"

class InnerNoInit : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

RANKTEST_F(InnerNoInit, Passes) { EXPECT_GE(rank(), 0); }

class InnerNoInitTable : public ranktest::DistributedTestWithParam<int> {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

RANKTEST_P(InnerNoInitTable, RowIsPositive) { EXPECT_GT(param(), 0); }
RANKTEST_INSTANTIATE_P(InnerNoInitTable, std::vector<int>({1, 2}));

int main(int argc, char** argv) {
  const char* call_init = std::getenv("RANKTEST_INNER_CALL_INIT");
  if (call_init != nullptr && std::string(call_init) == "1") {
    ranktest::init(&argc, argv);
  } else if (call_init != nullptr &&
             std::string(call_init) == "after_googletest") {
    ::testing::InitGoogleTest(&argc, argv);
    ranktest::init(&argc, argv);
  } else {
    ::testing::InitGoogleTest(&argc, argv);
  }
  return RUN_ALL_TESTS();
}
