// Too few descriptors (RLIMIT_NOFILE): a test fails at once with the limit
// and how to raise it, never at its deadline, and leaves nothing behind.

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

}  // namespace
}  // namespace harness_suite
