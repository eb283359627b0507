// Suites under real launchers on this host: torchrun (Debian's
// python3-torch) and Open MPI's mpirun start the inner binary once per
// rank; the ranks agree on each test through the job's store, and every
// rank ends with the same exit code while rank 0 alone prints and writes the
// one XML. ci/setup installs both launchers; without one its tests skip.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "inner_run.h"
#include "process/program.h"
#include "process/rendezvous.h"
#include "sanitizer_slowdown.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace std::chrono_literals;

// The torchrun of the PyTorch this build's libtorch comes from.
constexpr char kTorchrun[] = RANKTEST_TORCHRUN;
constexpr char kMpirun[] = "/usr/bin/mpirun";

std::vector<std::string> launcherCommand(const std::string& launcher,
                                         int ranks) {
  if (launcher == "torchrun") {
    // Debian's torchrun (1.13 on Python 3.11) cannot parse its own default
    // "0" for --redirects and --tee; a map naming no rank of ours works
    // (2.x's too).
    // Not --standalone: its fixed port 29400 collides with a parallel run.
    // The agent polls its workers every 0.1 s, 2.x's default (1.13's is 5 s,
    // which every test would wait out at the end of its job).
    return {kTorchrun,
            "--nnodes=1",
            "--monitor_interval=0.1",
            "--rdzv_backend=c10d",
            "--rdzv_endpoint=127.0.0.1:0",
            "--nproc_per_node=" + std::to_string(ranks),
            "--redirects=9:1",
            "--tee=9:1",
            "--no_python"};
  }
  // Root in CI containers; more ranks than cores on a small machine.
  return {kMpirun, "--allow-run-as-root", "--oversubscribe", "-np",
          std::to_string(ranks)};
}

// The files a run left in its TMPDIR but what the launchers leave:
// torchrun's log directory, the compile cache (torchinductor_USER) of a
// process that imported torch._dynamo, and the session directory of an
// mpirun killed with SIGKILL (ompi.HOST.UID), which it cannot remove.
std::vector<std::string> filesLeftButPyTorchs(const InnerResult& result) {
  std::vector<std::string> files = result.files_left;
  std::erase_if(files, [](const std::string& file) {
    return file.rfind("torchelastic_", 0) == 0 ||
           file.rfind("torchinductor_", 0) == 0 || file.rfind("ompi.", 0) == 0;
  });
  return files;
}

class HarnessLaunched : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const char* path = GetParam() == "torchrun" ? kTorchrun : kMpirun;
    if (::access(path, X_OK) != 0) {
      GTEST_SKIP() << path << " is not installed (ci/setup installs it)";
    }
  }

  // `rank_zero_reports`: rank 0 ends its run (it prints and writes the XML).
  InnerResult run(const std::string& test, int ranks = 2,
                  const char* start_method = nullptr,
                  bool rank_zero_reports = true) {
    InnerOptions options;
    options.launcher = launcherCommand(GetParam(), ranks);
    options.filter = test;
    options.args = {"--gtest_color=no"};
    spawnUnderSanitizer(options);
    if (start_method != nullptr) {
      options.env["RANKTEST_START_METHOD"] = start_method;
    }
    if (!rank1_filter_.empty() || rank1_claims_zero_) {
      // A shell starts each rank: rank 1 gets a --gtest_filter of its own
      // after the job's (gtest takes the last), or the launcher's variable
      // of rank 0.
      options.launcher.insert(
          options.launcher.end(),
          {"/bin/sh", "-c",
           "if [ \"${OMPI_COMM_WORLD_RANK:-$RANK}\" = 1 ]; then "
           "if [ -n \"$INNER_RANK1_FILTER\" ]; then "
           "set -- \"$@\" --gtest_filter=\"$INNER_RANK1_FILTER\"; fi; "
           "exec env $INNER_RANK1_ENV \"$@\"; fi; "
           "exec \"$@\"",
           "sh"});
      options.env["INNER_RANK1_FILTER"] = rank1_filter_;
      if (rank1_claims_zero_) {
        options.env["INNER_RANK1_ENV"] =
            GetParam() == "torchrun" ? "RANK=0" : "OMPI_COMM_WORLD_RANK=0";
      }
    }
    // A peer silent for 4 s is given up on (10 s by default): shorter tests.
    options.env["RANKTEST_PEER_SILENCE"] = "4";
    options.env.insert(extra_env_.begin(), extra_env_.end());
    if (watcher_) {
      options.watcher = [this](pid_t, const std::string&,
                               const std::string& output) {
        return watcher_(output);
      };
    }
    if (!interrupt_at_.empty()) {
      options.watcher = [this](pid_t launcher, const std::string&,
                               const std::string& output) {
        if (output.find(interrupt_at_) == std::string::npos) return false;
        std::this_thread::sleep_for(500ms);
        ::kill(launcher, interrupt_signal_);
        return true;
      };
    }
    options.limit = 120s * kSanitizerSlowdown;
    InnerResult result = runInner(options);
    // Nothing survives: no rank, no launcher agent, no file but the XML and
    // what PyTorch leaves: torchrun's log directory, and the compile cache
    // (torchinductor_USER) of a process that imported torch._dynamo.
    EXPECT_THAT(result.processes_left, IsEmpty()) << result.output;
    EXPECT_THAT(filesLeftButPyTorchs(result), IsEmpty()) << result.output;
    if (!rank_zero_reports) return result;
    // Rank 0 alone reports, in one XML.
    EXPECT_EQ(countOccurrences(result.output, "[==========] Running"), 1u)
        << result.output;
    EXPECT_EQ(countOccurrences(result.xml, "<testsuites"), 1u) << result.xml;
    return result;
  }

  // Rank 1 of the next run() runs `filter` instead of the job's.
  void giveRank1TheFilter(const std::string& filter) { rank1_filter_ = filter; }
  // The process of rank 1 of the next run() claims rank 0 too, as a job
  // whose every process got RANK=0 would.
  void giveRank1RankZero() { rank1_claims_zero_ = true; }
  // Every rank of the next run() has `name` set to `value`.
  void setForTheRanks(const std::string& name, const std::string& value) {
    extra_env_[name] = value;
  }
  // The next run() sends its launcher SIGTERM (as Ctrl-C or a CI runner's
  // timeout would) 0.5 s after `text` appears in the output.
  void interruptTheLauncherAfter(const std::string& text) {
    interrupt_at_ = text;
  }
  // The same with SIGKILL: the launcher ends at once, its ranks stay.
  void killTheLauncherAfter(const std::string& text) {
    interrupt_at_ = text;
    interrupt_signal_ = SIGKILL;
  }
  // The next run() calls `watcher` with all output so far, each time output
  // arrives, until it returns true.
  void watchOutput(std::function<bool(const std::string&)> watcher) {
    watcher_ = std::move(watcher);
  }

 private:
  std::string rank1_filter_;
  bool rank1_claims_zero_ = false;
  std::string interrupt_at_;
  int interrupt_signal_ = SIGTERM;
  std::map<std::string, std::string> extra_env_;
  std::function<bool(const std::string&)> watcher_;
};

