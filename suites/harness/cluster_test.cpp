// Ranks on different hosts: ci/cluster runs the inner binary across two
// emulated hosts (network namespaces with their own addresses and host
// names, one rank each) under torchrun and under mpirun, and the report of
// a failure, an early exit or a hang on the second host names that host.
// Skipped where namespaces cannot be made (no CAP_NET_ADMIN) or a launcher
// is missing.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "inner_run.h"
#include "sanitizer_slowdown.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

constexpr int kNoNamespaces = 77;  // ci/cluster's exit code without them
// The second host, where rank 1 runs.
constexpr char kSecondHost[] =
    "host cluster-h1 \\(10\\.77\\.0\\.2\\), pid [0-9]+";

class HarnessCluster : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string launcher =
        GetParam() == "torchrun" ? RANKTEST_TORCHRUN : "/usr/bin/mpirun";
    if (::access(launcher.c_str(), X_OK) != 0) {
      GTEST_SKIP() << launcher << " is not installed (ci/setup installs it)";
    }
  }

  // Runs `filter` of the inner binary on 2 hosts x 1 rank: as a feature,
  // or as a program after "--" with its arguments as given; `fault`: the
  // kind of ci/cluster --fault to inject into the second host, 0.5 s after
  // the test's body started (it arms the fault); `watcher`: see
  // InnerOptions.
  InnerResult run(const std::string& filter, bool as_program = false,
                  const std::string& fault = "",
                  decltype(InnerOptions::watcher) watcher = {}) {
    InnerOptions options;
    const std::string cluster =
        std::string(RANKTEST_SOURCE_DIR) + "/ci/cluster";
    // Its logs and XML (OUT) go beside the inner run's TMPDIR, which the
    // runner removes with them, also when this suite is killed (and does not
    // count as leftovers: they are the run's output). Exec'd: a signal
    // for ci/cluster reaches it.
    options.launcher = {"/bin/sh",
                        "-c",
                        "export OUT=\"$TMPDIR/../cluster\"; exec \"$0\" \"$@\"",
                        cluster,
                        "--hosts",
                        "2",
                        "--ranks-per-host",
                        "1",
                        "--launcher",
                        GetParam()};
    if (!fault.empty()) {
      options.launcher.insert(options.launcher.end(),
                              {"--fault", fault, "--fault-host", "1",
                               "--fault-after", "0.5", "--fault-armed"});
    }
    // mpirun outlives its ranks for as long as a host is cut off from it:
    // stopped 2 s after the last rank ended (10 s by default).
    if (fault == "link-down") {
      options.launcher.insert(options.launcher.end(),
                              {"--launcher-grace", "2"});
    }
    options.watcher = std::move(watcher);
    if (as_program) options.launcher.push_back("--");
    options.filter = filter;
    options.args = {"--gtest_color=no"};
    // The torchrun of this build's PyTorch, whichever build ci/cluster's
    // default folder holds.
    // A peer silent for 4 s is given up on (10 s by default): shorter tests.
    options.env = {{"RANKTEST_TORCHRUN", RANKTEST_TORCHRUN},
                   {"RANKTEST_PEER_SILENCE", "4"}};
    spawnUnderSanitizer(options);
    options.limit = 150s * kSanitizerSlowdown;
    InnerResult result = runInner(options);
    if (result.exit_code == kNoNamespaces) {
      skipped_ = true;
      return result;
    }
    // Every namespace, launcher and rank is gone.
    EXPECT_THAT(result.processes_left, IsEmpty()) << result.output;
    EXPECT_THAT(result.files_left, IsEmpty()) << result.output;
    return result;
  }

  bool skipped_ = false;
};

#define SKIP_WITHOUT_NAMESPACES(r)                                     \
  if (skipped_) {                                                      \
    GTEST_SKIP() << "ci/cluster cannot make network namespaces here: " \
                 << (r).output;                                        \
  }

TEST_P(HarnessCluster, PassingTestPassesOnBothHosts) {
  const InnerResult r = run("InnerReports.Passes/gloo_ws2");
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.xml, HasSubstr("name=\"Passes/gloo_ws2\""));
  EXPECT_THAT(r.output, ContainsRegex("\\| harness_inner +\\| passed"));
}

