#include "harness_overhead/clocks.h"

#include <pthread.h>
#include <time.h>

#include <chrono>

namespace harness_overhead {
namespace {

// A static initialiser: in a spawned rank it runs right after the loader
// mapped libtorch, which is as early as the benchmark's code can run.
const std::int64_t g_image_ns = nowNs();
std::int64_t g_alive_ns = 0;
// Written by the atfork handlers, which take no arguments.
ForkTimes g_forks;

void forkPrepare() {
  g_forks.begin_cpu_ns = threadCpuNs();
  g_forks.begin_ns = nowNs();
  if (g_forks.count == 0) g_forks.first_ns = g_forks.begin_ns;
}

void forkParent() {
  const std::int64_t t = nowNs();
  g_forks.sum_ns += t - g_forks.begin_ns;
  g_forks.last_ns = t;
  g_forks.cpu_ns += threadCpuNs() - g_forks.begin_cpu_ns;
  ++g_forks.count;
}

void forkChild() { g_alive_ns = nowNs(); }

}  // namespace

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t threadCpuNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double toMs(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::int64_t aliveNs() { return g_alive_ns; }

void markAliveAtImageLoad() { g_alive_ns = g_image_ns; }

void installForkTimer() {
  ::pthread_atfork(&forkPrepare, &forkParent, &forkChild);
}

void resetForkTimes() { g_forks = ForkTimes{}; }

ForkTimes forkTimes() { return g_forks; }

}  // namespace harness_overhead
