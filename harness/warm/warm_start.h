#pragma once

// Starts a test binary as a warm process (see warm_protocol.h), detached
// from the client: its own session, no terminal, none of ctest's pipes.

#include <chrono>
#include <cstddef>
#include <string>

namespace ranktest::warm {

// How long a suite binary may take to start: its static initialisation
// (large, under a sanitizer, on a loaded machine) may take long. A warm
// start or a test listing that says nothing in this time is given up.
inline constexpr std::chrono::seconds kSuiteStartLimit{120};

struct WarmStart {
  // "ready" (it listens), "busy" (another warm process has the name, which
  // is as good), "ending" (the ctest run it would serve is gone), or
  // "cannot" with the reason (the client runs the binary directly instead).
  std::string outcome;
  std::string reason;
};

// Starts `binary` serving abstract socket `socket_name` for clients of
// `owner` that pass `argument_count` arguments; waits for its answer.
WarmStart startWarmProcess(const std::string& binary,
                           const std::string& socket_name, pid_t owner,
                           std::size_t argument_count, int idle_ms);

}  // namespace ranktest::warm
