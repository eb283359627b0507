// The life of rank processes around a test: they die with a killed parent,
// leave no socket behind, wait for a debugger on request, and can be reused
// across tests with failures isolated. Each test runs the inner binary.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <regex>
#include <thread>

#include "inner_run.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace std::chrono_literals;

class HarnessLifecycle : public ::testing::TestWithParam<std::string> {};

// SIGKILL cannot be caught: only PR_SET_PDEATHSIG ends the ranks. While they
// run, the checker must see them (and, for the TCP store, the parent's
// listening socket), so that seeing none afterwards means something.
TEST_P(HarnessLifecycle, KillingTheParentWithSigkillLeavesNoRankRunning) {
  std::vector<pid_t> running;
  std::vector<int> listening;
  InnerOptions options;
  options.filter = "InnerReports.HangsInEveryRank/gloo_ws2";
  options.env = {{"RANKTEST_VERBOSE", "1"}, {"RANKTEST_STORE", GetParam()}};
  options.limit = 30s;
  options.watcher = [&](pid_t parent, const std::string& token,
                        const std::string& output) {
    if (countOccurrences(output, " ready\n") < 2) return false;
    running = processesWithToken(token);
    listening = listeningPortsOf({parent});
    ::kill(parent, SIGKILL);
    return true;
  };
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, -1) << "the parent was killed by a signal";
  EXPECT_EQ(running.size(), 3u) << "parent and two ranks while running";
  if (GetParam() == "tcp") {
    EXPECT_THAT(listening, Not(IsEmpty()))
        << "the TCP store's port was not seen while the test ran";
  }
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  // The FileStore's file was unlinked at creation: nothing on disk even now.
  EXPECT_THAT(r.files_left, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Harness, HarnessLifecycle,
                         ::testing::Values("file", "tcp"),
                         [](const auto& info) { return info.param; });

// Parameter: RANKTEST_REUSE (one-shot ranks or reused workers).
class HarnessDebugRank : public ::testing::TestWithParam<std::string> {};

TEST_P(HarnessDebugRank, RankWaitsForTheDebuggerAndTheDeadlineIsLifted) {
  pid_t waiting = 0;
  InnerOptions options;
  options.filter = "InnerReports.Passes/gloo_ws2";
  options.env = {{"RANKTEST_DEBUG_RANK", "1"},
                 {"RANKTEST_TIMEOUT", "1"},
                 {"RANKTEST_VERBOSE", "1"},
                 {"RANKTEST_REUSE", GetParam()}};
  options.watcher = [&](pid_t, const std::string&, const std::string& output) {
    std::smatch match;
    static const std::regex line(
        R"(rank 1 \(pid (\d+)\) waits for a debugger)");
    if (!std::regex_search(output, match, line)) return false;
    waiting = static_cast<pid_t>(std::stoi(match[1]));
    // Twice the deadline: a debugger session would take longer still.
    std::this_thread::sleep_for(2s);
    ::kill(waiting, SIGCONT);
    return true;
  };
  const InnerResult r = runInner(options);
  EXPECT_GT(waiting, 0) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GE(r.elapsed, 2s);
  EXPECT_THAT(r.processes_left, IsEmpty());
}

// The rank's own output is hidden without RANKTEST_VERBOSE: the parent must
// say which process to attach to. Without that line nobody resumes the rank,
// and the outer limit ends the run.
TEST_P(HarnessDebugRank, ParentPrintsHowToAttachWithoutVerbose) {
  std::string pid, attach_pid;
  bool is_a_rank_of_the_run = false;
  InnerOptions options;
  options.filter = "InnerReports.Passes/gloo_ws2";
  options.env = {{"RANKTEST_DEBUG_RANK", "1"}, {"RANKTEST_REUSE", GetParam()}};
  options.limit = 15s;
  options.watcher = [&](pid_t parent, const std::string& token,
                        const std::string& output) {
    std::smatch match;
    static const std::regex line(R"(\[ranktest\] rank 1 \(pid (\d+)\) )"
                                 R"(waits for a debugger: gdb -p (\d+))");
    if (!std::regex_search(output, match, line)) return false;
    pid = match[1];
    attach_pid = match[2];
    const pid_t waiting = static_cast<pid_t>(std::stoi(pid));
    for (pid_t process : processesWithToken(token)) {
      is_a_rank_of_the_run |= process == waiting && process != parent;
    }
    ::kill(waiting, SIGCONT);
    return true;
  };
  const InnerResult r = runInner(options);
  ASSERT_FALSE(pid.empty()) << r.output;
  EXPECT_EQ(attach_pid, pid);
  EXPECT_TRUE(is_a_rank_of_the_run) << "pid " << pid << " is no rank";
  EXPECT_EQ(countOccurrences(r.output, "waits for a debugger"), 1u) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.processes_left, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Harness, HarnessDebugRank, ::testing::Values("0", "1"),
                         [](const auto& info) { return "reuse" + info.param; });