// Under GTEST_TOTAL_SHARDS every rank keeps the same selection (a plain
// test included), so the ranks of a shard agree on its tests, and the
// shards together run each selected test once.
TEST_P(HarnessLaunched, ShardsOfASelectionWithAPlainTestEachPass) {
  int ran = 0;
  for (const char* index : {"0", "1"}) {
    setForTheRanks("GTEST_TOTAL_SHARDS", "2");
    setForTheRanks("GTEST_SHARD_INDEX", index);
    const InnerResult r =
        run("InnerLaunchedFilters.*_Passes/gloo_ws2:"
            "InnerReports.Passes/gloo_ws2:InnerExit.ZRunsAfterTheOthers");
    EXPECT_EQ(r.exit_code, 0) << "shard " << index << "\n" << r.output;
    const std::size_t here = countOccurrences(r.output, "[       OK ]");
    EXPECT_GE(here, 1u) << "a lopsided shard\n" << r.output;
    ran += static_cast<int>(here);
  }
  EXPECT_EQ(ran, 4);
}

// SIGTERM to the launcher while a test runs: rank 0's XML keeps the
// interrupted test, failed as interrupted (mpirun stops relaying a rank's
// output once signalled and kills it a second later: the XML is written
// before the console lines of the skipped tests that could block).
TEST_P(HarnessLaunched, InterruptedJobKeepsRankZerosXmlWithTheTest) {
  interruptTheLauncherAfter("[ RUN      ] InnerInterrupt.A_HangsInEveryRank");
  // Tests after it, skipped once it is interrupted: their console lines
  // are what blocked (1 of 3 runs under mpirun lost the XML without the
  // fix).
  const InnerResult r = run(
      "InnerInterrupt.A_*:InnerLaunched*:InnerReadable*:InnerReports.Passes*:"
      "InnerCell.*",
      2, nullptr, /*rank_zero_reports=*/false);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.xml, AllOf(HasSubstr("A_HangsInEveryRank/gloo_ws2"),
                           HasSubstr("interrupted by SIGTERM")))
      << r.output;
  EXPECT_LT(r.elapsed, 60s * kSanitizerSlowdown) << r.output;
}

// A launcher killed with SIGKILL (a CI runner's hard timeout) leaves its
// ranks orphaned: they notice within a check and stop as if interrupted
// (mpirun), or find the job's store gone with the launcher that served it
// (torchrun's agent), and say so; either way rank 0 writes its XML with the
// test it was at, and no rank runs on for nobody (run() checks that nothing
// is left but a killed mpirun's own session directory).
TEST_P(HarnessLaunched, KilledLauncherEndsItsRanksWithRankZerosXml) {
  killTheLauncherAfter("[ RUN      ] InnerInterrupt.A_HangsInEveryRank");
  const InnerResult r =
      run("InnerInterrupt.A_*:InnerReports.Passes*", 2, nullptr,
          /*rank_zero_reports=*/false);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.xml, AllOf(HasSubstr("A_HangsInEveryRank/gloo_ws2"),
                           AnyOf(HasSubstr("interrupted by SIGTERM"),
                                 HasSubstr("rank 0 lost the launched job"))))
      << r.output;
  EXPECT_LT(r.elapsed, 30s * kSanitizerSlowdown) << r.output;
}

