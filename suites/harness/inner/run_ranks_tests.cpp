// ranktest::runRanks called from plain tests, for suite_harness to run
// under the environment it sets (RANKTEST_* is read once per process).

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "ranktest/run_ranks.h"
#include "sanitizer_slowdown.h"

using namespace std::chrono_literals;

// Passes only where RANKTEST_TIMEOUT_SCALE stretches its deadline (by 4,
// twice what the body needs: a loaded machine starts ranks slowly).
TEST(InnerRunRanks, BodyThatTakesTwiceItsTimeout) {
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      1s * harness_suite::kSanitizerSlowdown);
  const ranktest::RunResult result = ranktest::runRanks(
      {.world_size = 2, .timeout = timeout}, [&](const ranktest::Rank& r) {
        std::cout << "rank " << r.rank << " starts its slow body" << std::endl;
        std::this_thread::sleep_for(2 * timeout);
      });
  EXPECT_TRUE(result.passed()) << result.message;
}

// Prints what runRanks says of a failing rank with 100 lines of output.
TEST(InnerRunRanks, FailingRankWithALongOutput) {
  const ranktest::RunResult result = ranktest::runRanks(
      {.world_size = 2, .timeout = 30s}, [](const ranktest::Rank& r) {
        for (int line = 1; line <= 100; ++line) {
          std::cout << "line " << line << " of rank " << r.rank << "\n";
        }
        std::cout << std::flush;
        if (r.rank == 1) throw std::runtime_error("rank 1 fails");
      });
  EXPECT_FALSE(result.passed());
  std::cout << "runRanks says: " << result.message << std::endl;
}
