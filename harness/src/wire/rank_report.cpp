#include "wire/rank_report.h"

#include <sys/wait.h>

#include "ranktest/skip_codes.h"

namespace ranktest::internal {

void applyExitStatus(int wait_status, bool finished, bool reused,
                     RankReport& report) {
  if (WIFSIGNALED(wait_status)) {
    report.end = RankReport::End::kSignaled;
    report.signal = WTERMSIG(wait_status);
    return;
  }
  const int exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  const std::optional<SkipCode> exit_skip = skipCodeFromExitCode(exit_code);
  if (!finished && exit_skip && report.failures.empty() &&
      report.exceptions.empty()) {
    report.end = RankReport::End::kFinished;
    report.code = exit_code;
    report.skip = Skip{*exit_skip, describeSkipCode(*exit_skip) +
                                       " (the rank exited with code " +
                                       std::to_string(exit_code) + ")"};
    return;
  }
  // A one-shot rank exits with the code it reported.
  if (!finished || reused || exit_code != report.code) {
    report.end = RankReport::End::kExited;
    report.code = exit_code;
  }
}

}  // namespace ranktest::internal