// Every unusable variable is named, in one message, before any test.
TEST(HarnessEnvironment, BadValuesEndTheBinaryBeforeAnyTestWithTheReasons) {
  InnerOptions options;
  options.filter = "InnerReports.Passes/*";
  options.env = {{"RANKTEST_START_METHOD", "vfork"},
                 {"RANKTEST_PEER_SILENCE", "0.1"}};
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 10) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("[ranktest] bad environment: "),
                    HasSubstr("RANKTEST_START_METHOD='vfork' is not fork or "
                              "spawn"),
                    HasSubstr("RANKTEST_PEER_SILENCE='0.1' is below 1 s: a "
                              "rank's heartbeat moves every 0.2 s"),
                    Not(HasSubstr("[ RUN      ]"))));
}

TEST(HarnessEnvironment, NcclWithoutNcclSkipsWithItsCode) {
  InnerOptions options;
  options.filter = "InnerReports.Passes/*";
  options.env = {{"BACKEND", "nccl"}, {"CUDA_VISIBLE_DEVICES", ""}};
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[  SKIPPED ] InnerReports.Passes/nccl_ws2"));
  EXPECT_THAT(r.output, testing::AnyOf(HasSubstr("code 76"),    // not built
                                       HasSubstr("code 77")));  // < 2 GPUs
}

// Pids printed by rank 0 in each reused test, in order.
std::vector<std::string> rank0Pids(const std::string& output) {
  std::vector<std::string> pids;
  static const std::regex line(R"(\[rank 0\] pid (\d+))");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line);
       it != std::sregex_iterator(); ++it) {
    pids.push_back((*it)[1]);
  }
  return pids;
}

class HarnessReuse : public ::testing::TestWithParam<std::string> {};

TEST_P(HarnessReuse, WorkersRunManyTestsAndFailuresStayInTheirTest) {
  InnerOptions options;
  options.filter = "InnerReuse.*";
  options.env = {{"RANKTEST_VERBOSE", "1"},
                 {"RANKTEST_START_METHOD", GetParam()}};
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  for (const char* passing :
       {"A_Passes", "B_PassesInTheSameProcesses",
        "D_PassesAfterThePoolIsRebuilt", "F_PassesAfterTheHang"}) {
    EXPECT_THAT(r.output, HasSubstr(std::string("[       OK ] InnerReuse.") +
                                    passing + "/gloo_ws2"));
  }
  EXPECT_THAT(
      r.output,
      AllOf(HasSubstr("[  FAILED  ] InnerReuse.C_FailsInRank1/gloo_ws2"),
            HasSubstr("rank 1 fails in a reused worker"),
            HasSubstr("[  FAILED  ] InnerReuse.E_HangsInRank0/gloo_ws2"),
            HasSubstr("still running: rank 0")));
  // A, B and C share processes; D gets new ones after C's failure; F gets
  // new ones after E's timeout.
  const std::vector<std::string> pids = rank0Pids(r.output);
  ASSERT_EQ(pids.size(), 5u) << r.output;
  EXPECT_EQ(pids[0], pids[1]);
  EXPECT_EQ(pids[1], pids[2]);
  EXPECT_NE(pids[2], pids[3]);
  EXPECT_NE(pids[3], pids[4]);
  EXPECT_THAT(r.processes_left, IsEmpty());
  EXPECT_THAT(r.files_left, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Harness, HarnessReuse,
                         ::testing::Values("fork", "spawn"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace harness_suite