// Two processes that claim one rank: the job does not form, every process
// says why at once, instead of waiting out the join timeout (300 s) for the
// rank that nobody has.
TEST_P(HarnessLaunched, RankClaimedByTwoProcessesIsRefusedAtOnce) {
  giveRank1RankZero();
  const InnerResult r = run("InnerReports.Passes/gloo_ws2", 2, nullptr,
                            /*rank_zero_reports=*/false);
  EXPECT_NE(r.exit_code, 0) << r.output;
  // Where rank 0 serves the job's store (mpirun's jobs, 1.13's torchrun),
  // the second rank 0 finds its port taken; where the launcher serves it,
  // the second to claim the rank refuses.
  EXPECT_THAT(
      r.output,
      AllOf(AnyOf(ContainsRegex("ranktest: rank 0 of 2 is claimed by two "
                                "processes of the job: host [^,]+, pid "
                                "[0-9]+, and host [^,]+, pid [0-9]+\\. Give "
                                "each process its own rank"),
                  HasSubstr("(where its port is taken: by another job at "
                            "this address, or by another process of this "
                            "job that has rank 0 too)")),
            Not(HasSubstr("Exception raised from")),
            Not(HasSubstr("[ RUN      ]"))));
  EXPECT_LT(r.elapsed, 30s * kSanitizerSlowdown) << r.output;
}

// A plain test (run by rank 0) that exits fails the job, and rank 0's XML
// says so.
TEST_P(HarnessLaunched, ExitInsideAPlainTestFailsTheJobAndItsXml) {
  const InnerResult r = run("InnerReports.Passes/gloo_ws2:InnerExit.ExitsZero");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("a test may not end its process"));
  EXPECT_THAT(r.xml, AllOf(HasSubstr("failures=\"1\""),
                           HasSubstr("a test may not end its process")))
      << r.xml;
}

// WORLD_SIZE set by hand to another size than the job's would skip every
// test: every rank refuses it before any test.
TEST_P(HarnessLaunched, WorldSizeUnlikeTheJobsIsRefusedAtStart) {
  if (GetParam() == "torchrun") {
    GTEST_SKIP() << "torchrun sets WORLD_SIZE to its job's size itself";
  }
  setForTheRanks("WORLD_SIZE", "4");
  const InnerResult r = run("InnerReports.Passes/*", 2, nullptr,
                            /*rank_zero_reports=*/false);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("WORLD_SIZE=4, but Open MPI started 2 ranks"),
                    Not(HasSubstr("[ RUN      ]"))));
}

TEST_P(HarnessLaunched, PassingTestPassesInEveryRank) {
  const InnerResult r = run("InnerReports.Passes/gloo_ws2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[  PASSED  ] 1 test"));
  EXPECT_THAT(r.xml, HasSubstr("name=\"Passes/gloo_ws2\""));
}

TEST_P(HarnessLaunched, FailureInOneRankIsReportedWithItsHostAndPid) {
  const InnerResult r = run("InnerReports.ExpectFailsInRank1/gloo_ws2");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              AllOf(ContainsRegex("rank 1 of 2 \\(host [^,]+, pid [0-9]+\\) "
                                  "failed"),
                    HasSubstr("the failure message of rank 1"),
                    HasSubstr("[rank 1] rank 1 says hello"),
                    HasSubstr("under " + std::string(GetParam() == "torchrun"
                                                         ? "torchrun"
                                                         : "Open MPI"))));
  EXPECT_THAT(r.output, Not(HasSubstr("rank 0 of 2 (host")));
  EXPECT_THAT(r.xml, HasSubstr("the failure message of rank 1"));
}

TEST_P(HarnessLaunched, RankThatExitsEarlyIsNamed) {
  const InnerResult r = run("InnerReports.ExitsEarlyInRank1/gloo_ws2");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              ContainsRegex("rank 1 of 2 \\(host .+, pid [0-9]+\\) exited "
                            "with code 0 before its test finished"));
}

