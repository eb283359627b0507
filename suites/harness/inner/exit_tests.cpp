// Plain and distributed tests that end their process in ways that must never
// pass (premature_exit_test.cpp runs them): exit() or quick_exit() inside a
// test, and a static whose destructor crashes at exit.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "ranktest/ranktest.h"

namespace {

// Set by a test: the binary's static below then aborts as it is destroyed,
// as a global of code under test that checks its state at exit would.
bool g_crash_at_exit = false;

struct CrashesAtExitWhenAsked {
  ~CrashesAtExitWhenAsked() {
    if (!g_crash_at_exit) return;
    std::fprintf(stderr, "inner: a static's destructor aborts\n");
    std::abort();
  }
} g_crashes_at_exit_when_asked;

}  // namespace

TEST(InnerExit, FailsThenExitsZero) {
  ADD_FAILURE() << "inner: a failure before the exit";
  std::exit(0);
}

TEST(InnerExit, ExitsZero) { std::exit(0); }

TEST(InnerExit, QuickExitsZero) { std::quick_exit(0); }

TEST(InnerExit, ZRunsAfterTheOthers) { std::puts("inner: the last test ran"); }

TEST(InnerExit, PassesThenCrashesAtExit) { g_crash_at_exit = true; }

// A death test's child exits on purpose: that is no premature exit.
TEST(InnerExit, DeathTestChildExitsZero) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(0), ::testing::ExitedWithCode(0), "");
}

// Its ranks exit inside the body: reported as before, not by the guard.
class InnerExitRanks : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

RANKTEST_F(InnerExitRanks, Rank1ExitsZero) {
  if (rank() == 1) std::exit(0);
}
