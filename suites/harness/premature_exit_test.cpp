// A test that ends its process (exit(), quick_exit()) or whose process
// crashes at exit never passes: the binary fails naming the test, keeps the
// failures reported before the exit, and writes its XML with them
// (inner/exit_tests.cpp; under ctest: warm_test.cpp; under launchers:
// launched_test.cpp).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "inner_run.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

InnerResult runExits(const std::string& filter,
                     std::map<std::string, std::string> env = {}) {
  InnerOptions options;
  options.filter = filter;
  options.env = std::move(env);
  return runInnerLeavingNothing(options);
}

// In every way the binary can start its ranks (fork, spawn, reused
// workers): the guard is the parent's, whatever starts the ranks.
class HarnessPrematureExit
    : public ::testing::TestWithParam<std::map<std::string, std::string>> {};

TEST_P(HarnessPrematureExit, ExitZeroInsideATestFailsItAndKeepsTheXml) {
  const InnerResult r = runExits(
      "InnerExit.FailsThenExitsZero:InnerExit.ZRunsAfterTheOthers", GetParam());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("inner: a failure before the exit"),
                    HasSubstr("[ranktest] the process exited (exit(), "
                              "quick_exit() or a return from main) while "
                              "this test ran: a test may not end its "
                              "process; 1 test after it did not run"),
                    Not(HasSubstr("inner: the last test ran"))));
  EXPECT_THAT(r.xml, AllOf(HasSubstr("failures=\"1\""),
                           HasSubstr("inner: a failure before the exit"),
                           HasSubstr("a test may not end its process")))
      << r.xml;
}

INSTANTIATE_TEST_SUITE_P(
    Harness, HarnessPrematureExit,
    ::testing::Values(
        std::map<std::string, std::string>{},
        std::map<std::string, std::string>{{"RANKTEST_START_METHOD", "spawn"}},
        std::map<std::string, std::string>{{"RANKTEST_REUSE", "1"}}),
    [](const auto& info) -> std::string {
      if (info.param.empty()) return "fork";
      return info.param.count("RANKTEST_REUSE") != 0 ? "reuse" : "spawn";
    });

TEST(HarnessPrematureExitAlone, ExitZeroAndQuickExitZeroFail) {
  const InnerResult exited = runExits("InnerExit.ExitsZero");
  EXPECT_EQ(exited.exit_code, 1) << exited.output;
  EXPECT_THAT(exited.xml, HasSubstr("failures=\"1\"")) << exited.xml;
  const InnerResult quick = runExits("InnerExit.QuickExitsZero");
  EXPECT_EQ(quick.exit_code, 1) << quick.output;
  EXPECT_THAT(quick.xml, HasSubstr("a test may not end its process"))
      << quick.xml;
}

TEST(HarnessPrematureExitAlone, AStaticThatCrashesAtExitFailsTheRun) {
  const InnerResult r = runExits("InnerExit.PassesThenCrashesAtExit");
  EXPECT_EQ(r.exit_code, -1) << "killed by SIGABRT\n" << r.output;
  EXPECT_THAT(r.output, HasSubstr("inner: a static's destructor aborts"));
}

// What is not a premature exit passes or fails as before: a death test's
// child that exits on purpose; a rank that exits inside its body.
TEST(HarnessPrematureExitAlone, DeathTestsAndRanksExitAsBefore) {
  const InnerResult death = runExits("InnerExit.DeathTestChildExitsZero");
  EXPECT_EQ(death.exit_code, 0) << death.output;
  const InnerResult rank = runExits("InnerExitRanks.Rank1ExitsZero/*");
  EXPECT_EQ(rank.exit_code, 1) << rank.output;
  EXPECT_THAT(rank.output,
              AllOf(HasSubstr("exited with code 0 before its test finished"),
                    Not(HasSubstr("a test may not end its process"))));
}

}  // namespace
}  // namespace harness_suite
