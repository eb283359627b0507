// Tests that an outer test interrupts with SIGINT or SIGTERM: each prints a
// line when the signal may come, and the tests after it must not run. The
// names sort the tests in the order they run.

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "ranktest/ranktest.h"

using namespace std::chrono_literals;

class InnerInterrupt : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

RANKTEST_F(InnerInterrupt, A_HangsInEveryRank, ranktest::timeout(120s)) {
  std::cout << "rank " << rank() << " ready" << std::endl;
  for (;;) std::this_thread::sleep_for(1h);
}

RANKTEST_F(InnerInterrupt, B_MustNotRun) {
  std::cout << "InnerInterrupt.B_MustNotRun ran" << std::endl;
}

TEST(InnerInterruptPlain, A_ReturnsSoonAfterItsLine) {
  std::cout << "plain test waits for the signal" << std::endl;
  std::this_thread::sleep_for(1s);
}

TEST(InnerInterruptPlain, B_NeverReturns) {
  std::cout << "plain test hangs" << std::endl;
  for (;;) std::this_thread::sleep_for(1h);
}

TEST(InnerInterruptPlain, C_MustNotRun) {
  std::cout << "InnerInterruptPlain.C_MustNotRun ran" << std::endl;
}

// The signal arrives between two tests: after this suite's last test.
class InnerInterruptBetween : public ::testing::Test {
 public:
  static void TearDownTestSuite() { std::raise(SIGTERM); }
};

TEST_F(InnerInterruptBetween, A_Passes) {}

TEST(InnerInterruptAfterTheSignal, A_MustNotRun) {
  std::cout << "InnerInterruptAfterTheSignal.A_MustNotRun ran" << std::endl;
}
