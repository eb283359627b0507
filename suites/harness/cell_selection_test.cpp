// WORLD_SIZE and BACKEND choose the matrix cell that runs: tests declared
// there run, the others are skipped with the reason, test names never change
// with the environment, and a filter that selects nothing fails. Each test
// runs the inner binary's InnerCell tests (declared at 2 and 4 ranks).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inner_run.h"
#include "ranktest/backends.h"

namespace harness_suite {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

InnerResult runCell(const std::string& filter,
                    std::map<std::string, std::string> env,
                    std::vector<std::string> args = {}) {
  InnerOptions options;
  options.filter = filter;
  options.env = std::move(env);
  options.args = std::move(args);
  return runInner(options);
}

// ctest learns of a skip from the exit code that ranktest_add_suite asks
// for, never from the output: a skip exits with it, a pass or a failure
// (whose text may quote "[  SKIPPED ]") does not.
TEST(HarnessCell, OnlyARunWhoseEveryTestSkippedExitsWithTheSkipCode) {
  const std::map<std::string, std::string> ctest{
      {"RANKTEST_SKIPPED_EXIT_CODE", "77"}};
  EXPECT_EQ(runCell("InnerReports.AllRanksSkip/gloo_ws2", ctest).exit_code, 77);
  EXPECT_EQ(runCell("InnerReports.Passes/gloo_ws2", ctest).exit_code, 0);
  // One skipped and one passed: not a skip.
  EXPECT_EQ(runCell("InnerReports.AllRanksSkip/gloo_ws2:InnerReports.Passes/"
                    "gloo_ws2",
                    ctest)
                .exit_code,
            0);
  const InnerResult failed = runCell(
      "InnerReports.AllRanksSkip/gloo_ws2:InnerReports.ExpectFailsInRank1/"
      "gloo_ws2",
      ctest);
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  EXPECT_THAT(failed.output, HasSubstr("[  SKIPPED ]"));
  // A code that is none fails the run, saying so, rather than pass it.
  for (const char* bad : {"skip", "0", "256", "77x"}) {
    const InnerResult r = runCell("InnerReports.AllRanksSkip/gloo_ws2",
                                  {{"RANKTEST_SKIPPED_EXIT_CODE", bad}});
    EXPECT_EQ(r.exit_code, 1) << bad << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("ranktest: RANKTEST_SKIPPED_EXIT_CODE='" +
                                    std::string(bad) +
                                    "' is not an exit code from 1 to 255"));
  }
}

TEST(HarnessCell, ForcedWorldSizeRunsWhatHoldsThereAndSkipsTheRestWithWhy) {
  const InnerResult r = runCell("InnerCell.*", {{"WORLD_SIZE", "3"}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[       OK ] InnerCell.AnySize/gloo_ws3"));
  EXPECT_THAT(r.output,
              HasSubstr("[  SKIPPED ] InnerCell.PowerOfTwoOnly/gloo_ws3"));
  EXPECT_THAT(r.output, HasSubstr("the test is declared at world sizes 2, 4 "
                                  "(where its assertions hold), not at "
                                  "WORLD_SIZE=3"));
  EXPECT_THAT(r.output, HasSubstr("[  SKIPPED ] InnerCell.AnySize/gloo_ws2"));
  EXPECT_THAT(r.output, HasSubstr("runs this test as its gloo_ws3 instance"));
  EXPECT_THAT(r.output, HasSubstr("[  PASSED  ] 1 test"));
  EXPECT_THAT(r.processes_left, IsEmpty());
}

TEST(HarnessCell, AnySizeTestRunsAtAForcedSizeOutsideItsList) {
  const InnerResult r =
      runCell("InnerCell.AnySize/gloo_ws5", {{"WORLD_SIZE", "5"}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[       OK ] InnerCell.AnySize/gloo_ws5"));
}

TEST(HarnessCell, TheListOfTestsIsTheSameWhateverTheEnvironment) {
  const InnerResult plain = runCell("InnerCell.*", {}, {"--gtest_list_tests"});
  const InnerResult forced =
      runCell("InnerCell.*", {{"WORLD_SIZE", "3"}, {"BACKEND", "nccl"}},
              {"--gtest_list_tests"});
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_THAT(plain.output, HasSubstr("  PowerOfTwoOnly/gloo_ws4"));
  EXPECT_EQ(forced.output, plain.output);
}

// ctest runs the names it listed without the environment: under a forced
// cell they are skipped with the reason, never passed with nothing run.
TEST(HarnessCell, ListedNamesUnderAnotherCellAreSkippedWithTheReason) {
  const InnerResult size =
      runCell("InnerCell.PowerOfTwoOnly/gloo_ws2", {{"WORLD_SIZE", "3"}});
  EXPECT_EQ(size.exit_code, 0) << size.output;
  EXPECT_THAT(size.output,
              HasSubstr("[  SKIPPED ] InnerCell.PowerOfTwoOnly/gloo_ws2"));
  EXPECT_THAT(size.output, HasSubstr("declared at world sizes 2, 4"));
  const InnerResult backend =
      runCell("InnerCell.PowerOfTwoOnly/gloo_ws2", {{"BACKEND", "nccl"}});
  EXPECT_EQ(backend.exit_code, 0) << backend.output;
  EXPECT_THAT(backend.output,
              HasSubstr("[  SKIPPED ] InnerCell.PowerOfTwoOnly/gloo_ws2"));
  // Built with NCCL, the gloo instance is only outside the nccl cell (86);
  // built without, the cell cannot run at all (76).
  EXPECT_THAT(backend.output,
              HasSubstr(ranktest::ncclBuilt() ? "code 86" : "code 76"));
}

TEST(HarnessCell, AFilterThatSelectsNoTestFails) {
  const InnerResult r = runCell("NoSuch.Test", {});
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("[ranktest] no test selected: --gtest_filter='NoSuch."
                        "Test' matches no test of this binary"));
}

// A cell's own name, run later without its environment (a stale ctest list).
TEST(HarnessCell, ANameOfAnotherCellFailsRatherThanPassingEmpty) {
  const InnerResult r = runCell("InnerCell.PowerOfTwoOnly/gloo_ws3", {});
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[ranktest] no test selected"));
}

}  // namespace
}  // namespace harness_suite
