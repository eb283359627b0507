#pragma once

// Every distributed test instance of the binary, by its gtest full name, so
// that a spawned rank or a reused worker can find the body it must run.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

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
  StartMethod start_method = StartMethod::kFork;
  StoreKind store = StoreKind::kFile;
  std::chrono::milliseconds timeout{0};
  bool reuse_processes = false;
  std::vector<Requirement> requirements;
  // Why the run's WORLD_SIZE or BACKEND skips this instance (unset: it runs).
  std::optional<Skip> deselected;
  FixtureFactory factory;

  std::string fullName() const { return suite + "." + name; }
};

// The instance with that full name, or nullptr.
const TestInstance* findTestInstance(const std::string& full_name);

}  // namespace ranktest::internal
