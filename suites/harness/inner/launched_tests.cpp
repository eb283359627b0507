// Test bodies for runs under a launcher (HarnessLaunched, HarnessCluster):
// a plain test, which must run once, in rank 0; ranks whose own supervising
// process stops, so that they never report; tests for ranks started with
// different filters; and a body that runs while ci/cluster injects a fault
// into a host.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "process_probe.h"
#include "ranktest/ranktest.h"
#include "sanitizer_slowdown.h"

using namespace std::chrono_literals;

TEST(InnerLaunchedPlain, RunsOnceAndFails) {
  std::cout << "the plain test ran in pid " << ::getpid() << std::endl;
  FAIL() << "the plain test's failure";
}

class InnerLaunched : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

// Rank 1 stops the process that supervises it (a launched rank), as a frozen
// host would: its report never comes. Forked, the parent is the suite
// itself, so the body refuses.
RANKTEST_F(InnerLaunched, A_Rank1StopsItsSupervisor,
           ranktest::timeout(3s * harness_suite::kSanitizerSlowdown)) {
  if (std::getenv("OMPI_COMM_WORLD_RANK") == nullptr &&
      std::getenv("TORCHELASTIC_RUN_ID") == nullptr) {
    FAIL() << "runs under mpirun or torchrun only";
  }
  if (rank() != 1) return;
  ::kill(::getppid(), SIGSTOP);
  for (;;) std::this_thread::sleep_for(1h);
}

// After the job gave up on rank 1 this must fail at once, naming it.
RANKTEST_F(InnerLaunched, B_RunsAfterTheLostRank) { pg()->barrier()->wait(); }

class InnerLaunchedRestart : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

// Fails in rank 1 in torchrun's first attempt of the job, and passes in the
// next (--max_restarts), which must not see the first's reports.
RANKTEST_F(InnerLaunchedRestart, FailsInTheFirstAttemptOnly) {
  const char* attempt = std::getenv("TORCHELASTIC_RESTART_COUNT");
  ASSERT_NE(attempt, nullptr) << "runs under torchrun only";
  std::cout << "rank " << rank() << " runs attempt " << attempt << std::endl;
  if (rank() == 1 && std::string(attempt) == "0") {
    ADD_FAILURE() << "rank 1 fails in attempt 0";
  }
  pg()->barrier()->wait();
}

class InnerLaunchedRankZero : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

class InnerLaunchedStore : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

// The launched process of rank 0 forks each test's body, so it must not run
// the job's store server (a fork copies the locks its thread holds): its
// sentinel serves the store under mpirun, torchrun's agent under torchrun.
RANKTEST_F(InnerLaunchedStore, RankZeroProcessListensOnNoPort) {
  if (rank() != 0) return;
  const std::vector<int> ports = harness_suite::listeningPortsOf({::getppid()});
  EXPECT_TRUE(ports.empty())
      << "rank 0's launched process listens on port " << ports.front();
}

// Rank 0 stops its launched process. The job's store is served by another
// process (rank 0's sentinel under mpirun, the agent under torchrun), so
// rank 1 gives up on rank 0, whose sentinel then kills it.
RANKTEST_F(InnerLaunchedRankZero, StopsItsSupervisor,
           ranktest::timeout(3s * harness_suite::kSanitizerSlowdown)) {
  if (rank() != 0) return;
  ::kill(::getppid(), SIGSTOP);
  for (;;) std::this_thread::sleep_for(1h);
}

class InnerLaunchedFilters : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

// Two tests for ranks started with different --gtest_filters
// (HarnessLaunched.RanksAtDifferentTests*): each meets its peer's.
RANKTEST_F(InnerLaunchedFilters, A_Passes) { pg()->barrier()->wait(); }
RANKTEST_F(InnerLaunchedFilters, B_Passes) { pg()->barrier()->wait(); }

class InnerLaunchedThree : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {3}}; }
};

// Rank 1 alone is interrupted (as where only its host's launcher is) 1 s
// after its body ended, while it and rank 0 wait for rank 2's report; rank
// 2's body fails after 3 s. A process of its own sends the signal to rank
// 1's launched process: orphaned at once and in a session of its own, so
// that nothing which ends or waits for the body's process or its group
// ends or waits for it, and holding none of the body's descriptors. (A
// plain child did not get its signal out in time.) Where the signal went
// out, it creates $RANKTEST_SELFTEST_SIGNALLED.
RANKTEST_F(InnerLaunchedThree, Rank1AloneIsInterruptedWhileItWaits,
           ranktest::timeout(10s * harness_suite::kSanitizerSlowdown)) {
  if (rank() == 1) {
    const char* signalled = std::getenv("RANKTEST_SELFTEST_SIGNALLED");
    ASSERT_NE(signalled, nullptr);
    const pid_t launched = ::getppid();
    const pid_t middle = ::fork();
    if (middle == 0) {
      ::setsid();
      if (::fork() != 0) ::_exit(0);
      const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
      for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
      ::close_range(3, ~0U, 0);
      std::this_thread::sleep_for(1s);
      if (::kill(launched, SIGINT) == 0) {
        ::close(::open(signalled, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
      }
      ::_exit(0);
    }
    ::waitpid(middle, nullptr, 0);
  }
  if (rank() == 2) {
    std::this_thread::sleep_for(3s);
    ADD_FAILURE() << "rank 2's own report, after 3 s";
  }
}

class InnerLaunchedRelease : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

// Barriers until the file $RANKTEST_SELFTEST_RELEASE exists (at most 30
// s), then passes: a job that runs while the outer test does something
// else (HarnessLaunchedJoin.SecondJobAtTheSame*).
RANKTEST_F(InnerLaunchedRelease, WaitsForTheReleaseFile,
           ranktest::timeout(60s * harness_suite::kSanitizerSlowdown)) {
  const char* release = std::getenv("RANKTEST_SELFTEST_RELEASE");
  ASSERT_NE(release, nullptr);
  const auto until = std::chrono::steady_clock::now() +
                     30s * harness_suite::kSanitizerSlowdown;
  while (::access(release, F_OK) != 0 &&
         std::chrono::steady_clock::now() < until) {
    pg()->barrier()->wait();
    std::this_thread::sleep_for(100ms);
  }
  pg()->barrier()->wait();
}

class InnerFault : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

// Barriers for 3 s, then passes: what matters is the fault that ci/cluster
// injects into one host meanwhile (HarnessCluster), armed by the harness as
// this body starts.
RANKTEST_F(InnerFault, ExchangesForThreeSeconds,
           ranktest::timeout(4s * harness_suite::kSanitizerSlowdown)) {
  const auto until = std::chrono::steady_clock::now() + 3s;
  while (std::chrono::steady_clock::now() < until) {
    pg()->barrier()->wait();
    std::this_thread::sleep_for(100ms);
  }
}
