// A communication hook that goes wrong is reported naming the hook, the
// bucket and every rank: where it threw (the user's file:line), that its
// future never completed, or that it was inside a collective when Gloo
// aborted the rank. Each test runs inner/hook_errors_inner.cpp through the
// harness's own parent with a short deadline.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "inner_run.h"

namespace {

using harness_suite::InnerOptions;
using harness_suite::InnerResult;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

// The inner tests' deadline; a hang is reported this long after the start.
constexpr int kDeadlineSeconds = 2 * harness_suite::kSanitizerSlowdown;

InnerResult runHookErrors(const std::string& test) {
  InnerOptions options;
  options.binary = RANKTEST_DDP_HOOK_ERRORS_BINARY;
  options.filter = "InnerHookErrors." + test + "/gloo_ws2";
  options.env = {{"RANKTEST_TIMEOUT", std::to_string(kDeadlineSeconds)}};
  harness_suite::spawnUnderSanitizer(options);
  InnerResult result = harness_suite::runInner(options);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.processes_left, IsEmpty()) << result.output;
  EXPECT_THAT(result.files_left, IsEmpty()) << result.output;
  return result;
}

// The line of the inner source marked THROW-SITE, as "file.cpp:N".
std::string throwSite() {
  std::ifstream source(RANKTEST_DDP_HOOK_ERRORS_SOURCE);
  std::string line;
  for (int number = 1; std::getline(source, line); ++number) {
    if (line.find(";  // THROW-SITE") != std::string::npos) {
      return "hook_errors_inner.cpp:" + std::to_string(number);
    }
  }
  ADD_FAILURE() << "no THROW-SITE in " << RANKTEST_DDP_HOOK_ERRORS_SOURCE;
  return "THROW-SITE";
}

std::string onRank(const std::string& hook, int rank) {
  return "communication hook '" + hook + "' on rank " + std::to_string(rank) +
         " (bucket 0)";
}

// `text` as a regular expression that matches it literally.
std::string literally(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string("\\.^$|()[]{}*+?").find(c) != std::string::npos) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

TEST(DdpHookErrors, ThrowingHookIsReportedWhereTheHookThrew) {
  const InnerResult r = runHookErrors("HookThrows");
  const std::string site = throwSite();
  // Each rank is named: in its own block, or in one block for both whose
  // texts differ only in the rank (ranktest quotes one: docs/errors.md).
  for (int rank : {0, 1}) {
    const std::string own =
        onRank("thrower", rank) + " threw: the hook gave up";
    const std::string alike = "\\(ranks? [0-9, ]*\\b" + std::to_string(rank) +
                              "\\b[0-9, ]*: the same, (with|each with) its own "
                              "rank number\\)";
    EXPECT_TRUE(r.output.find(own) != std::string::npos ||
                std::regex_search(r.output, std::regex(alike)))
        << "rank " << rank << " not named:\n"
        << r.output;
  }
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("nested std::runtime_error: the hook gave up"),
                    HasSubstr("where its nested exception std::runtime_error "
                              "was thrown"),
                    ContainsRegex("throwFromHook\\(\\) at [^ ]*" +
                                  literally(site) + "([^0-9]|$)")))
      << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("deadline"))) << r.output;
}

TEST(DdpHookErrors, HookFutureNeverCompletedIsNamedAtTheDeadline) {
  const InnerResult r = runHookErrors("HookFutureNeverCompletes");
  EXPECT_THAT(r.output, HasSubstr("timed out after")) << r.output;
  for (int rank : {0, 1}) {
    EXPECT_THAT(r.output,
                ContainsRegex("pending at the parent's request: " +
                              literally(onRank("never", rank)) +
                              ": its future was returned [0-9]+\\.[0-9] s ago "
                              "and never completed"))
        << r.output;
  }
}

// A hook's notes go once its futures complete: a rank that hangs after a
// good step is not said to wait for its hook.
TEST(DdpHookErrors, CompletedHookIsNotNamedAtTheDeadline) {
  const InnerResult r = runHookErrors("HookCompletesThenTheRankHangs");
  EXPECT_THAT(r.output, HasSubstr("timed out after")) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("communication hook 'fine'")))
      << r.output;
}

// The rank that receives more than it expects is aborted by Gloo's I/O
// thread (`op.preamble.length <= op.nbytes`); its crash handler names the
// hook it was in, whose stack is not the I/O thread's. The other rank names
// its hook too: in the notes it prints when the parent asks for its stack
// before stopping it, or, where Gloo closed the aborting rank's connection
// before that, in its own hook's error ("Connection reset by peer"); or,
// where its allgather had completed and its hook had returned the allreduce's
// future, as collateral of rank 0 (the reset reaches it in that allreduce,
// outside any hook).
TEST(DdpHookErrors, AllgatherOfDifferentSizesInAHookNamesTheHookAtTheAbort) {
  const InnerResult r = runHookErrors("HookAllgathersDifferentSizes");
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("rank 0 of 2 was killed by signal SIGABRT"),
                    ContainsRegex("pending at SIGABRT: " +
                                  literally(onRank("uneven", 0)) +
                                  ": called [0-9]+\\.[0-9] s ago and still "
                                  "running")))
      << r.output;
  EXPECT_THAT(
      r.output,
      AnyOf(AllOf(HasSubstr("rank 1 of 2 was stopped because rank 0 failed:"),
                  ContainsRegex("\\[rank 1\\] \\[ranktest\\] pending at "
                                "[^:]+: " +
                                literally(onRank("uneven", 1)))),
            HasSubstr(onRank("uneven", 1) + " threw: "),
            ContainsRegex("collateral: failed after rank 0, only because a "
                          "peer closed or reset its connection:\n +rank 1: "
                          "[^\n]*Connection reset by peer")))
      << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("timed out"))) << r.output;
}

// Under the collective check, the mismatch is an exception in the hook of
// every rank, which the hook's error names.
TEST(DdpHookErrors, CheckedAllgatherOfDifferentSizesNamesTheHookOnEveryRank) {
  const InnerResult r = runHookErrors("HookAllgathersDifferentSizesChecked");
  for (int rank : {0, 1}) {
    EXPECT_THAT(r.output,
                HasSubstr(onRank("uneven", rank) +
                          " threw: Detected mismatch between collectives"))
        << r.output;
  }
}

}  // namespace