// RANKTEST_DEBUG_RANK under a launcher: rank 1's body stops for a debugger,
// and every rank waits for it past the test's deadline.
TEST_P(HarnessLaunched, DebugRankWaitsForTheDebuggerPastTheDeadline) {
  pid_t waiting = 0;
  setForTheRanks("RANKTEST_DEBUG_RANK", "1");
  setForTheRanks("RANKTEST_TIMEOUT", "2");
  watchOutput([&waiting](const std::string& output) {
    std::smatch match;
    static const std::regex line(
        R"(rank 1 \(pid (\d+)\) waits for a debugger)");
    if (!std::regex_search(output, match, line)) return false;
    waiting = static_cast<pid_t>(std::stoi(match[1]));
    // Twice the deadline: a debugger session would take longer still.
    std::this_thread::sleep_for(4s);
    ::kill(waiting, SIGCONT);
    return true;
  });
  const InnerResult r = run("InnerReports.Passes/gloo_ws2");
  EXPECT_GT(waiting, 0) << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GE(r.elapsed, 4s);
}

TEST_P(HarnessLaunched, HangIsStoppedAtTheDeadlineWithTheStack) {
  const InnerResult r = run("InnerReports.HangsInRank1/gloo_ws2");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("still running: rank 1"),
                              HasSubstr("sleepForeverInRank")));
}

// Tests not declared at the launched size are skipped with the reason, and
// later tests still agree: three ranks run the ws3 instance only.
TEST_P(HarnessLaunched, OtherWorldSizesAreSkippedWithTheReason) {
  const InnerResult r =
      run("InnerCell.*:InnerReports.Passes/gloo_ws2", /*ranks=*/3);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("WORLD_SIZE=3"));
  EXPECT_THAT(r.output, ContainsRegex("OK \\] InnerCell\\.AnySize"));
  EXPECT_THAT(r.output, Not(HasSubstr("[  FAILED  ]")));
}

// A plain test runs once, in rank 0, and its failure is the job's: the
// distributed test beside it still passes in every rank.
TEST_P(HarnessLaunched, PlainTestRunsOnceInRankZero) {
  const InnerResult r =
      run("InnerLaunchedPlain.*:InnerReports.Passes/gloo_ws2");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_EQ(countOccurrences(r.output, "the plain test ran in pid"), 1u)
      << r.output;
  EXPECT_THAT(r.xml, HasSubstr("the plain test&apos;s failure"));
  EXPECT_THAT(r.output, HasSubstr("[  PASSED  ] 1 test"));
}

// Rank 1 stops its own launched process: its heartbeat stops, rank 0 names
// it with its last phase once it has been silent for the peer silence (4 s
// here), and its sentinel kills it at the end, so that its launcher ends
// (torchrun would otherwise wait for a stopped worker).
TEST_P(HarnessLaunched, RankThatStopsReportingIsNamedWithItsLastPhase) {
  const InnerResult r = run("InnerLaunched.*");
  EXPECT_NE(r.exit_code, 0) << r.output;
  // The next test fails at once, long before its deadline (60 s): no
  // "timed out" there.
  EXPECT_THAT(r.output,
              ContainsRegex("\\[ranktest\\] the job gave up on rank 1 after "
                            "[0-9.]+ s, before the deadline \\(60 s\\): "
                            "silent, not finished\n  test: "
                            "InnerLaunched.B_RunsAfterTheLostRank"));
  EXPECT_THAT(
      r.output,
      AllOf(ContainsRegex("rank 1 \\(host [^ ]+ \\([0-9.]+\\), pid [0-9]+\\) "
                          "went silent while rank 0 waited for its report: its "
                          "heartbeat has not moved for 4 s, so its process is "
                          "stopped or its host is cut off; its last phase: "
                          "supervising its body in pid [0-9]+"),
            HasSubstr("rank 1 stopped reporting in "
                      "InnerLaunched.A_Rank1StopsItsSupervisor/"
                      "gloo_ws2; the job gave up on it"),
            ContainsRegex("rank 1 of 2 \\(host [^,]+, pid [0-9]+\\): the job "
                          "gave up on this "
                          "rank \\(rank 0 waited in vain for its report in "
                          "InnerLaunched.A_Rank1StopsItsSupervisor/gloo_ws2\\) "
                          "and its process is stopped; its sentinel kills "
                          "it")));
  EXPECT_LT(r.elapsed, 30s * kSanitizerSlowdown) << r.output;
}

// Rank 1 is started with another filter: at the first test every rank
// fails at once, naming what each runs, and so does rank 0's next test. No
// rank waits for another or is given up on.
TEST_P(HarnessLaunched, RanksAtDifferentTestsFailAtOnceNamingThem) {
  giveRank1TheFilter("InnerLaunchedFilters.B_*");
  const InnerResult r = run("InnerLaunchedFilters.*");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("ranktest: the job's ranks do not run the same tests: "
                        "as its distributed test #1, rank 0 runs "
                        "InnerLaunchedFilters.A_Passes/gloo_ws2; rank 1 runs "
                        "InnerLaunchedFilters.B_Passes/gloo_ws2. Start every "
                        "rank with the same binary and --gtest_filter"));
  EXPECT_THAT(r.output, HasSubstr("[  FAILED  ] 2 tests"));
  EXPECT_THAT(r.output,
              AllOf(Not(HasSubstr("gave up")), Not(HasSubstr("went silent")),
                    Not(HasSubstr("did not send"))));
  EXPECT_LT(r.elapsed, 30s * kSanitizerSlowdown) << r.output;
}

