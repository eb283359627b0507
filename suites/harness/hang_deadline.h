#pragma once

// The deadline of the inner tests that hang in one rank on purpose: the
// tests that run them wait that long for the report, so it is as short as
// lets the rank reach its hang.

#include <chrono>
#include <cstdlib>
#include <string_view>

#include "sanitizer_slowdown.h"

namespace harness_suite {

// A forked rank reaches its hang at once; a spawned one first loads
// libtorch, which takes seconds on a loaded machine.
inline std::chrono::seconds hangDeadline(std::string_view start_method) {
  using namespace std::chrono_literals;
  return (start_method == "spawn" ? 6s : 2s) * kSanitizerSlowdown;
}

// The same for the start method this process's ranks get
// (RANKTEST_START_METHOD; fork when unset).
inline std::chrono::seconds hangDeadline() {
  const char* method = std::getenv("RANKTEST_START_METHOD");
  return hangDeadline(method == nullptr ? "fork" : method);
}

}  // namespace harness_suite
