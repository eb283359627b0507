#pragma once

// Collects the samples: a gtest listener in the parent that times each test
// from OnTestStart to OnTestEnd on steady_clock, with the CPU time of the
// test thread, the fork() calls the atfork handlers saw and the board the
// ranks stamped meanwhile.

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>

#include "harness_overhead/board.h"
#include "harness_overhead/samples.h"

namespace harness_overhead {

class TestTimer : public ::testing::EmptyTestEventListener {
 public:
  TestTimer(BoardFile& board, Measurements& measurements);

  void OnTestStart(const ::testing::TestInfo&) override;
  // With the default result printer gone, a failure is printed here.
  void OnTestPartResult(const ::testing::TestPartResult& result) override;
  void OnTestEnd(const ::testing::TestInfo& info) override;
  // A line of progress per suite.
  void OnTestSuiteEnd(const ::testing::TestSuite& suite) override;

 private:
  BoardFile& board_;
  Measurements& measurements_;
  // Forked ranks inherit the listener; only the parent's reports count.
  pid_t parent_;
  std::int64_t t0_ = 0;
  std::int64_t cpu0_ = 0;
};

}  // namespace harness_overhead