// Rank 1 has a test more: rank 0's run ends first, so only rank 1 finds
// that they differ; rank 0 says so at the end, and the job fails.
TEST_P(HarnessLaunched, RankWithMoreTestsThanRankZeroFailsTheJob) {
  giveRank1TheFilter("InnerLaunchedFilters.*");
  const InnerResult r = run("InnerLaunchedFilters.A_*");
  EXPECT_NE(r.exit_code, 0) << r.output;
  // Found after rank 0's last test, it fails that test: in rank 0's summary
  // and XML too, not only in the job's exit code.
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("[ranktest] the job failed after rank 0's last "
                              "test:\n[ranktest] ranktest: the job's ranks do "
                              "not run the same tests: as its distributed "
                              "test #2, rank 0 has none left (its run "
                              "ended); rank 1 runs "
                              "InnerLaunchedFilters.B_Passes/gloo_ws2."),
                    HasSubstr("[  FAILED  ] InnerLaunchedFilters.A_Passes"),
                    HasSubstr("1 FAILED TEST")));
  EXPECT_THAT(r.xml, AllOf(HasSubstr("failures=\"1\""),
                           HasSubstr("rank 0 has none left")))
      << r.xml;
  EXPECT_THAT(r.output, Not(HasSubstr("gave up"))) << r.output;
  EXPECT_LT(r.elapsed, 30s * kSanitizerSlowdown) << r.output;
}

// Rank 1 alone is interrupted while it and rank 0 wait for rank 2's
// report: rank 0, not interrupted, gets that report (rank 2's failure), not
// a mark of rank 1's interrupt that would hide it.
TEST_P(HarnessLaunched, RankInterruptedAloneHidesNoReportFromTheOthers) {
  char folder[] = "/tmp/ranktest-interrupted-XXXXXX";
  ASSERT_NE(::mkdtemp(folder), nullptr);
  const std::string signalled = std::string(folder) + "/signalled";
  setForTheRanks("RANKTEST_SELFTEST_SIGNALLED", signalled);
  const InnerResult r =
      run("InnerLaunchedThree.Rank1AloneIsInterruptedWhileItWaits/gloo_ws3", 3,
          nullptr, /*rank_zero_reports=*/false);
  const bool sent = std::filesystem::exists(signalled);
  std::filesystem::remove_all(folder);
  // The interrupt reached rank 1 while the job ran (its exit code does not
  // reach the launcher: rank 0's failure ends the job first).
  EXPECT_TRUE(sent) << r.output;
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("rank 2's own report, after 3 s"),
                    HasSubstr("[  FAILED  ] InnerLaunchedThree."),
                    Not(HasSubstr("interrupted before its report came"))))
      << r.output;
}

// The job's store is served by rank 0's sentinel (mpirun; Debian 1.13's
// torchrun) or torchrun's agent (2.x), never by the launched process of
// rank 0, which forks each test.
TEST_P(HarnessLaunched, RankZeroProcessServesNoStore) {
  const InnerResult r = run("InnerLaunchedStore.*");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[  PASSED  ] 1 test"));
}

// Rank 0 stops. The store, served by another process (its sentinel, or
// torchrun's agent), still answers: rank 1 finds rank 0 silent, gives up on
// it, and rank 0's sentinel ends it at rank 1's word, within about 20 s.
TEST_P(HarnessLaunched, StoppedRankZeroEndsTheJob) {
  const InnerResult r = run("InnerLaunchedRankZero.*", 2, nullptr,
                            /*rank_zero_reports=*/false);
  EXPECT_NE(r.exit_code, 0) << r.output;
  const auto silent_rank = AllOf(
      ContainsRegex("rank 0 \\(host [^,]+, pid [0-9]+\\) went silent while "
                    "rank 1 waited for its report"),
      ContainsRegex("rank 0 of 2 \\(host [^,]+, pid [0-9]+\\): the job gave up "
                    "on this rank \\(rank 1 waited in vain for its report in "
                    "InnerLaunchedRankZero.StopsItsSupervisor/gloo_ws2\\) and "
                    "its process is stopped"));
  EXPECT_THAT(r.output, silent_rank);
  EXPECT_LT(r.elapsed, 30s * kSanitizerSlowdown) << r.output;
}

// A spawned body registers the tests again and must find its own at the
// launched size: the node variables the job exported (LOCAL_RANK, ...) are
// no torchrun environment under mpirun.
TEST_P(HarnessLaunched, SpawnedBodiesFindTheirTestAtTheLaunchedSize) {
  const InnerResult r = run("InnerCell.AnySize/*", /*ranks=*/3, "spawn");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ContainsRegex("OK \\] InnerCell\\.AnySize/gloo_ws3"));
}

