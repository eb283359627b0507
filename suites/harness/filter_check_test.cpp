// Every positive pattern of --gtest_filter must match a test: a typo in one
// of several patterns fails the run, naming it, before any test runs.

#include "plan/filter_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "inner_run.h"

namespace harness_suite {
namespace {

using namespace ranktest::internal;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string> kNames = {"Join.Uneven/gloo_ws2",
                                         "Join.Uneven/gloo_ws3", "Plain.Test"};

TEST(HarnessFilterCheck, WildcardsMatchAsGoogletestDoes) {
  EXPECT_TRUE(matchesPattern("Join.*", "Join.Uneven/gloo_ws2"));
  EXPECT_TRUE(matchesPattern("*ws?", "Join.Uneven/gloo_ws3"));
  EXPECT_TRUE(matchesPattern("*", ""));
  EXPECT_FALSE(matchesPattern("Join.Uneven", "Join.Uneven/gloo_ws2"));
  EXPECT_FALSE(matchesPattern("J?in", "Join.Uneven"));
}

TEST(HarnessFilterCheck, EachPositivePatternThatMatchesNothingIsNamed) {
  const auto unmatched =
      unmatchedPatterns("Plain.Test:Plain.Tset:Join.Uneven-No.Such", kNames);
  ASSERT_EQ(unmatched.size(), 2U);
  EXPECT_EQ(unmatched[0].pattern, "Plain.Tset");
  EXPECT_EQ(unmatched[0].suggestion, "");
  EXPECT_EQ(unmatched[1].pattern, "Join.Uneven");
  EXPECT_EQ(unmatched[1].suggestion, "Join.Uneven/*");
  EXPECT_THAT(describeUnmatched(unmatched),
              AllOf(HasSubstr("[ranktest] --gtest_filter pattern 'Plain.Tset' "
                              "matches no test of this binary (see "),
                    HasSubstr("'Join.Uneven' matches no test of this binary: "
                              "did you mean Join.Uneven/*?")));
}

TEST(HarnessFilterCheck, NegativeAndEmptyPatternsNeedNotMatch) {
  EXPECT_TRUE(unmatchedPatterns("-No.Such:Nor.This", kNames).empty());
  EXPECT_TRUE(unmatchedPatterns("Plain.Test::", kNames).empty());
  EXPECT_TRUE(unmatchedPatterns("", kNames).empty());
  EXPECT_TRUE(selectsAny("Join.*-*ws2", kNames));
  EXPECT_FALSE(selectsAny("Join.*-Join.*", kNames));
}

// The inner binary stops before its first test.
TEST(HarnessFilterCheck, ATypoInOneOfSeveralPatternsFailsTheRun) {
  InnerOptions options;
  options.filter = "InnerReports.Passes/gloo_ws2:InnerReports.Pases/gloo_ws2";
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("[ranktest] --gtest_filter pattern "
                              "'InnerReports.Pases/gloo_ws2' matches no test"),
                    Not(HasSubstr("[ RUN      ]")),
                    Not(HasSubstr("no test selected"))));
}

TEST(HarnessFilterCheck, ANameWithoutItsInstanceGetsAHint) {
  InnerOptions options;
  options.filter = "InnerReports.Passes";
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("[ranktest] no test selected"),
                    HasSubstr("'InnerReports.Passes' matches no test of this "
                              "binary: did you mean InnerReports.Passes/*?")));
}

// Under WORLD_SIZE the other sizes' instances still exist (they skip), so a
// filter written for every cell matches in each.
TEST(HarnessFilterCheck, AnotherCellsInstancesStillMatch) {
  InnerOptions options;
  options.filter =
      "InnerReports.Passes/gloo_ws2:InnerCell.PowerOfTwoOnly/gloo_ws4";
  options.env = {{"WORLD_SIZE", "2"}};
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("matches no test")));
}

}  // namespace
}  // namespace harness_suite
