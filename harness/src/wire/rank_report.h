#pragma once

// What the parent learned about one rank during one test.

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "ranktest/test_options.h"

namespace ranktest::internal {

struct RankFailure {
  std::string file;
  int line = 0;
  std::string message;
};

struct RankException {
  std::string type;
  std::string message;
};

struct RankReport {
  // How the rank's part of the test ended.
  enum class End {
    kFinished,  // the body finished and the rank reported its code
    kExited,    // the process exited without finishing the body
    kSignaled,  // killed by a signal it did not get from us
    kTimedOut,  // still running at the deadline; killed
    kStopped,   // killed by the parent because another rank failed or skipped
  };

  int rank = 0;
  End end = End::kFinished;
  int code = 0;    // reported code (kFinished) or exit code (kExited)
  int signal = 0;  // kSignaled
  std::vector<RankFailure> failures;
  std::vector<RankException> exceptions;
  std::optional<Skip> skip;
  std::vector<std::string> stack;  // printed at the deadline or on a crash
  std::deque<std::string> tail;    // last lines of output, "[rank N] " prefixed
  std::string stopped_because;     // kStopped: e.g. "rank 1 failed"
  // Where the rank ran, when ranks span hosts ("host h1, pid 42"); else "".
  std::string where;
  // When the parent first learned that the rank failed (a failure or an
  // exception record, or an abnormal end): orders the ranks' failures.
  std::optional<std::chrono::steady_clock::time_point> failed_at;

  // Sets failed_at, unless an earlier failure set it.
  void noteFailure() {
    if (!failed_at) failed_at = std::chrono::steady_clock::now();
  }

  bool passed() const { return end == End::kFinished && code == 0; }
  bool skipped() const {
    return end == End::kFinished && skip.has_value() && code != 0 &&
           failures.empty() && exceptions.empty() &&
           code == static_cast<int>(skip->code);
  }
  // Failed by itself (a stopped rank failed only if it reported failures).
  bool failed() const {
    if (end == End::kStopped) return !failures.empty() || !exceptions.empty();
    return !passed() && !skipped();
  }
};

// Records how the rank's process ended (`wait_status` from waitpid) in
// `report`: a signal, a skip code it exited with (PyTorch's convention), or
// an exit without the FinishedRecord (`finished`) a finished body sends.
// A reused worker never exits during a test.
void applyExitStatus(int wait_status, bool finished, bool reused,
                     RankReport& report);

}  // namespace ranktest::internal
