#pragma once

// A system call interrupted by a signal handler (EINTR) is called again;
// every other outcome is returned as it came.

#include <cerrno>

namespace ranktest::internal {

// Calls `call` until it does not fail with EINTR; returns that result.
template <typename Call>
auto retryOnEintr(Call call) {
  for (;;) {
    const auto result = call();
    if (!(result < 0 && errno == EINTR)) return result;
  }
}

}  // namespace ranktest::internal
