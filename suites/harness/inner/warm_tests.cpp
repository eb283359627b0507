// Tests that say which process ran them, for warm_test.cpp: run through
// ranktest_warm_client, each must run in a fresh child of the binary's warm
// process (and, with RANKTEST_WARM=0, in the binary itself).

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ranktest/ranktest.h"

using namespace std::chrono_literals;

namespace {

// Counts the tests this process ran: in a fresh process, always 1.
int g_tests_run_here = 0;

long long nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Whether the parent is a warm process (its command line says so).
bool parentIsWarm() {
  std::ifstream cmdline("/proc/" + std::to_string(::getppid()) + "/cmdline");
  const std::string text((std::istreambuf_iterator<char>(cmdline)),
                         std::istreambuf_iterator<char>());
  return text.find("--ranktest_warm_serve=") != std::string::npos;
}

void reportProcess(const char* name) {
  ++g_tests_run_here;
  std::printf("warm-report %s pid=%d ppid=%d warm=%d runs=%d start=%lld\n",
              name, ::getpid(), ::getppid(), parentIsWarm() ? 1 : 0,
              g_tests_run_here, nowMs());
  std::fflush(stdout);
}

// Tells a script outside (through a file in TMPDIR) that the test runs,
// and which process is its parent.
void announceRunning() {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/warm-running";
  std::ofstream(path + ".part") << ::getppid() << "\n";
  std::rename((path + ".part").c_str(), path.c_str());
}

}  // namespace

TEST(InnerWarm, ReportsItsProcess) { reportProcess("first"); }
TEST(InnerWarm, ReportsItsProcessToo) { reportProcess("second"); }

// For parallel jobs: each holds its process a while, and says when it
// started and ended.
class InnerWarmParallel : public ::testing::TestWithParam<int> {};
TEST_P(InnerWarmParallel, HoldsASecond) {
  reportProcess("parallel");
  std::this_thread::sleep_for(1s);
  std::printf("warm-end %lld\n", nowMs());
}
INSTANTIATE_TEST_SUITE_P(Jobs, InnerWarmParallel, ::testing::Range(0, 4));

// Says what the process settings it inherited are.
TEST(InnerWarm, ReportsItsSettings) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  ::sched_getaffinity(0, sizeof(cpus), &cpus);
  std::printf("warm-settings umask=%04o nofile=%llu cpus=%d warm=%d\n",
              static_cast<unsigned>(mask),
              static_cast<unsigned long long>(files.rlim_cur), CPU_COUNT(&cpus),
              parentIsWarm() ? 1 : 0);
  std::fflush(stdout);
}

TEST(InnerWarm, FailsOnPurpose) { ADD_FAILURE() << "failed on purpose"; }

TEST(InnerWarm, CrashesOnPurpose) { std::raise(SIGSEGV); }

// Runs until stopped from outside.
TEST(InnerWarm, RunsUntilStopped) {
  reportProcess("running");
  announceRunning();
  for (;;) std::this_thread::sleep_for(1h);
}

class InnerWarmRanks : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

RANKTEST_F(InnerWarmRanks, AllreduceSums) {
  std::vector<at::Tensor> t{at::full({2}, rank() + 1)};
  pg()->allreduce(t)->wait();
  EXPECT_EQ(t[0][0].item<int>(), 3);
}

// Its ranks wait until the test is stopped from outside.
RANKTEST_F(InnerWarmRanks, RanksRunUntilStopped) {
  if (rank() == 0) announceRunning();
  for (;;) std::this_thread::sleep_for(1h);
}
