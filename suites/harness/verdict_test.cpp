// How the parent words a failed test when several ranks failed: the first
// rank to fail is the root cause, in full; ranks that failed after it only
// because a peer went away are collapsed under it; other ranks that failed
// on their own follow, in the order they failed.

#include "verdict/verdict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "ranktest/settings.h"
#include "ranktest/skip_codes.h"
#include "verdict/source_paths.h"

namespace harness_suite {
namespace {

using namespace ranktest::internal;
using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const auto kJudgedFrom = std::chrono::steady_clock::now();

// A rank that failed `after` the start with `message` at file.cpp:`line`.
RankReport failedRank(int rank, std::chrono::milliseconds after,
                      const std::string& message, int line) {
  RankReport r;
  r.rank = rank;
  r.code = ranktest::kTestErrorExitCode;
  r.failures.push_back({"file.cpp", line, message});
  r.failed_at = kJudgedFrom + after;
  r.tail.push_back("[rank " + std::to_string(rank) + "] output");
  return r;
}

RankReport passedRank(int rank) {
  RankReport r;
  r.rank = rank;
  return r;
}

Verdict judgeRanks(std::vector<RankReport> ranks) {
  SuperviseResult result;
  result.ranks = std::move(ranks);
  return judge({.test = "Suite.Test",
                .file = "test.cpp",
                .line = 1,
                .how = "fork, file store, gloo"},
               result);
}

TEST(HarnessVerdict, OneFailedRankIsReportedWithoutARole) {
  const Verdict v = judgeRanks(
      {passedRank(0), failedRank(1, 5ms, "Expected: 1\n  Actual: 2", 10)});
  ASSERT_EQ(v.kind, Verdict::Kind::kFailed);
  ASSERT_EQ(v.failures.size(), 1U);
  EXPECT_THAT(v.failures[0].text,
              StartsWith("[ranktest] rank 1 of 2 failed\n"));
  EXPECT_EQ(v.failures[0].line, 10);
}

// At three ranks, the rank whose assertion failed first is the root cause;
// the two that then lost their connection to it are collapsed under it, in
// the order they failed, though one of them has a lower rank.
TEST(HarnessVerdict, PeerResetCollateralIsCollapsedUnderTheRootCause) {
  const Verdict v = judgeRanks({
      failedRank(0, 9ms, "gloo: Connection reset by peer\nmore", 30),
      failedRank(1, 2ms, "Expected equality of a and b", 20),
      failedRank(2, 7ms, "gloo: Connection closed by peer", 40),
  });
  ASSERT_EQ(v.kind, Verdict::Kind::kFailed);
  ASSERT_EQ(v.failures.size(), 1U) << v.failures[1].text;
  const std::string& text = v.failures[0].text;
  EXPECT_THAT(text, StartsWith("[ranktest] rank 1 of 3 failed, the first to "
                               "fail (root cause)\n"));
  EXPECT_EQ(v.failures[0].line, 20);
  EXPECT_THAT(text,
              AllOf(HasSubstr("Expected equality of a and b"),
                    HasSubstr("  collateral: failed after rank 1, only because "
                              "a peer closed or reset its connection:\n"
                              "    rank 2: file.cpp:40: gloo: Connection "
                              "closed by peer\n"
                              "    rank 0: file.cpp:30: gloo: Connection reset "
                              "by peer\n"),
                    Not(HasSubstr("more")), Not(HasSubstr("[rank 0] output"))));
}

// Seen in the same poll, an error of the rank's own comes before a lost peer.
TEST(HarnessVerdict, OnATieTheRanksOwnErrorIsTheRootCause) {
  const Verdict v = judgeRanks({
      failedRank(0, 3ms, "Connection reset by peer", 30),
      failedRank(1, 3ms, "its own assertion", 20),
  });
  ASSERT_EQ(v.failures.size(), 1U);
  EXPECT_THAT(v.failures[0].text,
              AllOf(StartsWith("[ranktest] rank 1 of 2 failed, the first"),
                    HasSubstr("    rank 0: file.cpp:30: Connection reset")));
}

// Two ranks that failed on their own are both reported in full, the first
// to fail first.
TEST(HarnessVerdict, IndependentFailuresFollowTheRootCauseInFull) {
  const Verdict v = judgeRanks({
      failedRank(0, 8ms, "rank 0's assertion", 30),
      passedRank(1),
      failedRank(2, 1ms, "rank 2's assertion", 20),
  });
  ASSERT_EQ(v.failures.size(), 2U);
  EXPECT_THAT(v.failures[0].text,
              AllOf(StartsWith("[ranktest] rank 2 of 3 failed, the first to "
                               "fail (root cause)\n"),
                    Not(HasSubstr("collateral"))));
  EXPECT_THAT(v.failures[1].text,
              AllOf(StartsWith("[ranktest] rank 0 of 3 failed, after rank 2\n"),
                    HasSubstr("rank 0's assertion")));
}

// Two ranks whose reports differ only in the rank: one block, their output
// once when it is the same but for the "[rank N]" prefix.
TEST(HarnessVerdict, RanksThatFailAlikeAreReportedOnce) {
  const Verdict v = judgeRanks({failedRank(0, 2ms, "the same message", 10),
                                failedRank(1, 3ms, "the same message", 10)});
  ASSERT_EQ(v.failures.size(), 1U);
  const std::string& text = v.failures[0].text;
  EXPECT_THAT(text, AllOf(StartsWith("[ranktest] ranks 0, 1 of 2 failed "
                                     "alike\n"),
                          HasSubstr("  output of rank 0 (last 1 lines; rank 1 "
                                    "printed the same):\n    [rank 0] output"),
                          Not(HasSubstr("other ranks:")),
                          Not(HasSubstr("[rank 1] output"))));
  EXPECT_EQ(text.find("the same message"), text.rfind("the same message"))
      << text;
  EXPECT_EQ(v.failures[0].line, 10);
}

// Alike ranks stand where the first of them failed: after the root cause.
TEST(HarnessVerdict, AlikeRanksKeepTheRootCauseFirst) {
  RankReport late = failedRank(1, 9ms, "the same message", 10);
  late.tail = {"[rank 1] other output"};
  const Verdict v = judgeRanks({failedRank(0, 8ms, "the same message", 10),
                                late, failedRank(2, 1ms, "rank 2's own", 20)});
  ASSERT_EQ(v.failures.size(), 2U);
  EXPECT_THAT(v.failures[0].text,
              StartsWith("[ranktest] rank 2 of 3 failed, the first to fail "
                         "(root cause)\n"));
  EXPECT_THAT(v.failures[1].text,
              AllOf(StartsWith("[ranktest] ranks 0, 1 of 3 failed alike, after "
                               "rank 2\n"),
                    HasSubstr("  output of rank 0 (last 1 lines):\n"),
                    HasSubstr("  output of rank 1 (last 1 lines):\n    [rank "
                              "1] other output")));
}

// A message that names the rank itself, as a hook's error does, still
// fails alike: each rank says "rank <own number>". The block quotes the
// first rank's text and says so.
TEST(HarnessVerdict, RanksNamingThemselvesFailAlike) {
  auto hookThrew = [](int rank) {
    return "communication hook 'topk' on rank " + std::to_string(rank) +
           " (bucket 0) threw: boom";
  };
  const Verdict v = judgeRanks({failedRank(0, 2ms, hookThrew(0), 10),
                                failedRank(1, 3ms, hookThrew(1), 10)});
  ASSERT_EQ(v.failures.size(), 1U);
  const std::string& text = v.failures[0].text;
  EXPECT_THAT(text,
              AllOf(StartsWith("[ranktest] ranks 0, 1 of 2 failed alike\n"),
                    HasSubstr("  as rank 0 reported it (rank 1: the same, "
                              "with its own rank number)\n"),
                    HasSubstr(hookThrew(0)), Not(HasSubstr(hookThrew(1)))));
}

// Only a rank's own number is its own: a peer's rank, or a longer number,
// still tells the reports apart.
TEST(HarnessVerdict, RanksNamingTheirPeersAreNotAlike) {
  const Verdict v =
      judgeRanks({failedRank(0, 2ms, "rank 0 got 5 from rank 1", 10),
                  failedRank(1, 3ms, "rank 1 got 5 from rank 0", 10),
                  failedRank(2, 4ms, "rank 21 got 5", 10),
                  failedRank(3, 5ms, "rank 31 got 5", 10)});
  ASSERT_EQ(v.failures.size(), 4U);
  for (const auto& failure : v.failures) {
    EXPECT_THAT(failure.text, Not(HasSubstr("alike")));
  }
}

TEST(HarnessVerdict, RanksWithDifferentMessagesAreNotAlike) {
  const Verdict v = judgeRanks({failedRank(0, 2ms, "Which is: 0", 10),
                                failedRank(1, 3ms, "Which is: 1", 10)});
  ASSERT_EQ(v.failures.size(), 2U);
  EXPECT_THAT(v.failures[0].text, Not(HasSubstr("alike")));
}

RankReport hungRank(int rank, const std::string& address) {
  RankReport r;
  r.rank = rank;
  r.end = RankReport::End::kTimedOut;
  r.stack = {
      "[ranktest] stack of rank " + std::to_string(rank) + " (pid " +
          std::to_string(100 + rank) + ", at the deadline)",
      "/usr/lib/x86_64-linux-gnu/libc.so.6(clock_nanosleep+0x5)" + address,
      "waitHere() at /home/u/test.cpp:7", "[ranktest] end of stack"};
  return r;
}

// Hung ranks in the same place: their pids and load addresses differ.
TEST(HarnessVerdict, RanksStillRunningAlikeAtTheDeadlineShareTheirStack) {
  SuperviseResult result;
  result.timed_out = true;
  result.ranks = {hungRank(0, "[0x7f01]"), hungRank(1, "[0x7f99]")};
  const Verdict v = judge({.test = "Suite.Test", .file = "test.cpp"}, result);
  ASSERT_EQ(v.failures.size(), 1U);
  const std::string& text = v.failures[0].text;
  EXPECT_THAT(text, HasSubstr("ranks 0, 1 of 2 were still running, alike:\n"));
  EXPECT_EQ(text.find("waitHere()"), text.rfind("waitHere()")) << text;
}

TEST(HarnessVerdict, RanktestsOwnPathsAreRelativeToItsTree) {
  if (ranktest::internal::sourceRoot().empty()) {
    GTEST_SKIP() << "compiled with relative paths: nothing to shorten";
  }
  const std::string file = sourceRoot() + "suites/harness/x_test.cpp";
  RankReport r = failedRank(1, 1ms, "message", 10);
  r.failures[0].file = file;
  r.stack = {"[ranktest] stack of rank 1 (pid 9, where)",
             "f() at " + sourceRoot() + "harness/src/rank/rank_runner.cpp:120",
             "g() at /home/user/project/hook.cpp:31",
             "[ranktest] end of stack"};
  const Verdict v = judgeRanks({passedRank(0), r});
  ASSERT_EQ(v.failures.size(), 1U);
  EXPECT_THAT(v.failures[0].text,
              AllOf(HasSubstr("gtest failure at suites/harness/x_test.cpp:10"),
                    HasSubstr("f() at harness/src/rank/rank_runner.cpp:120"),
                    HasSubstr("g() at /home/user/project/hook.cpp:31"),
                    Not(HasSubstr(sourceRoot()))));
  // Where gtest points stays a path an IDE opens.
  EXPECT_EQ(v.failures[0].file, file);
}

TEST(HarnessVerdict, LibraryFramesAreFoldedUnlessVerbose) {
  RankReport r = failedRank(1, 1ms, "message", 10);
  r.stack = {"[ranktest] stack of rank 1 (pid 9, where)",
             "/opt/t/lib/libc10.so(c10::detail::torchCheckFail()+0xe6)[0x7e]",
             "/opt/t/lib/libtorch_cpu.so(+0x2f63baf)[0x7f]",
             "/opt/t/lib/libtorch_cpu.so(at::add()+0xf4)[0x7f]",
             "mine() at /home/user/project/hook.cpp:31",
             "[ranktest] end of stack"};
  const Verdict v = judgeRanks({passedRank(0), r});
  ASSERT_EQ(v.failures.size(), 1U);
  if (ranktest::settings().verbose) {
    EXPECT_THAT(v.failures[0].text, HasSubstr("libtorch_cpu.so(+0x2f63baf)"));
  } else {
    EXPECT_THAT(v.failures[0].text,
                AllOf(HasSubstr("    ... 3 frames in libc10.so, "
                                "libtorch_cpu.so\n    mine() at"),
                      Not(HasSubstr("torchCheckFail"))));
  }
}

}  // namespace
}  // namespace harness_suite
