#include "rank/rank_signals.h"

#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "rank/hang_notes_print.h"
#include "verdict/stack_symbols.h"
#include "wire/rank_launch.h"
#include "wire/record.h"

namespace ranktest::internal {
namespace {

int g_rank = -1;

// The executable's load bias and the addresses its segments span, found
// before any handler runs: frames inside it get a kExeFrameToken with their
// offset, which the parent turns into file:line (stack_symbols.h).
std::uintptr_t g_exe_bias = 0;
std::uintptr_t g_exe_begin = 0;
std::uintptr_t g_exe_end = 0;

int findExecutable(struct dl_phdr_info* info, std::size_t, void*) {
  g_exe_bias = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    const std::uintptr_t end = begin + segment.p_memsz;
    if (g_exe_begin == 0 || begin < g_exe_begin) g_exe_begin = begin;
    if (end > g_exe_end) g_exe_end = end;
  }
  return 1;  // the first object listed is the executable
}

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

void writeHex(std::uintptr_t value) {
  char out[2 * sizeof(value) + 1];
  int n = 0;
  do {
    out[n++] = "0123456789abcdef"[value % 16];
    value /= 16;
  } while (value > 0);
  for (int i = 0; i < n / 2; ++i) {
    const char c = out[i];
    out[i] = out[n - 1 - i];
    out[n - 1 - i] = c;
  }
  out[n] = '\0';
  writeString(out);
}

}  // namespace

void printStack(const char* reason, void* const* frames, int count,
                int exact_frame) {
  writeString(kStackBeginMarker);
  writeNumber(g_rank);
  writeString(" (pid ");
  writeNumber(::getpid());
  writeString(", ");
  writeString(reason);
  writeString(")\n");
  for (int i = 0; i < count; ++i) {
    const auto address = reinterpret_cast<std::uintptr_t>(frames[i]);
    if (address >= g_exe_begin && address < g_exe_end) {
      // A return address is the instruction after its call: the call's line
      // is one byte before.
      writeString(kExeFrameToken);
      writeHex(address - g_exe_bias - (i == exact_frame ? 0 : 1));
      writeString(" ");
    }
    ::backtrace_symbols_fd(frames + i, 1, STDERR_FILENO);
  }
  writeString(kStackEndMarker);
  writeString("\n");
}

namespace {

void dumpStack(const char* reason) {
  void* frames[64];
  const int count = ::backtrace(frames, 64);
  // Skip this function and the signal handler; keep the signal frame. The
  // frame after it is the interrupted instruction itself, not a return
  // address.
  printStack(reason, frames + 2, count - 2, /*exact_frame=*/1);
}

void onStackRequest(int signal_number, siginfo_t*, void*) {
  // The body runs on the rank's main thread; move the request there.
  if (static_cast<pid_t>(::syscall(SYS_gettid)) != ::getpid()) {
    ::syscall(SYS_tgkill, ::getpid(), ::getpid(), signal_number);
    return;
  }
  // Before the stack: what the rank waits for (hang_notes.h), which a stack
  // of another thread's wait (e.g. a reducer's future) cannot say.
  printHangNotes("at the parent's request");
  dumpStack("at the parent's request");
  sendStackDumpedFromSignalHandler(kResultFd);
}

void onCrash(int signal_number, siginfo_t*, void*) {
  const char* name = sigabbrev_np(signal_number);
  // "at SIGABRT": the notes say what the rank was in the middle of when a
  // thread of a library (Gloo's I/O thread) aborted it.
  char when[32] = "at SIG";
  std::strncat(when, name ? name : "?", sizeof(when) - std::strlen(when) - 1);
  printHangNotes(when);
  dumpStack(name ? name : "crash");
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
  ::dl_iterate_phdr(findExecutable, nullptr);
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
