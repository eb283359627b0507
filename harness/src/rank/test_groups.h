#pragma once

// The process group each test of a rank runs on. A one-shot rank builds one.
// A reused worker keeps the groups of the next tests building in the
// background while a test runs, and tears used groups down in the background,
// so that a fresh group per test (about 10 ms to build and 10 ms to destroy
// with Gloo) costs a test almost nothing.

#include <future>
#include <map>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "wire/rank_launch.h"

namespace ranktest::internal {

struct TestGroup {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
};

// Builds the group on `store` and waits until every rank has it.
TestGroup buildTestGroup(const RankLaunch& launch,
                         const c10::intrusive_ptr<c10d::Store>& store);

class WorkerGroups {
 public:
  // Groups of tests number 0, 1, ..., each on its own connection to the
  // rendezvous store (a TCPStore client holds its lock while it waits, so a
  // shared one could deadlock a build against a test body); `ahead` of them
  // are built ahead of the test that runs.
  WorkerGroups(const RankLaunch& launch, int ahead = 2);

  // The group of test `sequence` (every worker counts alike); starts the
  // groups of the following tests. Rethrows what building it threw.
  TestGroup take(long sequence);
  // Tears a used group down off the worker's main thread.
  void retire(TestGroup used);

 private:
  void startBuilding(long sequence);

  RankLaunch launch_;
  int ahead_;
  std::map<long, std::future<TestGroup>> building_;
  std::vector<std::future<void>> retiring_;
};

}  // namespace ranktest::internal
