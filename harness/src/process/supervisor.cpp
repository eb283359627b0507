#include "process/supervisor.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <string>

#include "process/interrupt.h"
#include "process/watched_rank.h"
#include "rank/rank_signals.h"
#include "verdict/verdict.h"

namespace ranktest::internal {
namespace {

using Clock = std::chrono::steady_clock;

// How long the ranks still running may take to print their stacks and hang
// notes once a rank crashed, before they are stopped: a crash in a library's
// thread (Gloo's I/O thread aborting on a mismatched collective) shows only
// that thread, and the peers' notes name the hook and bucket they were in.
// Each answers in milliseconds; the bound is for one that cannot answer.
constexpr std::chrono::milliseconds kCrashStackGrace{2000};

class Supervisor {
 public:
  Supervisor(const std::vector<RankProcess*>& ranks,
             const SuperviseOptions& options)
      : options_(options) {
    for (RankProcess* process : ranks) {
      watched_.emplace_back(process, options.tail_lines, options.verbose,
                            options.reused);
    }
  }

  SuperviseResult run() {
    const auto start = Clock::now();
    auto deadline = start + options_.timeout;
    std::optional<Clock::time_point> first_skip;
    auto next_stop_check = start;
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
      if (stoppedAtAFailure()) break;
      if (options_.stop_check && Clock::now() >= next_stop_check) {
        next_stop_check = Clock::now() + options_.stop_check_interval;
        if (const std::optional<std::string> why = options_.stop_check()) {
          stopUnresolved(*why);
          break;
        }
      }
      if (!first_skip && anySkipped()) first_skip = Clock::now();
      if (first_skip && Clock::now() >= *first_skip + options_.skip_grace) {
        stopUnresolved("another rank skipped");
        break;
      }
      if (!deadlineLifted() && Clock::now() >= deadline) {
        timed_out = true;
        collectStacksAndKill();
        break;
      }
      auto wake =
          deadlineLifted() ? Clock::now() + std::chrono::seconds(1) : deadline;
      if (first_skip) wake = std::min(wake, *first_skip + options_.skip_grace);
      if (options_.stop_check) wake = std::min(wake, next_stop_check);
      pollOnce(wake);
    }
    drain();
    SuperviseResult result;
    for (WatchedRank& w : watched_) result.ranks.push_back(w.takeReport());
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        Clock::now() - start);
    result.timed_out = timed_out;
    result.interrupted_by = interrupted_by;
    result.deadline_lifted = deadlineLifted();
    return result;
  }

 private:
  // Where a rank crashes, asks its peers for their stacks (their hang notes
  // say what they were in); where one failed, stops the others and says so.
  bool stoppedAtAFailure() {
    if (!peers_of_crash_stopped_) {
      if (WatchedRank* crashing = inCrashHandler()) {
        stopPeersOfCrash(*crashing);
      }
    }
    WatchedRank* failed = firstFailed();
    if (failed == nullptr) return false;
    // Only a crash: an ordinary failure stops the others at once.
    if (failed->report.end == RankReport::End::kSignaled &&
        !peers_of_crash_stopped_) {
      stopPeersOfCrash(*failed);
    }
    stopUnresolved("rank " + std::to_string(failed->report.rank) + " failed");
    return true;
  }

  // Reads whatever is ready, waiting at most until `wake`.
  void pollOnce(Clock::time_point wake) {
    std::vector<pollfd> fds;
    // Per descriptor: its rank and what it is (0 output, 1 result, 2 exit).
    std::vector<std::pair<WatchedRank*, int>> owners;
    // SIGINT or SIGTERM wake the loop at once (once seen, the pipe stays
    // readable: it is no longer waited on).
    if (interruptFd() >= 0 && interruptSignal() == 0) {
      fds.push_back({interruptFd(), POLLIN, 0});
      owners.emplace_back(nullptr, 3);
    }
    bool have_exit_fds = true;
    for (WatchedRank& w : watched_) {
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
      WatchedRank& w = *owners[i].first;
      if (owners[i].second == 0) w.readOutput();
      if (owners[i].second == 1) w.readRecords();
    }
  }

  // A debugging session has no sensible deadline.
  bool deadlineLifted() const {
    return std::any_of(watched_.begin(), watched_.end(),
                       [](const WatchedRank& w) { return w.awaits_debugger; });
  }

  void refreshExits() {
    for (WatchedRank& w : watched_) {
      if (w.resolved && !options_.reused) continue;
      if (!w.process->pollExit()) continue;
      if (w.resolved) continue;
      // Records and output written before the exit are still in the pipes.
      w.readRecords();
      w.readOutput();
      w.resolved = true;
      applyExitStatus(w.process->waitStatus(), w.finished, options_.reused,
                      w.report);
      if (w.report.failed()) w.report.noteFailure();
    }
  }

  bool allResolved() const {
    return std::all_of(watched_.begin(), watched_.end(),
                       [](const WatchedRank& w) { return w.resolved; });
  }

  WatchedRank* firstFailed() {
    for (WatchedRank& w : watched_) {
      if (w.resolved && w.report.failed()) return &w;
    }
    return nullptr;
  }

  bool anySkipped() const {
    return std::any_of(
        watched_.begin(), watched_.end(),
        [](const WatchedRank& w) { return w.resolved && w.report.skipped(); });
  }

  void stopUnresolved(const std::string& why) {
    killUnresolved(RankReport::End::kStopped, why);
  }

