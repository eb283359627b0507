#pragma once

// Every distributed test instance of the binary, by its gtest full name, so
// that a spawned rank or a reused worker can find the body it must run.

#include <chrono>
#include <optional>
#include <string>

#include "ranktest/distributed_test.h"

namespace ranktest::internal {

// One registered test instance: a fixture test at one world size.
struct TestInstance {
  std::string suite;
  std::string name;  // e.g. "AllreduceSumsRanks/gloo_ws3"
  std::string file;
  int line = 0;
  int world_size = 0;
  std::string backend;
  // The fixture's options with the environment and the test's traits
  // applied; `timeout` is always set (default and RANKTEST_TIMEOUT_SCALE
  // applied).
  TestOptions options;
  // Why the run's WORLD_SIZE or BACKEND skips this instance (unset: it runs).
  std::optional<Skip> deselected;
  FixtureFactory factory;

  std::string fullName() const { return suite + "." + name; }
  std::chrono::milliseconds timeout() const { return *options.timeout; }
  // What its ranks' store and group wait for: timeout(), or a day while
  // RANKTEST_DEBUG_RANK stops one of its ranks for a debugger, which the
  // other ranks must wait for however long it takes.
  std::chrono::milliseconds groupTimeout() const;
};

// The instance with that full name, or nullptr.
const TestInstance* findTestInstance(const std::string& full_name);

// When `world_size` is the run's (WORLD_SIZE, or a launcher's job) and no
// distributed test of the binary holds at it, every instance would skip and
// the run pass with nothing run: the sizes its tests are declared at (for
// the refusal); otherwise "".
std::string sizesWhereNoneHoldsAt(int world_size);

}  // namespace ranktest::internal
