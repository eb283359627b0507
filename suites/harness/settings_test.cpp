// Every number ranktest reads from its environment is parsed by one parser
// and checked against its range: a value out of range (or no number) ends
// the binary before any test, naming the variable, instead of wrapping
// (4294967297 read as 1), saturating or reading "inf".

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "inner_run.h"
#include "wire/number_text.h"

namespace harness_suite {
namespace {

using ranktest::internal::parseInteger;
using ranktest::internal::parseNumber;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(HarnessNumberText, IntegersAreWholeAndInRange) {
  EXPECT_EQ(parseInteger("42", 1, 100), 42);
  EXPECT_EQ(parseInteger("-3", -5, 5), -3);
  for (const char* bad : {"", " 1", "1 ", "+1", "1x", "0x10", "4294967297",
                          "99999999999999999999999", "1.0", "101", "0"}) {
    EXPECT_EQ(parseInteger(bad, 1, 100), std::nullopt) << "'" << bad << "'";
  }
}

TEST(HarnessNumberText, NumbersAreFiniteAndInRange) {
  EXPECT_EQ(parseNumber("2.5", 0, 10), 2.5);
  EXPECT_EQ(parseNumber("1e1", 0, 10), 10.0);
  for (const char* bad :
       {"", "inf", "-inf", "nan", "1e400", "2.5s", "11", "-1", " 1"}) {
    EXPECT_EQ(parseNumber(bad, 0, 10), std::nullopt) << "'" << bad << "'";
  }
}

// Each run sets several bad variables at once: the refusal names every one
// (one clause each), so a table of runs checks each variable's range.
struct BadValues {
  std::map<std::string, std::string> values;
  std::vector<std::string> clauses;  // what the refusal says of each
};

class HarnessSettingsRefusal : public ::testing::TestWithParam<BadValues> {};

TEST_P(HarnessSettingsRefusal, ValuesOutOfRangeEndTheBinaryBeforeAnyTest) {
  InnerOptions options;
  options.filter = "InnerReports.Passes/*:InnerExit.ZRunsAfterTheOthers";
  options.env = GetParam().values;
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 10) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("[ranktest] bad environment: "),
                              Not(HasSubstr("[ RUN      ]"))));
  for (const std::string& clause : GetParam().clauses) {
    EXPECT_THAT(r.output, HasSubstr(clause));
  }
  // The binary's start (libtorch's static initialisation) and the refusal:
  // well under the time of one test.
  EXPECT_LT(r.elapsed, std::chrono::seconds(5) * kSanitizerSlowdown);
}

INSTANTIATE_TEST_SUITE_P(
    Harness, HarnessSettingsRefusal,
    ::testing::Values(
        BadValues{
            {{"WORLD_SIZE", "4294967297"},
             {"RANKTEST_TIMEOUT", "inf"},
             {"RANKTEST_TIMEOUT_SCALE", "1e10"},
             {"RANKTEST_PEER_SILENCE", "inf"},
             {"RANKTEST_DEBUG_RANK", "4294967297"},
             {"RANKTEST_OUTPUT_LINES", "-1"},
             {"RANKTEST_REUSE", "2"},
             {"RANKTEST_VERBOSE", "yes"},
             {"RANKTEST_CHECK_COLLECTIVES", "01"},
             {"RANKTEST_ALL_RANKS_REPORT", "-1"},
             {"RANKTEST_STORE", "udp"},
             {"RANKTEST_START_METHOD", "thread"},
             {"BACKEND", "mpi"}},
            {"WORLD_SIZE='4294967297' is not an integer from 1 to 65536",
             "RANKTEST_TIMEOUT='inf' is not a number of seconds in (0, 86400]",
             "TIMEOUT_SCALE='1e10' is not a number of times in (0, 1000]",
             "PEER_SILENCE='inf' is not a number of seconds in (0, 3600]",
             "DEBUG_RANK='4294967297' is not an integer from 0 to 65535",
             "RANKTEST_OUTPUT_LINES='-1' is not an integer from 0 to 1000000",
             "RANKTEST_REUSE='2' is not 0 or 1",
             "RANKTEST_VERBOSE='yes' is not 0 or 1",
             "RANKTEST_CHECK_COLLECTIVES='01' is not 0 or 1",
             "RANKTEST_ALL_RANKS_REPORT='-1' is not 0 or 1",
             "RANKTEST_STORE='udp' is not file or tcp",
             "RANKTEST_START_METHOD='thread' is not fork or spawn",
             "BACKEND='mpi' is not one of gloo, nccl"}},
        BadValues{{{"WORLD_SIZE", "99999999999999999999999"},
                   {"RANKTEST_TIMEOUT", "1e12"},
                   {"RANKTEST_TIMEOUT_SCALE", "nan"},
                   {"RANKTEST_PEER_SILENCE", "0.5"}},
                  {"WORLD_SIZE='99999999999999999999999' is not an integer",
                   "RANKTEST_TIMEOUT='1e12' is not a number of seconds",
                   "RANKTEST_TIMEOUT_SCALE='nan' is not a number of times",
                   "RANKTEST_PEER_SILENCE='0.5' is below 1"}},
        BadValues{{{"WORLD_SIZE", "0"}},
                  {"WORLD_SIZE='0' is not an integer from 1 to 65536"}}),
    [](const auto& info) { return "run" + std::to_string(info.index); });

// A world size at which no distributed test of the binary holds would skip
// them all and pass: refused before any test, naming the cell and the
// declared sizes, run directly and as ctest runs one test.
TEST(HarnessSettings, WorldSizeWithoutATestIsRefusedNamingTheCell) {
  InnerOptions options;
  options.binary = RANKTEST_NO_INIT_BINARY;  // its tests are at 2 ranks only
  options.filter = "InnerNoInit.Passes/gloo_ws2";
  options.env = {{"RANKTEST_INNER_CALL_INIT", "1"}, {"WORLD_SIZE", "5"}};
  const InnerResult direct = runInner(options);
  EXPECT_EQ(direct.exit_code, 10) << direct.output;
  EXPECT_THAT(direct.output,
              AllOf(HasSubstr("[ranktest] WORLD_SIZE=5 runs no distributed "
                              "test of this binary"),
                    HasSubstr("declared at world size 2"),
                    Not(HasSubstr("[ RUN      ]"))));
  // As ctest runs it: through the warm client, whose warm process ends with
  // the shell (its ctest run here).
  options.launcher = {"/bin/sh", "-c", "\"$0\" \"$@\"; exit $?",
                      RANKTEST_WARM_CLIENT};
  options.env["RANKTEST_SKIPPED_EXIT_CODE"] = "77";
  const InnerResult warm = runInner(options);
  EXPECT_EQ(warm.exit_code, 10) << warm.output;
  // At a size where a test holds, the others skip as before.
  options.env["WORLD_SIZE"] = "2";
  const InnerResult held = runInner(options);
  EXPECT_EQ(held.exit_code, 0) << held.output;
}

}  // namespace
}  // namespace harness_suite
