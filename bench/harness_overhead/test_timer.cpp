#include "harness_overhead/test_timer.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

#include "common/runner.h"

namespace bench {
namespace {

double threadCpuUs() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + ts.tv_nsec / 1e3;
}

// The parent's CPU inside fork() since the test started: the kernel copying
// the parent for a rank, which the harness does not choose. Set by the
// pthread_atfork handlers, which take no arguments.
double g_fork_cpu_us = 0;
double g_fork_entered_us = 0;

void beforeFork() { g_fork_entered_us = threadCpuUs(); }
void afterForkInParent() { g_fork_cpu_us += threadCpuUs() - g_fork_entered_us; }

}  // namespace

TestTimer::TestTimer(SampleFile out, std::map<std::string, Row> key_of_suite)
    : out_(std::move(out)),
      key_of_suite_(std::move(key_of_suite)),
      parent_(::getpid()) {
  ::pthread_atfork(&beforeFork, &afterForkInParent, nullptr);
}

void TestTimer::OnTestStart(const ::testing::TestInfo&) {
  g_fork_cpu_us = 0;
  start_cpu_us_ = threadCpuUs();
  start_ = std::chrono::steady_clock::now();
}

void TestTimer::OnTestPartResult(const ::testing::TestPartResult& result) {
  if (::getpid() != parent_ || !result.failed()) return;
  std::fprintf(stderr, "%s:%d: %s\n", result.file_name(), result.line_number(),
               result.message());
}

void TestTimer::OnTestEnd(const ::testing::TestInfo& info) {
  // The clocks first: what follows is the listener's own work.
  const double test_us = microsSince(start_);
  const double cpu_us = threadCpuUs() - start_cpu_us_;
  if (::getpid() != parent_ || !info.result()->Passed()) return;
  const auto key = key_of_suite_.find(info.test_suite_name());
  if (key == key_of_suite_.end()) return;
  auto row = [&](const char* metric, double value) {
    Row r = key->second;
    r.insert(r.end(), {metric, toText(value)});
    return r;
  };
  if (std::string(info.name()).rfind("PoolStart", 0) == 0) {
    out_.append({row("pool_start_us", test_us)});
    return;
  }
  out_.append({row("test_us", test_us), row("parent_cpu_us", cpu_us),
               row("fork_cpu_us", g_fork_cpu_us)});
}

}  // namespace bench
