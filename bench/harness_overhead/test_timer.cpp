#include "harness_overhead/test_timer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "harness_overhead/clocks.h"
#include "harness_overhead/stats.h"
#include "harness_overhead/table.h"

namespace harness_overhead {

TestTimer::TestTimer(BoardFile& board, Measurements& measurements)
    : board_(board), measurements_(measurements), parent_(::getpid()) {}

void TestTimer::OnTestStart(const ::testing::TestInfo&) {
  board_.clear();
  resetForkTimes();
  cpu0_ = threadCpuNs();
  t0_ = nowNs();
}

void TestTimer::OnTestPartResult(const ::testing::TestPartResult& result) {
  if (::getpid() != parent_ || !result.failed()) return;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::fprintf(stderr, "[bench] FAILED %s.%s: %s\n",
               info ? info->test_suite_name() : "?", info ? info->name() : "?",
               result.message());
}

void TestTimer::OnTestEnd(const ::testing::TestInfo& info) {
  // Read the clocks first: what follows is the listener's own work.
  const std::int64_t t1 = nowNs();
  const std::int64_t cpu1 = threadCpuNs();
  const ForkTimes forks = forkTimes();
  const Board board = board_.read();
  const auto cell = measurements_.cells().ofSuite(info.test_suite_name());
  if (!cell) return;
  const Cell& measured = measurements_.cells()[*cell];
  Sample s;
  s.cell = *cell;
  s.test = std::string(info.test_suite_name()) + "." + info.name();
  s.pool_start = isReuse(measured.mode) &&
                 std::string(info.name()).rfind(testName(0), 0) == 0;
  s.ok = info.result()->Passed();
  s.t0_ns = t0_;
  s.total_ns = t1 - t0_;
  s.cpu_ns = cpu1 - cpu0_;
  s.forks = forks;
  const int ranks = std::min(measured.world_size, kMaxRanks);
  s.slots.assign(board.begin(), board.begin() + ranks);
  measurements_.add(std::move(s));
}

void TestTimer::OnTestSuiteEnd(const ::testing::TestSuite& suite) {
  const auto cell = measurements_.cells().ofSuite(suite.name());
  if (!cell) return;
  const Cell& measured = measurements_.cells()[*cell];
  const Stats s = stats(measurements_.totalsMs(*cell, false));
  std::printf(
      "[bench] %-16s %-10s %2d ranks: %3d samples so far, median %s ms "
      "(failed tests in suite: %d)\n",
      suite.name(), modeName(measured.mode), measured.world_size, s.n,
      ms(s.median).c_str(), suite.failed_test_count());
  std::fflush(stdout);
}

}  // namespace harness_overhead
