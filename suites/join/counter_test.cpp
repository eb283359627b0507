// The join tutorial's Counter: ranks with fewer inputs join early and shadow
// the others' allreduces; the last joiner's count reaches every rank.

#include "counter.h"

#include <gtest/gtest.h>

#include "ranktest/ranktest.h"
#include "uneven_inputs.h"

namespace join_suite {
namespace {

class JoinCounter : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}, .any_world_size_from = 2};
  }

 protected:
  void countInputs(Counter& counter, int inputs) {
    distalgo::join::Join join(
        {&counter}, {}, distalgo::join::JoinArgs().set(kSyncMaxCount, true));
    for (int i = 0; i < inputs; ++i) counter();
    join.finish();
  }
};

RANKTEST_F(JoinCounter, TutorialNumbersAtWorldSizeTwo,
           ranktest::worldSizes({2})) {
  Counter counter(c10::kCPU, pg());
  countInputs(counter, 5 + rank());
  EXPECT_EQ(counter.count(), rank() == 0 ? 10 : 11);
  EXPECT_EQ(counter.maxCount(), 11);
}

RANKTEST_F(JoinCounter, CountsTheRanksStillTrainingAtEveryIteration) {
  Counter counter(c10::kCPU, pg());
  countInputs(counter, inputsOf(rank(), worldSize()));
  EXPECT_EQ(counter.count(), countOf(rank(), worldSize()));
  int last = 0;
  for (int r = 0; r < worldSize(); ++r) {
    if (inputsOf(r, worldSize()) == maxInputs(worldSize())) last = r;
  }
  EXPECT_EQ(counter.maxCount(), countOf(last, worldSize()));
}

RANKTEST_F(JoinCounter, RankWithoutInputsJoinsBeforeItsFirstIteration) {
  Counter counter(c10::kCPU, pg());
  const int inputs = rank() == 0 ? 0 : 3;
  countInputs(counter, inputs);
  EXPECT_EQ(counter.count(), rank() == 0 ? 0 : 3 * (worldSize() - 1));
  EXPECT_EQ(counter.maxCount(), 3 * (worldSize() - 1));
}

RANKTEST_F(JoinCounter, WithoutSyncMaxCountThePostHookDoesNothing) {
  Counter counter(c10::kCPU, pg());
  {
    distalgo::join::Join join({&counter});
    for (int i = 0; i < inputsOf(rank(), worldSize()); ++i) counter();
    join.finish();
  }
  EXPECT_EQ(counter.count(), countOf(rank(), worldSize()));
  EXPECT_EQ(counter.maxCount(), 0);
}

}  // namespace
}  // namespace join_suite
