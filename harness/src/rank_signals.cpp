#include "ranktest/internal/rank_signals.h"

#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "ranktest/internal/rank_launch.h"
#include "ranktest/internal/record.h"

namespace ranktest::internal {
namespace {

int g_rank = -1;

void writeString(const char* text) {
  ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void writeNumber(long value) {
  char digits[24];
  int n = 0;
  if (value < 0) {
    writeString("-");
    value = -value;
  }
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0 && n < 23);
  char out[24];
  for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  out[n] = '\0';
  writeString(out);
}

void dumpStack(const char* reason) {
  writeString(kStackBeginMarker);
  writeNumber(g_rank);
  writeString(" (pid ");
  writeNumber(::getpid());
  writeString(", ");
  writeString(reason);
  writeString(")\n");
  void* frames[64];
  const int count = ::backtrace(frames, 64);
  // Skip this function and the signal handler; keep the signal frame.
  ::backtrace_symbols_fd(frames + 2, count > 2 ? count - 2 : 0, STDERR_FILENO);
  writeString(kStackEndMarker);
  writeString("\n");
}

void onStackRequest(int signal_number, siginfo_t*, void*) {
  // The body runs on the rank's main thread; move the request there.
  if (static_cast<pid_t>(::syscall(SYS_gettid)) != ::getpid()) {
    ::syscall(SYS_tgkill, ::getpid(), ::getpid(), signal_number);
    return;
  }
  dumpStack("at the deadline");
  sendStackDumpedFromSignalHandler(kResultFd);
}

void onCrash(int signal_number, siginfo_t*, void*) {
  dumpStack(sigabbrev_np(signal_number) ? sigabbrev_np(signal_number)
                                        : "crash");
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void install(int signal_number, void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal_number, &action, nullptr);
}

}  // namespace

int stackRequestSignal() { return SIGRTMIN + 3; }

void installRankSignalHandlers(int rank) {
  g_rank = rank;
  // backtrace() loads libgcc on first use, which allocates: do it now, not
  // inside a handler.
  void* warm[4];
  ::backtrace(warm, 4);
  // An alternate stack lets the crash handler run after a stack overflow.
  static char alternate_stack[64 * 1024];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof(alternate_stack);
  ::sigaltstack(&stack, nullptr);
  install(stackRequestSignal(), onStackRequest);
  for (int crash : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    install(crash, onCrash);
  }
}

}  // namespace ranktest::internal
