#pragma once

// Starting another program: the one place the harness and its tests exec a
// child (spawned ranks, the symbolizer, the test listing, the warm process,
// the self-tests' inner runs), through Boost.Process v2. Free of libtorch:
// the ctest client uses it too. Fork-mode ranks, the warm server's per-test
// fork and the sentinel are plain forks (process/rank_process.cpp and
// others): they run this binary's code, not another program.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ranktest::internal {

// What to start and how its child is set up before exec.
struct ProgramCall {
  // What is executed (a path; e.g. /proc/self/exe).
  std::string executable;
  // argv, argv[0] (the name the program sees) included.
  std::vector<std::string> arguments;
  // NAME=value entries; unset: this process's environment.
  std::optional<std::vector<std::string>> environment;
  // The child's working directory; "": this process's.
  std::string directory;
  // Descriptors above stderr that `child_setup` puts in place and exec must
  // keep (every other descriptor is closed before exec).
  std::vector<int> kept_descriptors;
  // Runs in the child between fork and exec, async-signal-safe calls only
  // (the parent may have threads). `exec_error_fd` reports a failed exec to
  // the parent: leave it open unless a kept descriptor takes its number.
  std::function<void(int exec_error_fd)> child_setup;
};

// Starts `call` and returns its pid; the caller owns the child (waits for
// it, kills it). Throws (std::runtime_error, naming the executable and the
// system's reason) when the program cannot be started.
pid_t startProgram(const ProgramCall& call);

// The end of a program run by runProgram.
struct ProgramRun {
  int exit_code = -1;      // -1: killed by a signal (its number in `signal`)
  int signal = 0;          // the signal that ended it, 0 if none
  bool timed_out = false;  // killed at the limit
  std::string output;      // its stdout
};

// Runs `call` with its stdout captured (stderr as this process's) until it
// ends, killing it (and its process group) at `limit`. Throws as
// startProgram.
ProgramRun runProgram(const ProgramCall& call, std::chrono::milliseconds limit);

// The path of `name` found in PATH as a shell would, or "" if none.
std::string findExecutable(const std::string& name);

// The child-side descriptor hygiene startProgram's callers share: closes
// every descriptor above `highest_kept` except `exec_error_fd`.
// Async-signal-safe.
void closeDescriptorsAbove(int highest_kept, int exec_error_fd);

}  // namespace ranktest::internal