  // A rank whose crash handler (rank_signals.cpp) is printing its stack, the
  // signal's name as its reason, and which has not exited yet.
  WatchedRank* inCrashHandler() {
    for (WatchedRank& w : watched_) {
      if (w.resolved || w.output.stack().empty()) continue;
      const std::string& header = w.output.stack().front();
      const std::size_t from = header.find(", ", header.find("(pid "));
      if (from == std::string::npos || header.back() != ')') continue;
      const std::string reason =
          header.substr(from + 2, header.size() - from - 3);
      for (int s = 1; s < NSIG; ++s) {
        const char* name = sigabbrev_np(s);
        if (name != nullptr && reason == name) return &w;
      }
    }
    return nullptr;
  }

  // The ranks other than `crashed` print their stacks and hang notes, then
  // are stopped. Done while `crashed` is still in its crash handler where
  // possible: once it is gone, its peers soon fail on their own ("Connection
  // reset by peer") and no longer say what they were in. Then `crashed` is
  // waited for, not stopped for a failure of a peer's it caused.
  void stopPeersOfCrash(WatchedRank& crashed) {
    peers_of_crash_stopped_ = true;
    crashed.report.noteFailure();  // before what its peers report after it
    const auto end = Clock::now() + kCrashStackGrace;
    requestStacks(kCrashStackGrace, /*skip_failing=*/true, &crashed);
    killUnresolved(RankReport::End::kStopped,
                   "rank " + std::to_string(crashed.report.rank) + " failed",
                   &crashed);
    for (refreshExits(); !crashed.resolved && Clock::now() < end;
         refreshExits()) {
      pollOnce(std::min(end, Clock::now() + std::chrono::milliseconds(20)));
    }
  }

  // Ends every rank whose part is not over, keeping what it wrote so far.
  // All are killed before any is marked, so that one rank's death cannot let
  // another report a failure it caused (a peer's closed connection) in the
  // middle of the sweep.
  void killUnresolved(RankReport::End end, const std::string& why,
                      const WatchedRank* spare = nullptr) {
    std::vector<WatchedRank*> targets;
    for (WatchedRank& w : watched_) {
      if (w.resolved || &w == spare) continue;
      w.readOutput();
      w.readRecords();
      if (w.resolved) continue;  // a reused worker finished meanwhile
      targets.push_back(&w);
    }
    std::vector<bool> finished_before;
    finished_before.reserve(targets.size());
    for (WatchedRank* w : targets) finished_before.push_back(w->finished);
    // SIGKILL to all first, then reap each (kill() waits for its rank).
    for (WatchedRank* w : targets) w->process->signal(SIGKILL);
    for (WatchedRank* w : targets) w->process->kill();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      WatchedRank& w = *targets[i];
      w.resolved = true;
      // It reported its outcome and was only on its way out (e.g. a rank
      // that passed, whose leaving made another rank fail): keep it.
      if (finished_before[i]) continue;
      w.report.end = end;
      w.report.stopped_because = why;
    }
  }

  void collectStacksAndKill() {
    requestStacks(options_.stack_grace, /*skip_failing=*/false);
    killUnresolved(RankReport::End::kTimedOut, "");
  }

  // Asks the ranks still running for their stacks (rank_signals.h) and reads
  // what they print until each has printed it or `grace` is over. With
  // `skip_failing`, not a rank that already reported a failure or finished:
  // it may be printing its own stack (an exception's), which the request's
  // stack would cut into.
  void requestStacks(std::chrono::milliseconds grace, bool skip_failing,
                     const WatchedRank* spare = nullptr) {
    std::vector<WatchedRank*> asked;
    for (WatchedRank& w : watched_) {
      if (w.resolved || &w == spare) continue;
      if (skip_failing) {
        w.readRecords();
        if (w.resolved || w.finished || !w.report.failures.empty() ||
            !w.report.exceptions.empty()) {
          continue;
        }
      }
      w.process->signal(stackRequestSignal());
      asked.push_back(&w);
    }
    const auto grace_end = Clock::now() + grace;
    while (!asked.empty() && Clock::now() < grace_end) {
      refreshExits();
      const bool all_dumped = std::all_of(
          asked.begin(), asked.end(),
          [](const WatchedRank* w) { return w->resolved || w->stack_dumped; });
      if (all_dumped) break;
      pollOnce(
          std::min(grace_end, Clock::now() + std::chrono::milliseconds(20)));
    }
  }

  // After the outcome is known: the rest of the output of ranks that are
  // gone. Bounded, because a rank's own children may hold the pipe open.
  void drain() {
    const auto drain_end = Clock::now() + std::chrono::milliseconds(500);
    for (;;) {
      bool pending = false;
      for (WatchedRank& w : watched_) {
        if (!w.process->exited()) continue;
        if (!w.output_eof) {
          w.readOutput();
          pending = pending || !w.output_eof;
        }
        if (!w.result_eof) {
          w.readRecords();
          pending = pending || !w.result_eof;
        }
      }
      if (!pending || Clock::now() >= drain_end) break;
      ::usleep(1000);
    }
  }

  SuperviseOptions options_;
  std::vector<WatchedRank> watched_;
  bool peers_of_crash_stopped_ = false;
};

}  // namespace

SuperviseResult supervise(const std::vector<RankProcess*>& ranks,
                          const SuperviseOptions& options) {
  return Supervisor(ranks, options).run();
}

}  // namespace ranktest::internal
