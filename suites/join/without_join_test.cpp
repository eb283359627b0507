// Uneven inputs without Join hang in a collective; the harness ends the run at
// its deadline and names the ranks that were stuck, with their stacks.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inner_run.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

TEST(JoinWithout, UnevenInputsEndAtTheDeadlineNamingTheStuckRanks) {
  harness_suite::InnerOptions options;
  options.binary = RANKTEST_JOIN_INNER_BINARY;
  options.filter = "InnerJoin.UnevenInputsWithoutJoin/gloo_ws2";
  const harness_suite::InnerResult r = harness_suite::runInner(options);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("(deadline 2 s); still running: ranks 0, 1"),
                    HasSubstr("rank 0 of 2 was still running"),
                    HasSubstr("rank 1 of 2 was still running")));
  // The deadline (2 s) plus the stack grace (2 s), not the group timeout.
  EXPECT_LT(r.elapsed, 15s) << r.output;
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty()) << r.output;
}

}  // namespace
