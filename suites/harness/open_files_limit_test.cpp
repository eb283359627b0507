// Too few descriptors (RLIMIT_NOFILE): a test fails at once with the limit
// and how to raise it, never at its deadline, and leaves nothing behind.

#include "plan/open_files_limit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inner_run.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

// As `ulimit -n 32` before a run: the parent checks before any rank starts.
TEST(HarnessOpenFilesLimit, LowLimitFailsEveryTestAtOnceNamingIt) {
  InnerOptions options;
  options.filter = "InnerReports.Passes/gloo_ws2";
  options.open_files_limit = 32;
  options.limit = 30s;
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("RLIMIT_NOFILE is 32"),
                              HasSubstr("ulimit -n 1024")));
  EXPECT_LT(r.elapsed, 10s) << "the 60 s deadline must not be waited for";
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty());
}

// The limit suffices, but the parent holds all but five descriptors: the
// rank cannot move its pipes into place, says so and exits at once.
TEST(HarnessOpenFilesLimit, RankWithoutFreeDescriptorsFailsAtOnceNamingIt) {
  InnerOptions options;
  options.filter = "InnerOpenFilesPlain.*:InnerOpenFiles.*";
  options.open_files_limit = 128;
  options.limit = 30s;
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("[       OK ] InnerOpenFilesPlain.A_"),
                              HasSubstr("rank 0 of 1 could not set up its file "
                                        "descriptors"),
                              HasSubstr("F_DUPFD) failed with EMFILE"),
                              HasSubstr("RLIMIT_NOFILE is 128"),
                              HasSubstr("ulimit -n 1024")));
  EXPECT_LT(r.elapsed, 10s) << "the 60 s deadline must not be waited for";
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty());
}

// Reused pools of four sizes on the TCP store, each holding descriptors in
// the parent: at every limit each test either passes or fails at once with
// the limit and the remedy, and the parent never aborts (its store server
// did on EMFILE, at limits 48, 56, 72 and 80, losing the XML).
TEST(HarnessOpenFilesLimit, ReusedPoolsOnTheTcpStoreFitOrFailCleanly) {
  using ranktest::internal::openFilesNeeded;
  const unsigned long largest_need = openFilesNeeded(8, true);
  for (const unsigned long limit : {48ul, 56ul, 72ul, 80ul, largest_need}) {
    InnerOptions options;
    options.filter = "InnerOpenFilesSizes.*";
    options.env = {{"RANKTEST_REUSE", "1"}, {"RANKTEST_STORE", "tcp"}};
    options.open_files_limit = limit;
    options.limit = 60s;
    const InnerResult r = runInner(options);
    SCOPED_TRACE("ulimit -n " + std::to_string(limit));
    EXPECT_EQ(r.exit_code, limit >= largest_need ? 0 : 1) << r.output;
    EXPECT_THAT(r.xml, HasSubstr("AllreduceSums/gloo_ws8")) << r.output;
    for (const int size : {2, 3, 4, 8}) {
      const std::string test =
          "InnerOpenFilesSizes.AllreduceSums/gloo_ws" + std::to_string(size);
      if (openFilesNeeded(size, true) <= limit) {
        EXPECT_THAT(r.output, HasSubstr("[       OK ] " + test));
      } else {
        EXPECT_THAT(r.output,
                    AllOf(HasSubstr("RLIMIT_NOFILE is " +
                                    std::to_string(limit) + ", but a test of " +
                                    std::to_string(size) + " ranks"),
                          HasSubstr("[  FAILED  ] " + test)));
      }
    }
    EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
    EXPECT_THAT(r.files_left, IsEmpty());
  }
}

}  // namespace
}  // namespace harness_suite
