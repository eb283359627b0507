// What the parent reports when one rank misbehaves, for every start method
// and store; and that nothing is left behind afterwards. Each test runs the
// inner binary (inner/misbehaving_tests.cpp) and inspects its output and XML.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "hang_deadline.h"
#include "inner_run.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace std::chrono_literals;

// (start method, store)
using Mode = std::tuple<std::string, std::string>;

class HarnessReports : public ::testing::TestWithParam<Mode> {
 protected:
  InnerResult run(const std::string& test) {
    InnerOptions options;
    options.filter = "InnerReports." + test + "/gloo_ws2";
    options.env = {{"RANKTEST_START_METHOD", std::get<0>(GetParam())},
                   {"RANKTEST_STORE", std::get<1>(GetParam())}};
    InnerResult result = runInner(options);
    // Nothing survives any test, whatever it did.
    EXPECT_THAT(result.processes_left, IsEmpty()) << result.output;
    EXPECT_THAT(result.files_left, IsEmpty()) << result.output;
    return result;
  }
};

TEST_P(HarnessReports, PassingTestPasses) {
  const InnerResult r = run("Passes");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[  PASSED  ] 1 test"));
  // Passing tests keep their ranks' output to themselves.
  EXPECT_THAT(r.output, Not(HasSubstr("rank 0 passed")));
}

TEST_P(HarnessReports, ExpectFailureNamesRankOneWithItsMessageAndOutput) {
  const InnerResult r = run("ExpectFailsInRank1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("rank 1 of 2 failed"),
                              HasSubstr("the failure message of rank 1"),
                              HasSubstr("misbehaving_tests.cpp:"),
                              HasSubstr("[rank 1] rank 1 says hello")));
  EXPECT_THAT(r.output, Not(HasSubstr("the failure message of rank 0")));
  EXPECT_THAT(r.output, Not(HasSubstr("rank 0 of 2 failed")));
  // Only the parent writes the XML, and it carries the per-rank text.
  EXPECT_EQ(countOccurrences(r.xml, "<testsuites"), 1u) << r.xml;
  EXPECT_THAT(r.xml, AllOf(HasSubstr("rank 1 of 2 failed"),
                           HasSubstr("the failure message of rank 1"),
                           HasSubstr("[rank 1] rank 1 says hello")));
}

TEST_P(HarnessReports, FatalAssertionEndsTheBodyOfThatRank) {
  const InnerResult r = run("AssertStopsTheBodyInRank1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fatal in rank 1"));
  EXPECT_THAT(r.output, Not(HasSubstr("rank 1 went past the assertion")));
}

TEST_P(HarnessReports, ExceptionIsReportedWithTypeTextAndWhereItWasThrown) {
  const InnerResult r = run("ThrowsInRank1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("rank 1 of 2 failed"),
                    HasSubstr("uncaught exception std::runtime_error"),
                    HasSubstr("boom from rank 1"),
                    HasSubstr("where the uncaught exception was thrown"),
                    ContainsRegex("throwBoomFromRank\\(int\\) at "
                                  "[^ ]*misbehaving_tests\\.cpp:[0-9]+")));
}

// The throw inside libtorch is seen too: its stack leads to the test's call.
TEST_P(HarnessReports, LibtorchErrorShowsTheTestFrameThatCalledIt) {
  const InnerResult r = run("LibtorchThrowsInRank1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("uncaught exception c10::Error"),
                    HasSubstr("where the uncaught exception was thrown"),
                    ContainsRegex("addMismatchedShapesInRank\\(int\\) at "
                                  "[^ ]*misbehaving_tests\\.cpp:[0-9]+")));
}

TEST_P(HarnessReports, SegfaultNamesTheSignalAndStopsTheOtherRanksAtOnce) {
  const InnerResult r = run("SegfaultsInRank1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("rank 1 of 2 was killed by signal SIGSEGV"),
                    HasSubstr("[rank 1] rank 1 is about to crash"),
                    HasSubstr("rank 0 was stopped because rank 1 failed"),
                    HasSubstr("stack:")));
  // Rank 0 sleeps forever: only fail-fast ends this well before the 60 s
  // deadline.
  EXPECT_LT(r.elapsed, 20s * kSanitizerSlowdown);
}