// torchrun restarts a failed job (--max_restarts) with the store of the
// attempt before: the new attempt runs as if first, and passes.
TEST(HarnessLaunchedRestart, RestartedJobSeesNothingOfTheAttemptBefore) {
  if (::access(kTorchrun, X_OK) != 0) {
    GTEST_SKIP() << kTorchrun << " is not installed (ci/setup installs it)";
  }
  InnerOptions options;
  options.launcher = launcherCommand("torchrun", 2);
  options.launcher.insert(options.launcher.end() - 1, "--max_restarts=1");
  options.filter = "InnerLaunchedRestart.FailsInTheFirstAttemptOnly/gloo_ws2";
  options.args = {"--gtest_color=no"};
  spawnUnderSanitizer(options);
  options.env["RANKTEST_PEER_SILENCE"] = "4";
  options.limit = 120s * kSanitizerSlowdown;
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Two attempts, each reported by its rank 0: the first failed, the
  // second passed on its own.
  EXPECT_EQ(countOccurrences(r.output, "[==========] Running"), 2u) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("rank 1 fails in attempt 0"),
                              HasSubstr("[rank 1] rank 1 runs attempt 0")));
  const std::size_t second = r.output.rfind("[==========] Running");
  ASSERT_NE(second, std::string::npos) << r.output;
  EXPECT_THAT(r.output.substr(second),
              AllOf(HasSubstr("[  PASSED  ] 1 test"), Not(HasSubstr("FAILED"))))
      << r.output;
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(filesLeftButPyTorchs(r), IsEmpty()) << r.output;
}

// Jobs under mpirun, each test with launcher arguments of its own.
class HarnessLaunchedJoin : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(kMpirun, X_OK) != 0) {
      GTEST_SKIP() << kMpirun << " is not installed (ci/setup installs it)";
    }
  }
};

// A rank that never reaches the job's store (rank 1 is another program
// here, as where its launch failed) is named once the join timeout, 5 times
// the default deadline, is over; rank 0 ends the job, which leaves nothing.
TEST_F(HarnessLaunchedJoin, RankThatNeverJoinsIsNamedAtTheJoinTimeout) {
  InnerOptions options;
  options.launcher = launcherCommand("mpirun", 1);
  options.filter = "InnerReports.Passes/gloo_ws2";
  // mpirun's second app context: rank 1 of the job of 2.
  options.args = {"--gtest_color=no", ":", "-np", "1", "/bin/sleep", "60"};
  spawnUnderSanitizer(options);
  options.env["RANKTEST_TIMEOUT"] = "1";
  options.limit = 60s * kSanitizerSlowdown;
  const InnerResult r = runInner(options);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              ContainsRegex("ranktest: the job did not form: rank 1 of 2 did "
                            "not join within [0-9.]+ s \\(rank 0 waited for "
                            "it; it never reached the job's store at "
                            "[0-9.]+:[0-9]+: its launch failed"));
  EXPECT_THAT(r.output, Not(HasSubstr("[ RUN      ]")));
  EXPECT_LT(r.elapsed, 30s * kSanitizerSlowdown) << r.output;
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty()) << r.output;
}

// Rank 0 cannot serve the job's store (its port is taken: this test listens
// on it): it says so and why, and the job ends at once.
TEST_F(HarnessLaunchedJoin, RankZeroThatCannotServeTheStoreSaysWhy) {
  std::uint16_t taken_port = 0;
  const int taken = ranktest::internal::listenOnLoopback(taken_port);
  const std::string port = std::to_string(taken_port);
  InnerOptions options;
  options.launcher = launcherCommand("mpirun", 2);
  options.filter = "InnerReports.Passes/gloo_ws2";
  options.args = {"--gtest_color=no"};
  options.env = {{"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}};
  spawnUnderSanitizer(options);
  options.limit = 60s * kSanitizerSlowdown;
  const InnerResult r = runInner(options);
  ::close(taken);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("ranktest: rank 0 of a job started by Open MPI cannot "
                        "serve the rendezvous store at 127.0.0.1:" +
                        port + ": "));
  EXPECT_THAT(r.output, Not(HasSubstr("[ RUN      ]")));
  EXPECT_LT(r.elapsed, 30s * kSanitizerSlowdown) << r.output;
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty()) << r.output;
}

