// How the parent words a failed test when several ranks failed: the first
// rank to fail is the root cause, in full; ranks that failed after it only
// because a peer went away are collapsed under it; other ranks that failed
// on their own follow, in the order they failed.

#include "ranktest/internal/verdict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "ranktest/skip_codes.h"

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

}  // namespace
}  // namespace harness_suite
