#pragma once

// Runs an inner test binary (tests that misbehave on purpose) the way a user
// would, and inspects what is left behind: its output, its XML, its
// processes, files and sockets.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "process_probe.h"
#include "sanitizer_slowdown.h"

namespace harness_suite {

struct InnerResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string output;  // stdout and stderr of the inner parent
  std::string xml;     // its --gtest_output XML ("" if none)
  std::chrono::milliseconds elapsed{0};
  std::vector<std::string> files_left;  // in the inner run's TMPDIR
  std::vector<pid_t> processes_left;    // carrying the run's token
};

struct InnerOptions {
  std::string binary;                      // "": the harness's inner binary
  std::string filter;                      // --gtest_filter
  std::map<std::string, std::string> env;  // added to the environment
  std::chrono::milliseconds limit{60000};  // the outer test's own deadline
  // Called with the inner parent's pid, the run's token (see
  // processesWithToken) and all output so far, each time output arrives,
  // until it returns true.
  std::function<bool(pid_t, const std::string&, const std::string&)> watcher;
  std::vector<std::string> args;  // more arguments, after those
  // A launcher and its arguments to start the binary with (its path first,
  // e.g. {"/usr/bin/torchrun", "--standalone", ...}); empty: none.
  std::vector<std::string> launcher;
  // > 0: the inner run's soft RLIMIT_NOFILE.
  unsigned long open_files_limit = 0;
};

// Runs `filter` of the inner binary, waits (bounded), and reports leftovers.
// The inner run dies with the calling thread (PR_SET_PDEATHSIG), so call it
// from one that outlives the run; its temporary directories are removed even
// if the caller is killed (a reaper process waits for that).
InnerResult runInner(const InnerOptions& options);

// runInner, then expects that the run left no process and no file behind
// (a gtest failure of the calling test where it did).
InnerResult runInnerLeavingNothing(const InnerOptions& options);

// Under ASan a forked rank can inherit an allocator lock that a thread of its
// parent held, and hang (see ci/sanitize): an inner run whose checks are not
// about the start method spawns its ranks there.
void spawnUnderSanitizer(InnerOptions& options);

}  // namespace harness_suite
