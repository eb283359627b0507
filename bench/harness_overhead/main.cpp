// bench_harness_overhead: the fixed cost of one distributed test (start the
// ranks, rendezvous, build the Gloo group, one barrier, report) for the fork
// and spawn start methods and for reused fork workers, at several world
// sizes, with bare baselines that do the same work without the harness.
//
// Usually run through bench/run_harness_overhead, which also measures
// PyTorch's MultiProcessTestCase and writes bench/results/harness_overhead.md.
// Flags: see config.h; gtest flags work too, --gtest_filter included.
//
// This one binary is also every rank: a forked rank runs in a copy of this
// process, and a spawned rank (ranktest's or a bare one) re-executes it.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness_overhead/board.h"
#include "harness_overhead/cells.h"
#include "harness_overhead/clocks.h"
#include "harness_overhead/config.h"
#include "harness_overhead/fixtures.h"
#include "harness_overhead/report.h"
#include "harness_overhead/samples.h"
#include "harness_overhead/test_timer.h"
#include "ranktest/ranktest.h"

namespace harness_overhead {
namespace {

// Distributed-test settings from the environment would change what is
// measured (WORLD_SIZE even the test names): the benchmark fixes them.
void fixEnvironment() {
  for (const char* name :
       {"WORLD_SIZE", "BACKEND", "RANKTEST_START_METHOD", "RANKTEST_STORE",
        "RANKTEST_REUSE", "RANKTEST_VERBOSE", "RANKTEST_DEBUG_RANK"}) {
    if (const char* value = std::getenv(name)) {
      std::fprintf(stderr, "[bench] ignoring %s=%s\n", name, value);
      ::unsetenv(name);
    }
  }
}

bool startsWith(const char* text, const char* prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

int run(int argc, char** argv) {
  bool is_rank = false;
  std::string rank_suite;  // a spawned rank's, from the filter the harness set
  for (int i = 1; i < argc; ++i) {
    if (startsWith(argv[i], kBareRankFlag)) {
      markAliveAtImageLoad();
      const std::vector<int> v =
          parseInts(argv[i] + std::strlen(kBareRankFlag));
      if (v.size() != 3) return 2;
      runBareRank(v[0], v[1], v[2]);
    }
    if (startsWith(argv[i], "--ranktest_internal_rank=")) is_rank = true;
    if (startsWith(argv[i], "--gtest_filter=")) {
      const std::string filter = argv[i] + std::strlen("--gtest_filter=");
      rank_suite = filter.substr(0, filter.find('.'));
    }
  }
  Config config;
  try {
    config = parseConfig(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "[bench] %s\n", error.what());
    return 2;
  }
  BoardFile board;
  RunStart start;
  if (is_rank) {
    markAliveAtImageLoad();
  } else {
    fixEnvironment();
    board.create();
    installForkTimer();
    start = {describeMachine(), readCpuClock()};
  }
  Cells cells;
  cells.registerTests(config, is_rank ? rank_suite : std::string());
  ranktest::init(&argc, argv);  // a spawned rank runs its test and exits here

  Measurements measurements(cells);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new TestTimer(board, measurements));
  const int rc = ranktest::runAllTests();
  const int failed = ::testing::UnitTest::GetInstance()->failed_test_count();
  board.remove();
  const int report_rc = report(config, start, failed, measurements);
  return rc != 0 ? rc : report_rc;
}

}  // namespace
}  // namespace harness_overhead

int main(int argc, char** argv) { return harness_overhead::run(argc, argv); }
