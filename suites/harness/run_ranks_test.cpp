// ranktest::runRanks: a body in W forked ranks, each on a working process
// group, judged as a test would be, and nothing left behind, all without a
// registered test.

#include "ranktest/run_ranks.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "inner_run.h"
#include "process_probe.h"
#include "ranktest/distributed_test.h"

namespace harness_suite {
namespace {

using ranktest::Rank;
using ranktest::RunOptions;
using ranktest::RunResult;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace std::chrono_literals;

// True when this process has no child left, reaped or not.
bool noChildLeft() {
  return ::waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD;
}

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ranktest-runranks-XXXXXX")
            .string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    path_ = pattern;
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

class HarnessRunRanks : public ::testing::TestWithParam<ranktest::StoreKind> {};

// Each rank writes what its allreduce gave; the parent reads every file, so
// a rank that did not run, or ran on a broken group, fails the test.
TEST_P(HarnessRunRanks, EveryRankRunsTheBodyOnAWorkingGroup) {
  ScratchDir dir;
  const RunResult result = ranktest::runRanks(
      {.world_size = 3, .store = GetParam(), .timeout = 30s},
      [&](const Rank& r) {
        std::vector<at::Tensor> t{at::full({1}, r.rank + 1, at::kLong)};
        r.pg->allreduce(t)->wait();
        std::ofstream(dir.file("rank" + std::to_string(r.rank)))
            << r.world_size << " " << r.backend << " " << t[0].item<long>();
      });
  ASSERT_TRUE(result.passed()) << result.message;
  EXPECT_EQ(result.message, "");
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(readFile(dir.file("rank" + std::to_string(rank))), "3 gloo 6")
        << "rank " << rank;
  }
  EXPECT_TRUE(noChildLeft());
}

INSTANTIATE_TEST_SUITE_P(Harness, HarnessRunRanks,
                         ::testing::Values(ranktest::StoreKind::kFile,
                                           ranktest::StoreKind::kTcp),
                         [](const auto& info) {
                           return info.param == ranktest::StoreKind::kFile
                                      ? "file"
                                      : "tcp";
                         });

// Rank 0 would sleep past the deadline; rank 1 throws, and the stop ends
// the run at once. Rank 1 throws only once rank 0 has left the group's
// construction: a peer that leaves mid-collective fails it on its own
// ("Connection closed by peer"), which is not what this test is about.
TEST(HarnessRunRanksFailures, AThrowingRankFailsTheRunAndStopsTheOthers) {
  const RunResult result =
      ranktest::runRanks({.world_size = 2, .timeout = 30s}, [](const Rank& r) {
        if (r.rank == 1) {
          r.store->wait({"rank0_sleeps"});
          throw std::runtime_error("bad shard 7");
        }
        r.store->set("rank0_sleeps", std::vector<std::uint8_t>{});
        std::this_thread::sleep_for(1h);
      });
  EXPECT_EQ(result.outcome, RunResult::Outcome::kFailed);
  EXPECT_THAT(result.message,
              AllOf(HasSubstr("rank 1 of 2 failed"),
                    HasSubstr("std::runtime_error"), HasSubstr("bad shard 7"),
                    HasSubstr("rank 0 was stopped because rank 1 failed")));
  EXPECT_LT(result.elapsed, 20s);
  EXPECT_TRUE(noChildLeft());
}

TEST(HarnessRunRanksFailures, AGtestAssertionInTheBodyFailsTheRun) {
  const RunResult result = ranktest::runRanks(
      {.world_size = 2, .timeout = 30s},
      [](const Rank& r) { EXPECT_EQ(r.rank, 0) << "only rank 0 agrees"; });
  EXPECT_FALSE(result.passed());
  EXPECT_THAT(result.message, AllOf(HasSubstr("rank 1 of 2 failed"),
                                    HasSubstr("run_ranks_test.cpp"),
                                    HasSubstr("only rank 0 agrees")));
}

TEST(HarnessRunRanksFailures, ACrashingRankIsNamedWithItsSignal) {
  const RunResult result =
      ranktest::runRanks({.world_size = 2, .timeout = 30s}, [](const Rank& r) {
        if (r.rank == 1) {
          r.store->wait({"rank0_sleeps"});
          std::abort();
        }
        r.store->set("rank0_sleeps", std::vector<std::uint8_t>{});
        std::this_thread::sleep_for(1h);
      });
  EXPECT_FALSE(result.passed());
  EXPECT_THAT(result.message, AllOf(HasSubstr("rank 1 of 2 was killed by "
                                              "signal SIGABRT")));
  EXPECT_TRUE(noChildLeft());
}

TEST(HarnessRunRanksFailures, TheDeadlineStopsAHangingRankWithItsStack) {
  const RunResult result =
      ranktest::runRanks({.world_size = 2, .timeout = 1s}, [](const Rank& r) {
        if (r.rank == 0) std::this_thread::sleep_for(1h);
      });
  EXPECT_FALSE(result.passed());
  EXPECT_THAT(result.message,
              AllOf(HasSubstr("timed out after"),
                    HasSubstr("still running: rank 0"), HasSubstr("stack:")));
  EXPECT_LT(result.elapsed, 15s);
  EXPECT_TRUE(noChildLeft());
}

TEST(HarnessRunRanksFailures, RanksThatAllSkipSkipTheRunWithTheReason) {
  const RunResult result =
      ranktest::runRanks({.world_size = 2, .timeout = 30s}, [](const Rank&) {
        ranktest::skipRank(ranktest::SkipCode::kFeatureUnavailable,
                           "no fast link here");
      });
  EXPECT_EQ(result.outcome, RunResult::Outcome::kSkipped);
  EXPECT_THAT(result.message,
              AllOf(HasSubstr("code 88"), HasSubstr("no fast link here")));
}

TEST(HarnessRunRanksFailures, BadOptionsThrowBeforeAnyRankStarts) {
  const auto body = [](const Rank&) {};
  EXPECT_THROW(ranktest::runRanks({.world_size = 0}, body),
               std::invalid_argument);
  EXPECT_THROW(ranktest::runRanks({.backend = "mpi"}, body),
               std::invalid_argument);
  EXPECT_THROW(ranktest::runRanks({.timeout = 0s}, body),
               std::invalid_argument);
  EXPECT_TRUE(noChildLeft());
}

// The environment reaches runRanks as it reaches a test: read in an inner
// run, since this process has read it already.
InnerResult runInnerWith(const std::string& test,
                         std::map<std::string, std::string> env) {
  InnerOptions options;
  options.filter = "InnerRunRanks." + test;
  options.env = std::move(env);
  const InnerResult result = runInner(options);
  EXPECT_THAT(result.processes_left, IsEmpty()) << result.output;
  return result;
}

// The body takes twice its timeout: it passes only with the deadline
// scaled, and its output streams only with RANKTEST_VERBOSE (a passing run
// shows it only so; a failing one without shows it at most once, in its
// report, and not at all where rank 1 had not reached its body).
TEST(HarnessRunRanksEnvironment, TimeoutScaleAndVerboseApply) {
  const InnerResult scaled = runInnerWith(
      "BodyThatTakesTwiceItsTimeout",
      {{"RANKTEST_TIMEOUT_SCALE", "4"}, {"RANKTEST_VERBOSE", "1"}});
  EXPECT_EQ(scaled.exit_code, 0) << scaled.output;
  EXPECT_THAT(scaled.output, HasSubstr("[rank 1] rank 1 starts its slow body"));

  const InnerResult unscaled = runInnerWith("BodyThatTakesTwiceItsTimeout", {});
  EXPECT_NE(unscaled.exit_code, 0) << unscaled.output;
  EXPECT_THAT(unscaled.output, HasSubstr("timed out after"));
  EXPECT_LE(countOccurrences(unscaled.output, "rank 1 starts its slow body"),
            1u)
      << unscaled.output;
}

// RANKTEST_OUTPUT_LINES sizes the failing rank's tail (60 by default).
TEST(HarnessRunRanksEnvironment, OutputLinesSizeTheFailingRanksTail) {
  const InnerResult r = runInnerWith("FailingRankWithALongOutput",
                                     {{"RANKTEST_OUTPUT_LINES", "3"}});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("line 100 of rank 1"),
                              Not(HasSubstr("line 90 of rank 1"))));
}

// A variable it cannot use fails the run before any rank starts, naming it.
TEST(HarnessRunRanksEnvironment, BadVariableFailsTheRunUnstarted) {
  const InnerResult r = runInnerWith("BodyThatTakesTwiceItsTimeout",
                                     {{"RANKTEST_TIMEOUT_SCALE", "fast"}});
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("[ranktest] bad environment: "
                                        "RANKTEST_TIMEOUT_SCALE='fast'"),
                              Not(HasSubstr("starts its slow body"))));
}

}  // namespace
}  // namespace harness_suite
