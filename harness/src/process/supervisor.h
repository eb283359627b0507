#pragma once

// The parent's wait on the ranks of one test: reads their output and records,
// stops the others at the first failing rank (first asking them for their
// stacks, within 2 s, when that rank crashed: their hang notes say what they
// were in), and at the deadline asks the ranks still running for their
// stacks, waits a short grace, and kills them. SIGINT or SIGTERM
// (interrupt.h) stop every rank at once.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "process/rank_process.h"
#include "wire/rank_report.h"

namespace ranktest::internal {

struct SuperviseOptions {
  std::chrono::milliseconds timeout{60000};
  // Reused workers finish a test with a FinishedRecord and stay alive;
  // one-shot ranks finish by exiting.
  bool reused = false;
  bool verbose = false;         // stream "[rank N] ..." lines live
  std::size_t tail_lines = 60;  // kept per rank for the report
  // How long ranks may take to print their stacks at the deadline.
  std::chrono::milliseconds stack_grace{2000};
  // How long other ranks may go on once one rank skipped.
  std::chrono::milliseconds skip_grace{5000};
  // Asked every stop_check_interval while ranks run: a reason to stop them
  // now (a rank on another host failed), or nullopt.
  std::function<std::optional<std::string>()> stop_check;
  std::chrono::milliseconds stop_check_interval{100};
};

struct SuperviseResult {
  std::vector<RankReport> ranks;
  std::chrono::milliseconds elapsed{0};
  bool timed_out = false;
  bool deadline_lifted = false;  // a rank waited for a debugger
  int interrupted_by = 0;  // SIGINT or SIGTERM: the ranks were stopped for it
};

SuperviseResult supervise(const std::vector<RankProcess*>& ranks,
                          const SuperviseOptions& options);

}  // namespace ranktest::internal
