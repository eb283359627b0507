// A binary whose own main() never calls ranktest::init fails at once with a
// message that says what to add, in every start method and when listing,
// instead of passing with its distributed tests gone.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "inner_run.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const char kMissingInit[] =
    "[ranktest] this binary declares distributed tests (RANKTEST_F/"
    "RANKTEST_P), but main() never called ranktest::init(&argc, argv): add "
    "it after testing::InitGoogleTest";

InnerResult runWithoutInit(std::map<std::string, std::string> env,
                           std::vector<std::string> args = {}) {
  InnerOptions options;
  options.binary = RANKTEST_NO_INIT_BINARY;
  options.filter = "*";
  options.env = std::move(env);
  options.args = std::move(args);
  return runInnerLeavingNothing(options);
}

class HarnessInitGuard
    : public ::testing::TestWithParam<std::map<std::string, std::string>> {};

TEST_P(HarnessInitGuard, AMainWithoutInitFailsBeforeAnyTest) {
  const InnerResult r = runWithoutInit(GetParam());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr(kMissingInit), Not(HasSubstr("[ RUN      ]")),
                    Not(HasSubstr("[  PASSED  ]"))));
}

INSTANTIATE_TEST_SUITE_P(
    StartMethods, HarnessInitGuard,
    ::testing::Values(
        std::map<std::string, std::string>{},
        std::map<std::string, std::string>{{"RANKTEST_START_METHOD", "spawn"}},
        std::map<std::string, std::string>{{"RANKTEST_REUSE", "1"}}),
    [](const auto& info) {
      return info.index == 0   ? std::string("Fork")
             : info.index == 1 ? "Spawn"
                               : "Reuse";
    });

TEST(HarnessInitGuardListing, ListingFailsTheSameWay) {
  const InnerResult r = runWithoutInit({}, {"--gtest_list_tests"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(kMissingInit));
}

// The same binary with init: its table tests exist and pass, in fork and
// spawn (a spawned rank runs this main again).
TEST(HarnessInitGuardListing, AMainThatCallsInitRunsEveryTest) {
  for (const char* method : {"fork", "spawn"}) {
    const InnerResult r = runWithoutInit(
        {{"RANKTEST_INNER_CALL_INIT", "1"}, {"RANKTEST_START_METHOD", method}});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(
        r.output,
        AllOf(HasSubstr("InnerNoInitTable.RowIsPositive/1/gloo_ws2"),
              HasSubstr("[  PASSED  ] 3 tests"), Not(HasSubstr(kMissingInit))));
  }
}

}  // namespace
}  // namespace harness_suite
