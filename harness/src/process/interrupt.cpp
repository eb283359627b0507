#include "process/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace ranktest::internal {
namespace {

std::atomic<int> g_signal{0};
std::atomic<long long> g_first_ns{0};
std::atomic<bool> g_reported{false};
int g_pipe[2] = {-1, -1};

// A second signal of the first one's kind within this long is the same
// interrupt: a launcher or CI runner that signals a process group and its
// members (ci/cluster's teardown, Slurm) sends two at once.
constexpr long long kSameInterruptNs = 1'000'000'000;

long long monotonicNs() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return static_cast<long long>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Async-signal-safe: atomics, clock_gettime and write() only. Another
// signal while the first is being handled means "now": the default action
// ends the process (its ranks die with it by PR_SET_PDEATHSIG).
void onInterrupt(int signal_number) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, signal_number)) {
    if (expected == signal_number &&
        monotonicNs() - g_first_ns.load() < kSameInterruptNs) {
      return;
    }
    ::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
    return;
  }
  g_first_ns = monotonicNs();
  const int saved_errno = errno;
  const char byte = 1;
  ssize_t ignored = ::write(g_pipe[1], &byte, 1);
  (void)ignored;
  errno = saved_errno;
}

void install(int signal_number) {
  struct sigaction previous {};
  ::sigaction(signal_number, nullptr, &previous);
  if (previous.sa_handler == SIG_IGN) return;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal_number, &action, nullptr);
}

}  // namespace

void installInterruptHandlers() {
  if (g_pipe[0] >= 0) return;
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  install(SIGINT);
  install(SIGTERM);
}

int interruptSignal() { return g_signal.load(); }

int interruptFd() { return g_pipe[0]; }

void markInterruptReported() { g_reported = true; }

bool interruptReported() { return g_reported.load(); }

}  // namespace ranktest::internal
