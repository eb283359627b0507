// bench_harness_overhead: the fixed cost of one distributed test (start the
// ranks, rendezvous, build the Gloo group, one barrier, report) in each of
// ranktest's ways of running it (fork, spawn, reused workers, FileStore or
// TCPStore), at several world sizes, beside bare baselines that do the same
// work without the harness. bench/pytorch_overhead.py times the same test
// in PyTorch's MultiProcessTestCase.
//
//   bench_harness_overhead --out=FILE [--world_sizes=2,4,8] [--rounds=3]
//       [--tests=10] [--spawn_tests=4] [--modes=bare_fork,fork,...]
//
// Each cell (a mode and a world size) runs --tests tests per round
// (--spawn_tests for spawn), as one googletest suite; a round runs a suite
// of every cell, the order rotating from round to round. This one binary is
// also every rank: a forked rank runs in a copy of it, a spawned rank (a
// ranktest one or a bare one) re-executes it. Started by mpirun or torchrun
// (bench/run does, with --modes=under_mpirun or under_torchrun and one world
// size, the launched one), each process is one rank of a launched job and
// rank 0 times every test as it sees it.

#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/flags.h"
#include "harness_overhead/bare_test.h"
#include "harness_overhead/test_timer.h"
#include "ranktest/ranktest.h"

namespace bench {
namespace {

class Barrier : public ranktest::DistributedTest {
  void rankBody() override { pg()->barrier()->wait(); }
};

struct Plan {
  std::vector<std::string> modes;
  std::vector<int> world_sizes;
  int rounds = 3;
  int tests = 10;
  int spawn_tests = 4;
};

bool has(const std::string& mode, const char* part) {
  return mode.find(part) != std::string::npos;
}

// This process's rank when mpirun or torchrun started it, else nullptr.
const char* launchedRank() {
  if (const char* mpi = std::getenv("OMPI_COMM_WORLD_RANK")) return mpi;
  if (std::getenv("TORCHELASTIC_RUN_ID") != nullptr) {
    return std::getenv("RANK");
  }
  return nullptr;
}

void registerSuite(const std::string& suite, const std::string& mode,
                   int world_size, int tests, const std::string& program) {
  if (has(mode, "bare_")) {
    for (int i = 0; i < tests; ++i) {
      ::testing::RegisterTest(
          suite.c_str(), ("Test" + std::to_string(i)).c_str(), nullptr, nullptr,
          __FILE__, __LINE__, [=]() -> ::testing::Test* {
            return new BareTest(world_size, has(mode, "spawn"), program);
          });
    }
    return;
  }
  const bool reuse = has(mode, "reuse");
  // A reused pool starts in its suite's first test, reported apart.
  for (int i = reuse ? -1 : 0; i < tests; ++i) {
    ranktest::registerTest(
        suite, i < 0 ? "PoolStart" : "Test" + std::to_string(i), __FILE__,
        __LINE__, {},
        {ranktest::worldSizes({world_size}),
         ranktest::startMethod(has(mode, "spawn")
                                   ? ranktest::StartMethod::kSpawn
                                   : ranktest::StartMethod::kFork),
         ranktest::store(has(mode, "_tcp") ? ranktest::StoreKind::kTcp
                                           : ranktest::StoreKind::kFile),
         ranktest::reuseProcesses(reuse)},
        [] { return std::make_unique<Barrier>(); });
  }
}

// Registers every round's suites, "<mode>_ws<N>_r<round>", in the same
// order in every run of the binary (a spawned rank finds its test by
// name); returns their sample keys.
std::map<std::string, Row> registerRounds(const Plan& plan,
                                          const std::string& program) {
  std::vector<std::pair<std::string, int>> cells;
  for (const std::string& mode : plan.modes) {
    for (int world_size : plan.world_sizes) {
      // Loading the binary dominates a bare spawn: one size shows it.
      if (mode == "bare_spawn" && world_size != plan.world_sizes[0]) continue;
      cells.emplace_back(mode, world_size);
    }
  }
  std::map<std::string, Row> keys;
  for (int round = 0; round < plan.rounds; ++round) {
    for (std::size_t j = 0; j < cells.size(); ++j) {
      const auto& [mode, world_size] = cells[(round + j) % cells.size()];
      const std::string suite = mode + "_ws" + std::to_string(world_size) +
                                "_r" + std::to_string(round);
      registerSuite(suite, mode, world_size,
                    has(mode, "spawn") ? plan.spawn_tests : plan.tests,
                    program);
      keys[suite] = {"ranktest", mode, std::to_string(world_size),
                     std::to_string(round)};
    }
  }
  return keys;
}

void run(int argc, char** argv) {
  // They would change what is measured, WORLD_SIZE even the tests' names;
  // a launcher's WORLD_SIZE is the job's.
  const char* launched = launchedRank();
  if (launched == nullptr) ::unsetenv("WORLD_SIZE");
  for (const char* name :
       {"BACKEND", "RANKTEST_START_METHOD", "RANKTEST_STORE", "RANKTEST_REUSE",
        "RANKTEST_VERBOSE", "RANKTEST_DEBUG_RANK"}) {
    ::unsetenv(name);
  }
  Flags flags(argc, argv);
  Plan plan{.modes = flags.list("modes",
                                "bare_fork,fork,reuse,fork_tcp,reuse_tcp,"
                                "bare_spawn,spawn"),
            .world_sizes = flags.integers("world_sizes", "2,4,8"),
            .rounds = flags.integer("rounds", 3),
            .tests = flags.integer("tests", 10),
            .spawn_tests = flags.integer("spawn_tests", 4)};
  SampleFile out(flags.text("out", ""),
                 {"side", "mode", "ranks", "round", "metric", "value"});
  flags.checkAllRead();
  auto keys = registerRounds(plan, argv[0]);
  ranktest::init(&argc, argv);  // a spawned rank runs its test and exits
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  // Under a launcher rank 0 alone records.
  if (launched == nullptr || std::string(launched) == "0") {
    listeners.Append(new TestTimer(std::move(out), std::move(keys)));
  }
  if (ranktest::runAllTests() != 0) {
    throw std::runtime_error("some tests failed (above)");
  }
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  if (argc == 2 && std::strncmp(argv[1], bench::kBareRankFlag,
                                std::strlen(bench::kBareRankFlag)) == 0) {
    int rank = 0, world_size = 0, store_fd = 0;
    // Its count tells a malformed flag (the flag is this program's own).
    // NOLINTNEXTLINE(bugprone-unchecked-string-to-number-conversion)
    if (std::sscanf(argv[1] + std::strlen(bench::kBareRankFlag), "%d,%d,%d",
                    &rank, &world_size, &store_fd) != 3) {
      return 2;
    }
    bench::runBareRank(rank, world_size, store_fd);
  }
  return bench::guardedMain("bench_harness_overhead",
                            [&] { bench::run(argc, argv); });
}
