#pragma once

// A rank's first steps in the child of fork(), written once: called by a
// forked rank before its body and by a spawned rank's launcher before exec
// (process/program.h). Async-signal-safe: the parent may have threads.

#include <sys/types.h>

namespace ranktest::internal {

// The parent's descriptors a rank gets at fixed numbers (-1: none).
struct RankDescriptors {
  int output = -1;      // becomes stdout and stderr
  int result = -1;      // becomes kResultFd
  int control = -1;     // becomes kControlFd (reused workers)
  int store_file = -1;  // becomes kStoreFileFd
};

// Own process group, death with `parent`, the rank's signal dispositions,
// and `fds` at their fixed numbers with every other descriptor closed except
// `exec_error_fd` (a spawn launcher's; -1 for a forked rank). A descriptor
// step that fails is said on the rank's output, and the child exits with
// kRankSetupExitCode.
void prepareRankChild(pid_t parent, const RankDescriptors& fds,
                      int exec_error_fd);

}  // namespace ranktest::internal