// Two real jobs at one address (one MASTER_PORT given to both): while job A
// runs, a rank of job B reaches A's store as a client (B's rank 0 is
// another program here, which serves nothing). It is refused, naming both
// jobs, before it touches a key of A's; A passes as if alone.
TEST_F(HarnessLaunchedJoin,
       SecondJobAtTheSameAddressIsRefusedAndTheFirstPasses) {
  std::uint16_t free_port = 0;
  ::close(ranktest::internal::listenOnLoopback(free_port));
  const std::map<std::string, std::string> address = {
      {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", std::to_string(free_port)}};

  InnerOptions a;
  a.launcher = launcherCommand("mpirun", 2);
  a.filter = "InnerLaunchedRelease.WaitsForTheReleaseFile/gloo_ws2";
  a.args = {"--gtest_color=no"};
  a.env = address;
  // Job A runs until job B has ended.
  char folder[] = "/tmp/ranktest-two-jobs-XXXXXX";
  ASSERT_NE(::mkdtemp(folder), nullptr);
  const std::string release = std::string(folder) + "/release";
  a.env["RANKTEST_SELFTEST_RELEASE"] = release;
  spawnUnderSanitizer(a);
  a.limit = 60s * kSanitizerSlowdown;
  // Job A has formed (and claimed its store) once rank 0 runs the test.
  std::promise<void> formed;
  a.watcher = [&formed](pid_t, const std::string&, const std::string& out) {
    if (out.find("[ RUN      ]") == std::string::npos) return false;
    formed.set_value();
    return true;
  };
  std::future<void> a_formed = formed.get_future();
  InnerResult job_a;
  std::thread first([&] { job_a = runInner(a); });
  const bool a_ran =
      a_formed.wait_for(30s * kSanitizerSlowdown) == std::future_status::ready;

  InnerOptions b;
  // Rank 0 of job B is /bin/sleep; rank 1 is the inner binary.
  b.launcher = launcherCommand("mpirun", 1);
  b.launcher.insert(b.launcher.end(), {"/bin/sleep", "60", ":", "-np", "1"});
  b.filter = "InnerReports.Passes/gloo_ws2";
  b.args = {"--gtest_color=no"};
  b.env = address;
  spawnUnderSanitizer(b);
  b.limit = 60s * kSanitizerSlowdown;
  const InnerResult job_b = a_ran ? runInner(b) : InnerResult{};
  std::ofstream(release).close();  // releases job A
  first.join();
  std::filesystem::remove_all(folder);
  ASSERT_TRUE(a_ran) << job_a.output;

  EXPECT_NE(job_b.exit_code, 0) << job_b.output;
  EXPECT_THAT(
      job_b.output,
      ContainsRegex("ranktest: the rendezvous store at 127\\.0\\.0\\.1:" +
                    std::to_string(free_port) +
                    " is another job's \\(Open MPI job [0-9]+\\), not "
                    "this rank's \\(Open MPI job [0-9]+\\)"));
  EXPECT_THAT(job_b.processes_left, IsEmpty()) << job_b.output;
  EXPECT_EQ(job_a.exit_code, 0) << job_a.output;
  EXPECT_THAT(job_a.output, HasSubstr("[  PASSED  ] 1 test")) << job_a.output;
  EXPECT_THAT(job_a.processes_left, IsEmpty()) << job_a.output;
}

// A free port on the IPv6 loopback, or 0 where this host has none.
std::uint16_t freeIpv6LoopbackPort() {
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_loopback;
  socklen_t size = sizeof(address);
  std::uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    port = ntohs(address.sin6_port);
  }
  ::close(fd);
  return port;
}

// An IPv6 MASTER_ADDR, bare or in brackets: the store, each rank's address
// toward it and Gloo's pairs are all IPv6, and the job runs its test.
TEST_F(HarnessLaunchedJoin, Ipv6MasterAddrFormsTheJob) {
  for (const char* master : {"::1", "[::1]"}) {
    const std::uint16_t port = freeIpv6LoopbackPort();
    if (port == 0) GTEST_SKIP() << "this host has no IPv6 loopback (::1)";
    InnerOptions options;
    options.launcher = launcherCommand("mpirun", 2);
    options.filter = "InnerReports.Passes/gloo_ws2";
    options.args = {"--gtest_color=no"};
    options.env = {{"MASTER_ADDR", master},
                   {"MASTER_PORT", std::to_string(port)}};
    spawnUnderSanitizer(options);
    options.limit = 60s * kSanitizerSlowdown;
    const InnerResult r = runInner(options);
    EXPECT_EQ(r.exit_code, 0) << master << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("[  PASSED  ] 1 test")) << master;
    EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
    EXPECT_THAT(r.files_left, IsEmpty()) << r.output;
  }
}

// runRanks in a program's own main, under a launcher: each process is one
// rank of one job (before, each ran a job of its own of forked ranks), a
// failing rank's message reaches every rank's result, and a run of another
// size is skipped, saying so; nothing is left behind.
TEST_P(HarnessLaunched, RunRanksIsOneRankOfOneJob) {
  InnerOptions options;
  options.binary = RANKTEST_RUN_RANKS_BINARY;
  options.launcher = launcherCommand(GetParam(), 2);
  options.env["RANKTEST_PEER_SILENCE"] = "4";
  spawnUnderSanitizer(options);
  options.limit = 120s * kSanitizerSlowdown;
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* rank : {"0", "1"}) {
    const std::string me = std::string("[run_ranks_main rank ") + rank + "] ";
    EXPECT_THAT(r.output, HasSubstr(me + "one job: passed")) << r.output;
    EXPECT_THAT(r.output,
                HasSubstr(me + "failing rank: failed, its message named"))
        << r.output;
    EXPECT_THAT(r.output,
                HasSubstr(me + "other size: skipped ranktest::runRanks: a run "
                               "of 3 ranks, but the launcher started 2"))
        << r.output;
  }
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(filesLeftButPyTorchs(r), IsEmpty()) << r.output;
}

