#include "ranktest/internal/supervisor.h"

#include <cxxabi.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "ranktest/internal/interrupt.h"
#include "ranktest/internal/rank_signals.h"
#include "ranktest/internal/record.h"
#include "ranktest/internal/verdict.h"

namespace ranktest::internal {
namespace {

using Clock = std::chrono::steady_clock;

// "bin(_ZN3foo3barEv+0x1f) [0x4005]" -> "bin(foo::bar()+0x1f) [0x4005]".
std::string demangleFrame(const std::string& line) {
  const std::size_t open = line.find("(_Z");
  if (open == std::string::npos) return line;
  const std::size_t end = line.find_first_of("+)", open);
  if (end == std::string::npos) return line;
  const std::string mangled = line.substr(open + 1, end - open - 1);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> plain(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
      std::free);
  if (status != 0 || !plain) return line;
  return line.substr(0, open + 1) + plain.get() + line.substr(end);
}

// Per-rank parent state while a test runs.
struct Watched {
  RankProcess* process;
  RankReport report;
  RecordReader records;
  std::string partial_line;
  bool in_stack = false;
  bool stack_cut = false;
  bool finished = false;      // kFinished received
  bool stack_dumped = false;  // kStackDumped received
  bool output_eof = false;
  bool result_eof = false;
  bool resolved = false;  // its part of the test is over
};

class Supervisor {
 public:
  Supervisor(const std::vector<RankProcess*>& ranks,
             const SuperviseOptions& options)
      : options_(options) {
    for (RankProcess* process : ranks) {
      Watched w{process, {}, {}, {}};
      w.report.rank = process->rank();
      watched_.push_back(std::move(w));
    }
  }

  SuperviseResult run() {
    const auto start = Clock::now();
    auto deadline = start + options_.timeout;
    std::optional<Clock::time_point> first_skip;
    bool timed_out = false;
    int interrupted_by = 0;
    for (;;) {
      refreshExits();
      if (allResolved()) break;
      if (const int signal_number = interruptSignal()) {
        markInterruptReported();
        stopUnresolved("the run was interrupted by " +
                       describeSignal(signal_number));
        interrupted_by = signal_number;
        break;
      }
      if (const Watched* failed = firstFailed()) {
        stopUnresolved("rank " + std::to_string(failed->report.rank) +
                       " failed");
        break;
      }
      if (!first_skip && anySkipped()) first_skip = Clock::now();
      if (first_skip && Clock::now() >= *first_skip + options_.skip_grace) {
        stopUnresolved("another rank skipped");
        break;
      }
      if (!deadline_lifted_ && Clock::now() >= deadline) {
        timed_out = true;
        collectStacksAndKill();
        break;
      }
      auto wake =
          deadline_lifted_ ? Clock::now() + std::chrono::seconds(1) : deadline;
      if (first_skip) wake = std::min(wake, *first_skip + options_.skip_grace);
      pollOnce(wake);
    }
    drain();
    SuperviseResult result;
    for (Watched& w : watched_) result.ranks.push_back(std::move(w.report));
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        Clock::now() - start);
    result.timed_out = timed_out;
    result.interrupted_by = interrupted_by;
    result.deadline_lifted = deadline_lifted_;
    return result;
  }

