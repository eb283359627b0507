#pragma once

// The clocks of the benchmark. Everything is on CLOCK_MONOTONIC (what
// std::chrono::steady_clock reads on Linux), which every process of the
// machine shares: a rank's stamps and the parent's line up on one timeline.

#include <cstdint>

namespace harness_overhead {

// steady_clock, in ns.
std::int64_t nowNs();
// CPU time of the calling thread (user + sys), in ns.
std::int64_t threadCpuNs();
double toMs(std::int64_t ns);

// When this process came to life: the fork child handler sets it in a forked
// rank; a spawned rank has nothing earlier to go by than the end of loading
// its image (libtorch and all), which markAliveAtImageLoad() takes.
std::int64_t aliveNs();
void markAliveAtImageLoad();

// The parent's fork() calls since the last resetForkTimes(), as its
// pthread_atfork handlers saw them.
struct ForkTimes {
  int count = 0;
  std::int64_t first_ns = 0;  // first prepare handler
  std::int64_t last_ns = 0;   // last parent handler (fork returned)
  std::int64_t begin_ns = 0;  // the current call's prepare handler
  std::int64_t sum_ns = 0;    // wall time inside fork()
  std::int64_t begin_cpu_ns = 0;
  std::int64_t cpu_ns = 0;  // parent thread CPU inside fork()
};

// In the parent, once: times its fork() calls, and marks forked children
// alive.
void installForkTimer();
void resetForkTimes();
ForkTimes forkTimes();

}  // namespace harness_overhead
