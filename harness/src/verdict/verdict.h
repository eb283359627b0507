#pragma once

// Turns the ranks' reports into one gtest outcome: passed; skipped when every
// rank skipped alike; otherwise failed: the first rank to fail (the root
// cause), with the ranks that failed after it only because a peer went away
// collapsed under it, then each other failing rank in the order it failed
// (and one failure for an interrupt or a timeout).

#include <string>
#include <vector>

#include "process/supervisor.h"
#include "wire/rank_report.h"

namespace ranktest::internal {

struct VerdictFailure {
  std::string file;  // where the failure points; the test's file by default
  int line = 0;
  std::string text;
};

struct Verdict {
  enum class Kind { kPassed, kSkipped, kFailed };
  Kind kind = Kind::kPassed;
  std::string skip_message;
  std::vector<VerdictFailure> failures;
};

// What the report header says about the run, e.g. "fork, file store, gloo".
struct RunDescription {
  std::string test;  // full gtest name, or what else ran
  std::string file;
  int line = 0;
  std::string how;
  std::chrono::milliseconds timeout{0};
  std::string rerun;  // how to run it again, e.g. "--gtest_filter=..."
};

Verdict judge(const RunDescription& run, const SuperviseResult& result);

// "skipped (code 73, <note>): <message>", the one wording of a skip.
std::string describeSkip(const Skip& skip, const std::string& note = "");

// "SIGSEGV (Segmentation fault)".
std::string describeSignal(int signal_number);

}  // namespace ranktest::internal
