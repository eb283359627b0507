#pragma once

// Small facts about processes, read from the kernel: what forking needs to
// know, a pidfd to wait on, and whether a process is stopped.

#include <sys/types.h>

#include <cstddef>

namespace ranktest::internal {

// The threads of this process. Forking a process with more than one thread
// copies only the caller: a lock another thread held stays locked in the
// child forever.
std::size_t threadCount();

// A pidfd for `pid` (pidfd_open(2)), or -1 with errno set.
int pidfdOpen(pid_t pid);

// The state letter of `pid` in /proc/PID/stat ('R', 'S', 'T' for stopped,
// 't' for stopped by a tracer, ...), or '?' when it cannot be read.
char processState(pid_t pid);

}  // namespace ranktest::internal
