// Ranks that fail alike, for the reports a person reads (alike ranks once,
// library frames folded, ranktest's paths relative): suite_harness runs
// them through readable_reports_test.cpp. (An uncaught exception in every
// rank is alike too, but not deterministically reported by all: the parent
// stops the others as soon as the first rank ends.)

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "hang_deadline.h"
#include "ranktest/ranktest.h"

using namespace std::chrono_literals;

class InnerReadable : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

// The barrier holds every rank until all have reported the failure: the
// parent stops the others as soon as one rank ends failed.
RANKTEST_F(InnerReadable, EveryRankFailsAnExpectAlike) {
  EXPECT_EQ(1 + 1, 3) << "the same in every rank";
  pg()->barrier()->wait();
}

// Each rank names itself, as a user's `<< rank()` does: still alike.
RANKTEST_F(InnerReadable, EveryRankFailsNamingItself) {
  EXPECT_EQ(1 + 1, 3) << "wrong on rank " << rank();
  pg()->barrier()->wait();
}

[[gnu::noinline]] void waitForever() {
  for (;;) std::this_thread::sleep_for(1h);
}

RANKTEST_F(InnerReadable, EveryRankHangsAlike,
           ranktest::timeout(harness_suite::hangDeadline())) {
  waitForever();
}