TEST_P(HarnessReports, AbortNamesSigabrt) {
  const InnerResult r = run("AbortsInRank1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("rank 1 of 2 was killed by signal SIGABRT"));
  EXPECT_LT(r.elapsed, 20s * kSanitizerSlowdown);
}

TEST_P(HarnessReports, EarlyExitWithCodeZeroIsAFailure) {
  const InnerResult r = run("ExitsEarlyInRank1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("rank 1 of 2 exited with code 0 before its test "
                        "finished"));
}

TEST_P(HarnessReports, RankLeavingMidCollectiveIsNamedInAHint) {
  const InnerResult r = run("Rank1SkipsACollective");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("rank 0 of 2 failed"),
                    HasSubstr("hint: rank 1 passed and left while rank 0 was "
                              "still in a collective with it")));
}

TEST_P(HarnessReports, HangIsStoppedAtTheDeadlineWithTheRanksStack) {
  const InnerResult r = run("HangsInRank1");
  const auto deadline = hangDeadline(std::get<0>(GetParam()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("timed out after"),
                    HasSubstr("(deadline " + std::to_string(deadline.count()) +
                              " s); still running: rank 1"),
                    HasSubstr("sleepForeverInRank"),
                    ContainsRegex("sleepForeverInRank\\(int\\) at "
                                  "[^ ]*misbehaving_tests\\.cpp:[0-9]+"),
                    HasSubstr("[rank 1] rank 1 is about to hang")));
  // The stack request and the report add little to the deadline.
  EXPECT_GE(r.elapsed, deadline);
  EXPECT_LT(r.elapsed, deadline + 2500ms * kSanitizerSlowdown)
      << "the report came too long after the deadline";
}

TEST_P(HarnessReports, AllRanksSkippingSkipsTheTestWithTheReason) {
  const InnerResult r = run("AllRanksSkip");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("[  SKIPPED ]"),
                              HasSubstr("nothing to do on this machine")));
  EXPECT_THAT(r.xml, HasSubstr("<skipped"));
}

TEST_P(HarnessReports, SkipRankCarriesItsCode) {
  const InnerResult r = run("AllRanksSkipRank");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("[  SKIPPED ]"), HasSubstr("code 88"),
                              HasSubstr("feature X is unavailable")));
}

TEST_P(HarnessReports, ExitingWithASkipCodeSkipsAsInPyTorch) {
  const InnerResult r = run("EveryRankExitsWithASkipCode");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("[  SKIPPED ]"), HasSubstr("code 73"),
                              HasSubstr("world size too small")));
}

TEST_P(HarnessReports, RanksThatDisagreeOnSkippingFail) {
  const InnerResult r = run("SomeRanksSkip");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("ranks disagree on skipping"),
                    HasSubstr("rank 0 skipped"), HasSubstr("rank 1 passed")));
}

TEST_P(HarnessReports, ParentCheckedConditionSkipsWithoutStartingRanks) {
  const InnerResult r = run("SkipsInTheParent");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("[  SKIPPED ]"), HasSubstr("code 85"),
                              HasSubstr("checked before starting ranks")));
  EXPECT_THAT(r.output, Not(HasSubstr("this body must never run")));
}

TEST_P(HarnessReports, NoListeningSocketOutlivesItsTest) {
  // Two tests end badly (a throw, a timeout), then a third looks at the
  // parent's listening sockets while it runs.
  InnerOptions options;
  options.filter =
      "InnerReports.ThrowsInRank1/*:InnerReports.HangsInRank1/"
      "*:InnerReports.ParentListensOnlyForTheRunningTest/*";
  options.env = {{"RANKTEST_START_METHOD", std::get<0>(GetParam())},
                 {"RANKTEST_STORE", std::get<1>(GetParam())}};
  const InnerResult r = runInner(options);
  EXPECT_THAT(r.output,
              HasSubstr("[       OK ] "
                        "InnerReports.ParentListensOnlyForTheRunningTest"));
  EXPECT_THAT(r.processes_left, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Harness, HarnessReports,
                         ::testing::Combine(::testing::Values("fork", "spawn"),
                                            ::testing::Values("file", "tcp")),
                         [](const ::testing::TestParamInfo<Mode>& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::get<1>(info.param);
                         });

}  // namespace
}  // namespace harness_suite
