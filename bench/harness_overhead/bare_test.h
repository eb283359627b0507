#pragma once

// The baseline of bench_harness_overhead: the work of a distributed test with
// no harness. The parent forks (for spawn: forks and execs this binary with
// kBareRankFlag) one process per rank; each meets the others on a FileStore,
// builds a Gloo group, runs one barrier and exits with the group alive, as
// ranktest's one-shot ranks do; the parent waits for them.

#include <gtest/gtest.h>

#include <string>

namespace bench {

// "--bare_rank=<rank>,<world size>,<store fd>": this process is an exec'ed
// bare rank.
inline constexpr char kBareRankFlag[] = "--bare_rank=";

// Runs a bare rank, forked or exec'ed, and exits the process.
[[noreturn]] void runBareRank(int rank, int world_size, int store_fd);

class BareTest : public ::testing::Test {
 public:
  // `program`: argv[0], for exec'ed ranks.
  BareTest(int world_size, bool spawn, std::string program);
  void TestBody() override;

 private:
  int world_size_;
  bool spawn_;
  std::string program_;
};

}  // namespace bench