TEST_P(HarnessCluster, FailureOnTheSecondHostNamesThatHost) {
  const InnerResult r = run("InnerReports.ExpectFailsInRank1/gloo_ws2");
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(ContainsRegex(std::string("rank 1 of 2 \\(") +
                                            kSecondHost + "\\) failed"),
                              HasSubstr("the failure message of rank 1")));
  EXPECT_THAT(r.xml, HasSubstr("the failure message of rank 1"));
}

TEST_P(HarnessCluster, EarlyExitOnTheSecondHostNamesThatHost) {
  const InnerResult r = run("InnerReports.ExitsEarlyInRank1/gloo_ws2");
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              ContainsRegex(std::string("rank 1 of 2 \\(") + kSecondHost +
                            "\\) exited with code 0 before its "
                            "test finished"));
}

TEST_P(HarnessCluster, HangOnTheSecondHostIsStoppedWithItsStack) {
  const InnerResult r = run("InnerReports.HangsInRank1/gloo_ws2");
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("still running: rank 1"),
                              ContainsRegex(kSecondHost),
                              HasSubstr("sleepForeverInRank")));
}

TEST_P(HarnessCluster, ProgramAfterDoubleDashRunsAsTheJob) {
  const InnerResult r =
      run("InnerReports.Passes/gloo_ws2", /*as_program=*/true);
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Its own arguments reached it: the filter, and the XML where asked.
  EXPECT_THAT(r.xml, HasSubstr("name=\"Passes/gloo_ws2\""));
  EXPECT_THAT(r.output, ContainsRegex("\\| harness_inner +\\| passed"));
}

// A run killed together with its watcher leaves its namespaces, named after
// its pid: the next run removes them (here one made by hand for a pid that
// has ended). Another run at the same time may be the one that does.
TEST_P(HarnessCluster, NamespacesOfAKilledRunAreRemovedByTheNext) {
  if (GetParam() != "torchrun") {
    GTEST_SKIP() << "ci/cluster removes them before it starts a launcher: "
                    "checked once, under torchrun";
  }
  const pid_t ended = ::fork();
  if (ended == 0) ::_exit(0);
  ::waitpid(ended, nullptr, 0);
  const std::string left = "rtc" + std::to_string(ended) + "-sw";
  // ip netns keeps a named namespace as a file of this folder.
  const std::string file = "/run/netns/" + left;
  // (runInner appends the inner binary and its flags: $2 on.)
  InnerOptions add;
  add.launcher = {"/bin/sh", "-c", "exec /bin/ip netns add \"$1\"", "sh", left};
  add.filter = "unused";
  if (runInner(add).exit_code != 0 || !std::filesystem::exists(file)) {
    GTEST_SKIP() << "cannot make network namespaces here";
  }
  const InnerResult r =
      run("InnerReports.Passes/gloo_ws2", /*as_program=*/true);
  const bool still = std::filesystem::exists(file);
  if (still) {
    InnerOptions del = add;
    del.launcher = {"/bin/sh", "-c", "exec /bin/ip netns del \"$1\"", "sh",
                    left};
    runInner(del);
  }
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(still) << left << " is still there\n" << r.output;
}

TEST_P(HarnessCluster, ProgramThatFailsOnTheSecondHostFailsTheRun) {
  const InnerResult r =
      run("InnerReports.ExpectFailsInRank1/gloo_ws2", /*as_program=*/true);
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(ContainsRegex("\\| harness_inner +\\| FAILED"),
                              ContainsRegex(kSecondHost)));
}

// Faults on the second host while InnerFault.ExchangesForThreeSeconds runs
// (deadline 4 s): every run ends within the deadline plus the grace (the
// stack grace, 2 s, and the peer silence, 4 s here) and the launchers'
// start and end, with a report that names the host and the rank, and
// leaves nothing.
constexpr char kFaultTest[] = "InnerFault.ExchangesForThreeSeconds/gloo_ws2";
constexpr auto kFaultBound = 45s;

std::string silentSecondRank() {
  return std::string("rank 1 \\(") + kSecondHost +
         "\\) went silent while rank 0 waited for its report: its heartbeat "
         "has not moved for 4 s, so its process is stopped or its host is "
         "cut off";
}

