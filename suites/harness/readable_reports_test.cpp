// Reports a person can read: ranks that fail alike are reported once, a
// stack's library frames fold into one line per run (RANKTEST_VERBOSE=1
// keeps them), and ranktest's own files read relative to its tree. Runs the
// inner binary's tests (inner/readable_tests.cpp, misbehaving_tests.cpp).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "inner_run.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

InnerResult runReadable(const std::string& test, bool verbose = false) {
  InnerOptions options;
  options.filter = test + "/gloo_ws2";
  options.env = {{"RANKTEST_VERBOSE", verbose ? "1" : "0"}};
  InnerResult r = runInner(options);
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty()) << r.output;
  return r;
}

TEST(HarnessReadableReports, RanksThatFailAlikeArePrintedOnce) {
  const InnerResult r =
      runReadable("InnerReadable.EveryRankFailsAnExpectAlike");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("[ranktest] ranks 0, 1 of 2 failed alike\n"),
                    HasSubstr("  gtest failure at suites/harness/inner/"
                              "readable_tests.cpp:"),
                    Not(HasSubstr("rank 0 of 2 failed")),
                    Not(HasSubstr("rank 1 of 2 failed"))));
  EXPECT_EQ(countOccurrences(r.output, "the same in every rank"), 1u)
      << r.output;
}

// Either rank may fail first and stand for both.
TEST(HarnessReadableReports, RanksNamingThemselvesArePrintedOnce) {
  const InnerResult r = runReadable("InnerReadable.EveryRankFailsNamingItself");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("[ranktest] ranks 0, 1 of 2 failed alike\n"),
                    ContainsRegex("  as rank [01] reported it \\(rank [01]: "
                                  "the same, with its own rank number\\)\n"),
                    Not(HasSubstr("rank 0 of 2 failed")),
                    Not(HasSubstr("rank 1 of 2 failed"))));
  EXPECT_EQ(countOccurrences(r.output, "wrong on rank "), 1u) << r.output;
}

// libtorch's error, thrown 14 frames deep in libc10, libtorch_cpu and ATen's
// headers (inner/misbehaving_tests.cpp).
// A libtorch frame as backtrace_symbols prints it: libtorch_cpu.so (the
// wheel's) or libtorch_cpu.so.1.13 (Debian's), then "(".
constexpr char kRawLibtorchFrame[] = "libtorch_cpu\\.so[.0-9]*\\(";

TEST(HarnessReadableReports, LibraryFramesFoldAroundTheTestsOwnFrame) {
  const InnerResult r = runReadable("InnerReports.LibtorchThrowsInRank1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("uncaught exception c10::Error"),
                    ContainsRegex("\n    \\.\\.\\. [0-9]+ frames in [^\n]*"
                                  "libtorch_cpu\\.so"),
                    ContainsRegex("addMismatchedShapesInRank\\(int\\) at "
                                  "suites/harness/inner/"
                                  "misbehaving_tests\\.cpp:[0-9]+"),
                    Not(ContainsRegex(kRawLibtorchFrame))));
}

TEST(HarnessReadableReports, VerboseKeepsEveryFrame) {
  const InnerResult r =
      runReadable("InnerReports.LibtorchThrowsInRank1", /*verbose=*/true);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(ContainsRegex(kRawLibtorchFrame),
                    Not(ContainsRegex("\\.\\.\\. [0-9]+ frames in"))));
}

TEST(HarnessReadableReports, RanksHungAlikeShareOneStackAtTheDeadline) {
  const InnerResult r = runReadable("InnerReadable.EveryRankHangsAlike");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("ranks 0, 1 of 2 were still running, alike:"),
                    ContainsRegex("waitForever\\(\\) at suites/harness/inner/"
                                  "readable_tests\\.cpp:[0-9]+")));
  EXPECT_EQ(countOccurrences(r.output, "waitForever() at"), 1u) << r.output;
}

}  // namespace
}  // namespace harness_suite
