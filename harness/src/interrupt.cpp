#include "ranktest/internal/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace ranktest::internal {
namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_reported{false};
int g_pipe[2] = {-1, -1};

// Async-signal-safe: atomics and write() only. A second signal while the
// first is being handled means "now": the default action ends the process
// (its ranks die with it by PR_SET_PDEATHSIG).
void onInterrupt(int signal_number) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, signal_number)) {
    ::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
    return;
  }
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
