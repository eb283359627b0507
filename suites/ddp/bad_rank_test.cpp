// One rank misbehaves inside DDP: the run ends with an error that names the
// rank and the cause, well within the deadline, and leaves nothing behind.
// Each test runs inner/misbehaving_ddp.cpp through the harness's own parent.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inner_run.h"

namespace {

using harness_suite::InnerOptions;
using harness_suite::InnerResult;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

// Far below the inner test's 60 s deadline: fail-fast, not a timeout.
constexpr auto kPromptly = 20s;

InnerResult runInnerDdp(const std::string& test) {
  InnerOptions options;
  options.binary = RANKTEST_DDP_INNER_BINARY;
  options.filter = "InnerDdp." + test + "/gloo_ws2";
  InnerResult result = harness_suite::runInner(options);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_LT(result.elapsed, kPromptly) << result.output;
  EXPECT_THAT(result.output, ::testing::Not(HasSubstr("deadline")))
      << result.output;
  EXPECT_THAT(result.processes_left, IsEmpty()) << result.output;
  EXPECT_THAT(result.files_left, IsEmpty()) << result.output;
  return result;
}

TEST(DdpParityBadRank, HookThrowingInOneRankNamesTheRankAndTheHook) {
  const InnerResult r = runInnerDdp("HookThrowsInRank1");
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("rank 1 of 2 failed"),
                    HasSubstr("communication hook 'flaky' on rank 1 "
                              "(bucket 0) threw: gradient exploded")));
}

TEST(DdpParityBadRank, RankSkippingBackwardNamesTheRank) {
  const InnerResult r = runInnerDdp("Rank1SkipsBackward");
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("rank 1 of 2 failed"),
                    HasSubstr("distalgo::DistributedDataParallel on rank 1"),
                    HasSubstr("backward never ran on the previous "
                              "forward's outputs")));
}

}  // namespace
