#pragma once

// A googletest listener in the parent that times each test from OnTestStart
// to OnTestEnd on steady_clock, with the CPU time of the test thread and the
// part of it spent inside fork(), and appends the samples.

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>

#include "common/sample_file.h"

namespace bench {

class TestTimer : public ::testing::EmptyTestEventListener {
 public:
  // `key_of_suite`: the samples' key columns for each measured suite. A
  // suite's test whose name starts with "PoolStart" started its pool of
  // reused workers; it is reported apart.
  TestTimer(SampleFile out, std::map<std::string, Row> key_of_suite);

  void OnTestStart(const ::testing::TestInfo& info) override;
  // With googletest's printer removed, a failure is printed here.
  void OnTestPartResult(const ::testing::TestPartResult& result) override;
  void OnTestEnd(const ::testing::TestInfo& info) override;

 private:
  SampleFile out_;
  std::map<std::string, Row> key_of_suite_;
  // Forked ranks inherit the listener; only the parent's events count.
  pid_t parent_;
  std::chrono::steady_clock::time_point start_;
  double start_cpu_us_ = 0;
};

}  // namespace bench