// Whether `unshare --net` works here (it needs CAP_SYS_ADMIN).
bool canMakeANetworkNamespace() {
  ranktest::internal::ProgramCall call;
  call.executable = "/usr/bin/unshare";
  call.arguments = {"unshare", "--net", "true"};
  call.child_setup = [](int) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, STDERR_FILENO);
  };
  try {
    return ranktest::internal::runProgram(call, std::chrono::seconds(10))
               .exit_code == 0;
  } catch (const std::exception&) {
    return false;
  }
}

// A MASTER_ADDR that resolves but that this host has no route to (here: a
// rank alone in a network namespace of its own, whose only interface, lo,
// is down) is refused at once, naming it, in rank 0 as in the others;
// before, a loopback address stood in for this rank's, and rank 0 waited
// out the join timeout for ranks that could never come.
TEST(HarnessLaunchedRoute, MasterAddrWithoutARouteIsRefusedNamingIt) {
  if (!canMakeANetworkNamespace()) {
    GTEST_SKIP() << "this host cannot make a network namespace "
                    "(unshare --net needs CAP_SYS_ADMIN, as root has)";
  }
  for (const char* rank : {"0", "1"}) {
    InnerOptions options;
    options.launcher = {"/usr/bin/unshare", "--net", "--"};
    options.filter = "InnerReports.Passes/gloo_ws2";
    options.args = {"--gtest_color=no"};
    // What torchrun gives rank `rank` of a job across two hosts.
    options.env = {{"RANK", rank},
                   {"GROUP_RANK", rank},
                   {"WORLD_SIZE", "2"},
                   {"LOCAL_RANK", "0"},
                   {"LOCAL_WORLD_SIZE", "1"},
                   {"MASTER_ADDR", "192.0.2.1"},
                   {"MASTER_PORT", "29500"},
                   {"TORCHELASTIC_RUN_ID", "no-route"}};
    spawnUnderSanitizer(options);
    options.limit = 60s * kSanitizerSlowdown;
    const InnerResult r = runInner(options);
    EXPECT_EQ(r.exit_code, 10) << "rank " << rank << "\n" << r.output;
    EXPECT_THAT(r.output,
                HasSubstr("ranktest: no route from this host to MASTER_ADDR "
                          "'192.0.2.1' (192.0.2.1: Network is unreachable); "))
        << "rank " << rank;
    EXPECT_THAT(r.output, Not(HasSubstr("[ RUN      ]"))) << "rank " << rank;
    EXPECT_LT(r.elapsed, 20s * kSanitizerSlowdown) << r.output;
    EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
    EXPECT_THAT(r.files_left, IsEmpty()) << r.output;
  }
}

// A route to 198.51.100.0/24 (TEST-NET-2) over lo, in a namespace's shell.
constexpr char kRouteOverLoopback[] =
    "ip link set lo up && ip route add 198.51.100.0/24 dev lo && "
    "exec \"$@\"";

// Rank 0 serves the job's store (under mpirun, srun, PMI): a MASTER_ADDR
// that routes but is another host's is refused at once in rank 0, naming
// it; before, the other ranks knocked at that host until the join timeout.
// In a network namespace of its own, where 198.51.100.0/24 routes over lo
// and no address of it is this host's (nothing leaves the namespace).
TEST(HarnessLaunchedRoute, MasterAddrOfAnotherHostIsRefusedInRankZero) {
  if (!canMakeANetworkNamespace()) {
    GTEST_SKIP() << "this host cannot make a network namespace "
                    "(unshare --net needs CAP_SYS_ADMIN, as root has)";
  }
  InnerOptions options;
  options.launcher = {"/usr/bin/unshare", "--net", "--", "/bin/sh", "-c",
                      kRouteOverLoopback, "sh"};
  options.filter = "InnerReports.Passes/gloo_ws2";
  options.args = {"--gtest_color=no"};
  // What mpirun gives rank 0 of a job across two hosts.
  options.env = {
      {"OMPI_COMM_WORLD_RANK", "0"},       {"OMPI_COMM_WORLD_SIZE", "2"},
      {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"},
      {"MASTER_ADDR", "198.51.100.7"},     {"MASTER_PORT", "29500"}};
  spawnUnderSanitizer(options);
  options.limit = 60s * kSanitizerSlowdown;
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 10) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ranktest: MASTER_ADDR '198.51.100.7' is "
                                  "not an address of rank 0's host"))
      << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("[ RUN      ]")));
  EXPECT_LT(r.elapsed, 20s * kSanitizerSlowdown) << r.output;
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty()) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Harness, HarnessLaunched,
                         ::testing::Values("torchrun", "mpirun"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace harness_suite
