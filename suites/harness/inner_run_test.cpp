// The self-test runner leaves nothing behind even when the suite that called
// it is killed (SIGKILL: nothing runs in it any more): the inner run dies
// with it, its ranks die with the inner run, and its temporary directories
// are removed.

#include "inner_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

namespace harness_suite {
namespace {

using ::testing::IsEmpty;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Waits (bounded) until `count()` rises to `target` (or falls to it).
template <typename Count>
std::size_t waitForCount(Count count, std::size_t target, bool rising,
                         std::chrono::milliseconds limit) {
  const auto end = Clock::now() + limit;
  std::size_t n = count();
  while ((rising ? n < target : n > target) && Clock::now() < end) {
    std::this_thread::sleep_for(10ms);
    n = count();
  }
  return n;
}

// This binary is the killed suite; the test it runs starts an inner run
// whose rank waits for a debugger, which would live for ever unaided.
TEST(HarnessInnerRun, KillingTheCallingSuiteLeavesNoInnerRunAndNoTempDir) {
  std::string nested_token;
  std::size_t nested_running = 0;
  InnerOptions options;
  options.binary = std::filesystem::read_symlink("/proc/self/exe").string();
  options.filter =
      "Harness/HarnessDebugRank.RankWaitsForTheDebuggerAndTheDeadlineIsLifted/"
      "reuse0";
  options.limit = 60s;
  options.watcher = [&](pid_t suite, const std::string&,
                        const std::string& output) {
    if (output.find("[ RUN      ]") == std::string::npos) return false;
    // runInner's first token in that process.
    nested_token = std::to_string(suite) + "-0";
    nested_running = waitForCount(
        [&] { return processesWithToken(nested_token).size(); }, 3, true, 20s);
    ::kill(suite, SIGKILL);
    return true;
  };
  const InnerResult r = runInner(options);
  ASSERT_FALSE(nested_token.empty()) << r.output;
  waitForCount([&] { return processesWithToken(nested_token).size(); }, 0,
               false, 5s);
  const std::vector<pid_t> nested_left = processesWithToken(nested_token);
  for (pid_t leftover : nested_left) ::kill(leftover, SIGKILL);

  EXPECT_EQ(r.exit_code, -1) << "the suite was killed by a signal";
  EXPECT_EQ(nested_running, 3u) << "inner parent and two ranks while running";
  EXPECT_THAT(nested_left, IsEmpty()) << "inner processes outlived the suite";
  // The suite's TMPDIR is the runner's: its ranktest-selftest-* directories.
  EXPECT_THAT(r.files_left, IsEmpty());
  // The suite itself and the reaper of its directories.
  EXPECT_THAT(r.processes_left, IsEmpty());
}

}  // namespace
}  // namespace harness_suite
