#pragma once

// The tests the benchmark times. Barrier is the measured distributed test:
// one barrier, with each rank's progress stamped on the board (group ready
// when the harness constructs the fixture, which it does once the rank has its
// group; body start and end around the barrier; done in TearDown, the last
// point of a test a fixture sees).
//
// BareTest is the baseline: the work of a distributed test with no harness at
// all. The parent forks (and for spawn, execs this binary with kBareRankFlag)
// one process per rank; each meets the others on a FileStore, builds a Gloo
// group, runs one barrier, destroys the group, stamps the board and exits; the
// parent waits for them. ranktest's time minus this is the harness's own work
// but for one difference: ranktest's ranks no longer destroy their group.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "harness_overhead/board.h"
#include "ranktest/ranktest.h"

namespace harness_overhead {

class Barrier : public ranktest::DistributedTest {
 public:
  Barrier();

 protected:
  void TearDown() override;

 private:
  void rankBody() override;

  Slot slot_;
};

std::unique_ptr<ranktest::DistributedTest> makeBarrier();

// "--bench_bare_rank=<rank>,<world size>,<store fd>": makes this process a
// spawned bare rank.
inline constexpr char kBareRankFlag[] = "--bench_bare_rank=";

// In a bare rank, forked or exec'ed: runs it and exits the process.
[[noreturn]] void runBareRank(int rank, int world_size, int store_fd);

class BareTest : public ::testing::Test {
 public:
  // `program`: argv[0] for spawned ranks.
  BareTest(int world_size, bool spawn, std::string program);

  void TestBody() override;

 private:
  int world_size_;
  bool spawn_;
  std::string program_;
};

}  // namespace harness_overhead
