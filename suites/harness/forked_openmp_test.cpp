// Ranks forked from a parent that ran an OpenMP parallel region: libgomp's
// threads are not forked, and a child that opened a parallel region of its
// own would wait for them forever. Forked ranks run ATen on one thread.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <chrono>

#include "ranktest/run_ranks.h"

namespace harness_suite {
namespace {

using namespace std::chrono_literals;

// Above ATen's grain size (32768): parallel wherever ATen has threads.
constexpr std::int64_t kParallelNumel = 1 << 20;

double parallelSum() { return at::ones({kParallelNumel}).sum().item<double>(); }

TEST(HarnessForkedOpenMp, RanksOfAParentThatRanAParallelRegionFinish) {
  if (at::get_num_threads() < 2) {
    GTEST_SKIP() << "ATen has one thread here: no parallel region to fork";
  }
  ASSERT_EQ(parallelSum(), kParallelNumel);  // the parent's region
  const ranktest::RunResult result = ranktest::runRanks(
      {.world_size = 2, .timeout = 20s}, [](const ranktest::Rank&) {
        EXPECT_EQ(at::get_num_threads(), 1);
        EXPECT_EQ(parallelSum(), kParallelNumel);
      });
  EXPECT_TRUE(result.passed()) << result.message;
}

}  // namespace
}  // namespace harness_suite