 private:
  // Reads whatever is ready, waiting at most until `wake`.
  void pollOnce(Clock::time_point wake) {
    std::vector<pollfd> fds;
    std::vector<std::pair<Watched*, int>> owners;  // 0 output, 1 result, 2 exit
    // SIGINT or SIGTERM wake the loop at once (once seen, the pipe stays
    // readable: it is no longer waited on).
    if (interruptFd() >= 0 && interruptSignal() == 0) {
      fds.push_back({interruptFd(), POLLIN, 0});
      owners.emplace_back(nullptr, 3);
    }
    bool have_exit_fds = true;
    for (Watched& w : watched_) {
      if (!w.output_eof) {
        fds.push_back({w.process->outputFd(), POLLIN, 0});
        owners.emplace_back(&w, 0);
      }
      if (!w.result_eof) {
        fds.push_back({w.process->resultFd(), POLLIN, 0});
        owners.emplace_back(&w, 1);
      }
      if (!w.process->exited()) {
        if (w.process->exitFd() >= 0) {
          fds.push_back({w.process->exitFd(), POLLIN, 0});
          owners.emplace_back(&w, 2);
        } else {
          have_exit_fds = false;
        }
      }
    }
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
        wake - Clock::now());
    // Without pidfds an exit is noticed by polling.
    if (!have_exit_fds) wait = std::min(wait, std::chrono::milliseconds(10));
    const int timeout_ms =
        static_cast<int>(std::max<long long>(0, wait.count()) + 1);
    const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready <= 0) return;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0 || owners[i].first == nullptr) continue;
      Watched& w = *owners[i].first;
      if (owners[i].second == 0) readOutput(w);
      if (owners[i].second == 1) readRecords(w);
    }
  }

  void readOutput(Watched& w) {
    char chunk[8192];
    for (;;) {
      ssize_t n = ::read(w.process->outputFd(), chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return;  // EAGAIN: nothing more for now
      if (n == 0) {
        w.output_eof = true;
        if (!w.partial_line.empty()) addLine(w, w.partial_line);
        w.partial_line.clear();
        return;
      }
      w.partial_line.append(chunk, static_cast<std::size_t>(n));
      std::size_t newline;
      while ((newline = w.partial_line.find('\n')) != std::string::npos) {
        addLine(w, w.partial_line.substr(0, newline));
        w.partial_line.erase(0, newline + 1);
      }
    }
  }

  void addLine(Watched& w, const std::string& line) {
    // A stack marker may follow an unterminated line of the rank's own.
    const std::size_t marker = line.find(kStackBeginMarker);
    if (marker != std::string::npos && marker > 0) {
      addLine(w, line.substr(0, marker));
      addLine(w, line.substr(marker));
      return;
    }
    if (options_.verbose) {
      std::fprintf(stdout, "[rank %d] %s\n", w.report.rank, line.c_str());
      std::fflush(stdout);
    }
    if (marker == 0) {
      w.in_stack = true;
      w.stack_cut = false;
      w.report.stack.clear();
    }
    if (w.in_stack) {
      addStackLine(w, line);
      return;
    }
    w.report.tail.push_back("[rank " + std::to_string(w.report.rank) + "] " +
                            line);
    while (w.report.tail.size() > options_.tail_lines)
      w.report.tail.pop_front();
  }

  // Frames from the harness's rank runner downwards are the same in every
  // report; they are cut.
  void addStackLine(Watched& w, const std::string& line) {
    if (line.rfind(kStackEndMarker, 0) == 0) {
      w.in_stack = false;
      w.report.stack.push_back(line);
      return;
    }
    if (w.stack_cut) return;
    const std::string frame = demangleFrame(line);
    if (frame.find("ranktest::internal::RankRunner::run") !=
        std::string::npos) {
      w.stack_cut = true;
      w.report.stack.push_back("(ranktest frames below)");
      return;
    }
    w.report.stack.push_back(frame);
  }

  void readRecords(Watched& w) {
    char chunk[8192];
    for (;;) {
      ssize_t n = ::read(w.process->resultFd(), chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      if (n == 0) {
        w.result_eof = true;
        break;
      }
      w.records.feed(chunk, static_cast<std::size_t>(n));
    }
    while (auto record = w.records.next()) handleRecord(w, *record);
  }

  void handleRecord(Watched& w, const Record& record) {
    const auto& f = record.fields;
    switch (record.type) {
      case RecordType::kFailure:
        if (f.size() >= 3) {
          w.report.failures.push_back({f[0], std::atoi(f[1].c_str()), f[2]});
        }
        break;
      case RecordType::kSkip:
        if (f.size() >= 2) {
          w.report.skip =
              Skip{static_cast<SkipCode>(std::atoi(f[0].c_str())), f[1]};
        }
        break;
      case RecordType::kException:
        if (f.size() >= 2) w.report.exceptions.push_back({f[0], f[1]});
        break;
      case RecordType::kDebugWaiting:
        // A debugging session has no sensible deadline.
        deadline_lifted_ = true;
        announceDebugWait(w, f.empty() ? std::string("?") : f[0]);
        break;
      case RecordType::kStackDumped:
        w.stack_dumped = true;
        break;
      case RecordType::kFinished:
        w.finished = true;
        w.report.end = RankReport::End::kFinished;
        w.report.code = f.empty() ? -1 : std::atoi(f[0].c_str());
        if (options_.reused) {
          // Everything the rank printed before this record is in the pipe.
          readOutput(w);
          w.resolved = true;
        }
        break;
      default:
        break;
    }
  }

  // The rank is stopped (SIGSTOP) until someone attaches: say so whether or
  // not its own output is shown, once it has stopped (a SIGCONT sent before
  // would be lost, and the rank would wait for ever).
  static void announceDebugWait(const Watched& w, const std::string& pid) {
    w.process->waitUntilStopped(std::chrono::seconds(2));
    std::fprintf(stderr,
                 "[ranktest] rank %d (pid %s) waits for a debugger: gdb -p %s, "
                 "then 'continue' (or kill -CONT %s); the deadline is lifted\n",
                 w.report.rank, pid.c_str(), pid.c_str(), pid.c_str());
    std::fflush(stderr);
  }

  void refreshExits() {
    for (Watched& w : watched_) {
      if (w.resolved && !options_.reused) continue;
      if (!w.process->pollExit()) continue;
      if (w.resolved) continue;
      // Records and output written before the exit are still in the pipes.
      readRecords(w);
      readOutput(w);
      w.resolved = true;
      resolveExit(w);
    }
  }

  void resolveExit(Watched& w) {
    const int status = w.process->waitStatus();
    if (WIFSIGNALED(status)) {
      w.report.end = RankReport::End::kSignaled;
      w.report.signal = WTERMSIG(status);
      return;
    }
    const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    // PyTorch's convention: a rank skips by exiting with a skip code.
    const std::optional<SkipCode> exit_skip = skipCodeFromExitCode(exit_code);
    if (!w.finished && exit_skip && w.report.failures.empty() &&
        w.report.exceptions.empty()) {
      w.report.end = RankReport::End::kFinished;
      w.report.code = exit_code;
      w.report.skip = Skip{*exit_skip, describeSkipCode(*exit_skip) +
                                           " (the rank exited with code " +
                                           std::to_string(exit_code) + ")"};
      return;
    }
    // A reused worker never exits during a test; a one-shot rank exits with
    // the code it reported.
    if (!w.finished || options_.reused || exit_code != w.report.code) {
      w.report.end = RankReport::End::kExited;
      w.report.code = exit_code;
    }
  }

  bool allResolved() const {
    return std::all_of(watched_.begin(), watched_.end(),
                       [](const Watched& w) { return w.resolved; });
  }

  const Watched* firstFailed() const {
    for (const Watched& w : watched_) {
      if (w.resolved && w.report.failed()) return &w;
    }
    return nullptr;
  }

  bool anySkipped() const {
    return std::any_of(watched_.begin(), watched_.end(), [](const Watched& w) {
      return w.resolved && w.report.skipped();
    });
  }

  void stopUnresolved(const std::string& why) {
    killUnresolved(RankReport::End::kStopped, why);
  }

  // Ends every rank whose part is not over, keeping what it wrote so far.
  // All are killed before any is marked, so that one rank's death cannot let
  // another report a failure it caused (a peer's closed connection) in the
  // middle of the sweep.
  void killUnresolved(RankReport::End end, const std::string& why) {
    std::vector<Watched*> targets;
    for (Watched& w : watched_) {
      if (w.resolved) continue;
      readOutput(w);
      readRecords(w);
      if (w.resolved) continue;  // a reused worker finished meanwhile
      targets.push_back(&w);
    }
    std::vector<bool> finished_before;
    finished_before.reserve(targets.size());
    for (Watched* w : targets) finished_before.push_back(w->finished);
    // SIGKILL to all first, then reap each (kill() waits for its rank).
    for (Watched* w : targets) w->process->signal(SIGKILL);
    for (Watched* w : targets) w->process->kill();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      Watched& w = *targets[i];
      w.resolved = true;
      // It reported its outcome and was only on its way out (e.g. a rank
      // that passed, whose leaving made another rank fail): keep it.
      if (finished_before[i]) continue;
      w.report.end = end;
      w.report.stopped_because = why;
    }
  }

  void collectStacksAndKill() {
    for (Watched& w : watched_) {
      if (!w.resolved) w.process->signal(stackRequestSignal());
    }
    const auto grace_end = Clock::now() + options_.stack_grace;
    while (Clock::now() < grace_end) {
      refreshExits();
      const bool all_dumped = std::all_of(
          watched_.begin(), watched_.end(),
          [](const Watched& w) { return w.resolved || w.stack_dumped; });
      if (all_dumped) break;
      pollOnce(
          std::min(grace_end, Clock::now() + std::chrono::milliseconds(20)));
    }
    killUnresolved(RankReport::End::kTimedOut, "");
  }

  // After the outcome is known: the rest of the output of ranks that are
  // gone. Bounded, because a rank's own children may hold the pipe open.
  void drain() {
    const auto drain_end = Clock::now() + std::chrono::milliseconds(500);
    for (;;) {
      bool pending = false;
      for (Watched& w : watched_) {
        if (!w.process->exited()) continue;
        if (!w.output_eof) {
          readOutput(w);
          pending = pending || !w.output_eof;
        }
        if (!w.result_eof) {
          readRecords(w);
          pending = pending || !w.result_eof;
        }
      }
      if (!pending || Clock::now() >= drain_end) break;
      ::usleep(1000);
    }
    for (Watched& w : watched_) {
      if (w.in_stack) w.report.stack.push_back("(stack cut short)");
    }
  }

  SuperviseOptions options_;
  std::vector<Watched> watched_;
  bool deadline_lifted_ = false;
};

}  // namespace

SuperviseResult supervise(const std::vector<RankProcess*>& ranks,
                          const SuperviseOptions& options) {
  return Supervisor(ranks, options).run();
}

}  // namespace ranktest::internal