// Cut off, the second host's rank gives up on the store and exits (its
// message reaches the run's output where its launcher is on that host:
// torchrun's log); the first host's names it.
TEST_P(HarnessCluster, CutOffHostIsNamedAndItsRankGivesUp) {
  const InnerResult r = run(kFaultTest, false, "link-down");
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("fault link-down on host cluster-h1"),
                              ContainsRegex(silentSecondRank())));
  if (GetParam() == "torchrun") {
    EXPECT_THAT(r.output,
                ContainsRegex(std::string("rank 1 of 2 \\(") + kSecondHost +
                              "\\) lost the job's store at "
                              "10\\.77\\.0\\.1:[0-9]+: it has not answered"));
  }
  EXPECT_LT(r.elapsed, kFaultBound * kSanitizerSlowdown) << r.output;
}

// A stopped rank is named by the others, and its sentinel kills it at the
// end so that its launcher ends.
TEST_P(HarnessCluster, StoppedRankIsNamedAndEndedByItsSentinel) {
  const InnerResult r = run(kFaultTest, false, "stop-rank");
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              AllOf(ContainsRegex(silentSecondRank()),
                    ContainsRegex(std::string("rank 1 of 2 \\(") + kSecondHost +
                                  "\\): the job gave up on this rank "
                                  "\\(rank 0 waited in vain for its report "
                                  "in InnerFault.ExchangesForThreeSeconds/"
                                  "gloo_ws2\\) and its process is stopped; "
                                  "its sentinel kills it")));
  EXPECT_LT(r.elapsed, kFaultBound * kSanitizerSlowdown) << r.output;
}

// mpirun ends the job as soon as a rank dies, naming it; rank 0 reports
// the interrupted test first (torchrun's row: rank 0 names the silent rank,
// as in the tests above).
TEST_P(HarnessCluster, KilledRankIsNamed) {
  const InnerResult r = run(kFaultTest, false, "kill-rank");
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_NE(r.exit_code, 0) << r.output;
  if (GetParam() == "mpirun") {
    EXPECT_THAT(r.output,
                AllOf(HasSubstr("rank 0 of 2 (host"),
                      ContainsRegex("mpirun noticed that process rank 1 with "
                                    "PID [0-9]+ on node 10\\.77\\.0\\.2 exited "
                                    "on signal 9")));
  } else {
    EXPECT_THAT(r.output, ContainsRegex(silentSecondRank()));
  }
  EXPECT_LT(r.elapsed, kFaultBound * kSanitizerSlowdown) << r.output;
}

// SIGTERM ends ci/cluster within seconds even while a rank is stopped (its
// launcher would wait for it) and leaves nothing.
TEST_P(HarnessCluster, SigtermEndsTheRunWithinSecondsWhileARankIsStopped) {
  std::chrono::steady_clock::time_point sent;
  const InnerResult r = run(
      kFaultTest, false, "stop-rank",
      [&sent](pid_t cluster, const std::string&, const std::string& output) {
        if (output.find("fault stop-rank on host cluster-h1") ==
            std::string::npos) {
          return false;
        }
        sent = std::chrono::steady_clock::now();
        ::kill(cluster, SIGTERM);
        return true;
      });
  SKIP_WITHOUT_NAMESPACES(r);
  EXPECT_EQ(r.exit_code, 143) << r.output;
  ASSERT_NE(sent, std::chrono::steady_clock::time_point{}) << r.output;
  // The launchers passed it on: rank 0 wrote its XML (here the runner's
  // --gtest_output, the last given) with the interrupted test failed, and
  // the table says so.
  EXPECT_THAT(r.output,
              ContainsRegex("\\| harness_inner +\\| interrupted +\\|"));
  EXPECT_THAT(r.xml, AllOf(HasSubstr("ExchangesForThreeSeconds/gloo_ws2"),
                           HasSubstr("interrupted by SIGTERM")))
      << r.output;
  // Its end, and runInner's check that nothing is left (processes_left).
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 10s * kSanitizerSlowdown)
      << r.output;
}

INSTANTIATE_TEST_SUITE_P(Harness, HarnessCluster,
                         ::testing::Values("torchrun", "mpirun"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace harness_suite
