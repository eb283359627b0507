// What every rank of a launched job reports where its ranks are not at the
// same distributed test (test_agreement.h).

#include "job/test_agreement.h"

#include <gtest/gtest.h>

namespace harness_suite {
namespace {

using ranktest::internal::disagreementOn;
using ranktest::internal::kNoMoreTests;

TEST(HarnessTestAgreement, RanksAtTheSameTestAgree) {
  EXPECT_EQ(disagreementOn(
                3, {"Join.A/gloo_ws3", "Join.A/gloo_ws3", "Join.A/gloo_ws3"}),
            std::nullopt);
  EXPECT_EQ(disagreementOn(2, {kNoMoreTests, kNoMoreTests}), std::nullopt);
}

TEST(HarnessTestAgreement, NamesWhatEachGroupOfRanksRuns) {
  EXPECT_EQ(disagreementOn(4, {"Join.A/gloo_ws4", "Join.B/gloo_ws4",
                               "Join.A/gloo_ws4", "Join.B/gloo_ws4"}),
            "ranktest: the job's ranks do not run the same tests: as its "
            "distributed test #4, ranks 0, 2 run Join.A/gloo_ws4; ranks 1, 3 "
            "run Join.B/gloo_ws4. Start every rank with the same binary and "
            "--gtest_filter; the job's later distributed tests fail at once");
}

TEST(HarnessTestAgreement, NamesTheRanksThatHaveNoMoreTests) {
  const auto text =
      disagreementOn(1, {kNoMoreTests, "Join.A/gloo_ws3", kNoMoreTests});
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(text->find("#1, ranks 0, 2 have none left (their runs ended); "
                       "rank 1 runs Join.A/gloo_ws3."),
            std::string::npos)
      << *text;
  // The marker itself, unprintable, never shows.
  EXPECT_EQ(text->find(kNoMoreTests), std::string::npos) << *text;
}

}  // namespace
}  // namespace harness_suite
