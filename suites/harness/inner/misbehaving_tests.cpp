// Test bodies that misbehave on purpose in one rank. This binary is not a
// suite: suite_harness runs it and checks what its parent process reported
// (as googletest tests itself). The fixtures stay outside an anonymous
// namespace so that stack dumps can name them.

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>

#include "hang_deadline.h"
#include "process_probe.h"
#include "ranktest/ranktest.h"
#include "sanitizer_slowdown.h"

using namespace std::chrono_literals;

class InnerReports : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }

 protected:
  void barrier() { pg()->barrier()->wait(); }
};

[[noreturn]] void sleepForeverInRank(int rank) {
  std::cout << "rank " << rank << " is about to hang" << std::endl;
  for (;;) std::this_thread::sleep_for(1h);
}

RANKTEST_F(InnerReports, Passes) {
  barrier();
  std::cout << "rank " << rank() << " passed" << std::endl;
}

RANKTEST_F(InnerReports, ExpectFailsInRank1) {
  barrier();
  std::cout << "rank " << rank() << " says hello" << std::endl;
  EXPECT_EQ(rank(), 0) << "the failure message of rank " << rank();
}

RANKTEST_F(InnerReports, AssertStopsTheBodyInRank1) {
  ASSERT_NE(rank(), 1) << "fatal in rank 1";
  std::cout << "rank " << rank() << " went past the assertion" << std::endl;
}

[[gnu::noinline]] void throwBoomFromRank(int rank) {
  throw std::runtime_error("boom from rank " + std::to_string(rank));
}

RANKTEST_F(InnerReports, ThrowsInRank1) {
  if (rank() == 1) throwBoomFromRank(rank());
}

// libtorch throws (c10::Error) from inside its own library.
[[gnu::noinline]] void addMismatchedShapesInRank(int rank) {
  const at::Tensor sum = at::ones({2}) + at::ones({3 + rank});
  std::cout << sum << std::endl;
}

RANKTEST_F(InnerReports, LibtorchThrowsInRank1) {
  if (rank() == 1) addMismatchedShapesInRank(rank());
}

RANKTEST_F(InnerReports, SegfaultsInRank1) {
  if (rank() == 1) {
    std::cout << "rank 1 is about to crash" << std::endl;
    std::raise(SIGSEGV);
  }
  sleepForeverInRank(rank());
}

RANKTEST_F(InnerReports, AbortsInRank1) {
  if (rank() == 1) std::abort();
  sleepForeverInRank(rank());
}

RANKTEST_F(InnerReports, ExitsEarlyInRank1) {
  if (rank() == 1) std::exit(0);
}

// Rank 1 skips the allreduce that rank 0 waits in, passes and leaves.
RANKTEST_F(InnerReports, Rank1SkipsACollective) {
  if (rank() == 1) return;
  std::vector<at::Tensor> t{at::ones({4})};
  pg()->allreduce(t)->wait();
}

// 2 s for forked ranks, 6 s for spawned ones (hang_deadline.h).
RANKTEST_F(InnerReports, HangsInRank1,
           ranktest::timeout(harness_suite::hangDeadline())) {
  if (rank() == 1) sleepForeverInRank(rank());
}

RANKTEST_F(InnerReports, AllRanksSkip) {
  GTEST_SKIP() << "nothing to do on this machine";
}

RANKTEST_F(InnerReports, AllRanksSkipRank) {
  ranktest::skipRank(ranktest::SkipCode::kFeatureUnavailable,
                     "feature X is unavailable");
}

// PyTorch's way to skip: exit with the code.
RANKTEST_F(InnerReports, EveryRankExitsWithASkipCode) { std::exit(73); }

RANKTEST_F(InnerReports, SomeRanksSkip) {
  if (rank() == 0) GTEST_SKIP() << "only rank 0 skips";
}

RANKTEST_F(InnerReports, SkipsInTheParent, ranktest::skipIfLessThanGpus(8)) {
  std::cout << "this body must never run" << std::endl;
}

// Every rank sleeps until it is killed: the outer test kills the parent.
RANKTEST_F(InnerReports, HangsInEveryRank, ranktest::timeout(120s)) {
  std::cout << "rank " << rank() << " ready" << std::endl;
  sleepForeverInRank(rank());
}

// Reused processes: the same workers run every test of this fixture.
class InnerReuse : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2}, .reuse_processes = true};
  }

 protected:
  void printPidAfterAllreduce() {
    std::vector<at::Tensor> t{at::ones({1})};
    pg()->allreduce(t)->wait();
    EXPECT_EQ(t[0].item<float>(), worldSize());
    std::cout << "pid " << ::getpid() << std::endl;
  }
};

RANKTEST_F(InnerReuse, A_Passes) { printPidAfterAllreduce(); }
RANKTEST_F(InnerReuse, B_PassesInTheSameProcesses) { printPidAfterAllreduce(); }
RANKTEST_F(InnerReuse, C_FailsInRank1) {
  printPidAfterAllreduce();
  // Both ranks have printed before rank 1 fails and rank 0 is stopped.
  pg()->barrier()->wait();
  EXPECT_NE(rank(), 1) << "rank 1 fails in a reused worker";
}
RANKTEST_F(InnerReuse, D_PassesAfterThePoolIsRebuilt) {
  printPidAfterAllreduce();
}
RANKTEST_F(InnerReuse, E_HangsInRank0, ranktest::timeout(2s)) {
  if (rank() == 0) sleepForeverInRank(rank());
}
RANKTEST_F(InnerReuse, F_PassesAfterTheHang) { printPidAfterAllreduce(); }

// Registered last, so that it runs after the tests before it in a filter:
// the parent must listen only for the test that is running now (one port for
// a TCP store, none for a file store), never for an earlier one.
RANKTEST_F(InnerReports, ParentListensOnlyForTheRunningTest) {
  const char* store = std::getenv("RANKTEST_STORE");
  const bool tcp = store != nullptr && std::string(store) == "tcp";
  const std::vector<int> ports = harness_suite::listeningPortsOf({::getppid()});
  EXPECT_EQ(ports.size(), tcp ? 1u : 0u)
      << "the parent listens on " << ports.size() << " ports";
}
