#include "process/watched_rank.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <variant>

#include "wire/retry_on_eintr.h"

namespace ranktest::internal {
namespace {

// Passes what a non-blocking `fd` holds to `consume`; true at end of file.
template <typename Consume>
bool readAvailable(int fd, Consume consume) {
  char chunk[8192];
  for (;;) {
    const ssize_t n =
        retryOnEintr([&] { return ::read(fd, chunk, sizeof(chunk)); });
    if (n < 0) return false;  // EAGAIN: nothing more for now
    if (n == 0) return true;
    consume(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace

WatchedRank::WatchedRank(RankProcess* process, std::size_t tail_lines,
                         bool echo, bool reused)
    : process(process),
      output(process->rank(), tail_lines, echo),
      reused(reused) {
  report.rank = process->rank();
}

void WatchedRank::readOutput() {
  output_eof = readAvailable(
      process->outputFd(),
      [&](const char* data, std::size_t n) { output.append(data, n); });
  if (output_eof) output.endOfStream();
}

void WatchedRank::readRecords() {
  result_eof = readAvailable(
      process->resultFd(),
      [&](const char* data, std::size_t n) { results.feed(data, n); });
  while (auto record = results.next()) {
    std::visit([&](const auto& r) { handle(r); }, *record);
  }
}

RankReport WatchedRank::takeReport() {
  output.close();
  report.tail = std::move(output.tail());
  report.stack = std::move(output.stack());
  return std::move(report);
}

// The rank is stopped (SIGSTOP) until someone attaches: say so whether or not
// its own output is shown, once it has stopped (a SIGCONT sent before would
// be lost, and the rank would wait for ever).
void WatchedRank::handle(const DebugWaitingRecord& r) {
  awaits_debugger = true;
  process->waitUntilStopped(std::chrono::seconds(2));
  std::fprintf(stderr,
               "[ranktest] rank %d (pid %d) waits for a debugger: gdb -p %d, "
               "then 'continue' (or kill -CONT %d); the deadline is lifted\n",
               report.rank, r.pid, r.pid, r.pid);
  std::fflush(stderr);
}

void WatchedRank::handle(const FinishedRecord& r) {
  finished = true;
  report.end = RankReport::End::kFinished;
  report.code = r.code;
  if (reused) {
    // Everything the rank printed before this record is in the pipe.
    readOutput();
    resolved = true;
  }
}

}  // namespace ranktest::internal
