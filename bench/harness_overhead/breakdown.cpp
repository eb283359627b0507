#include "harness_overhead/breakdown.h"

#include <string>
#include <vector>

namespace harness_overhead {
namespace {

OptionalNs outsideLoading(const Sample& s, const Timeline& l) {
  auto loading = diff(l.alive, l.last_fork);
  if (!loading) return std::nullopt;
  return s.total_ns - *loading;
}

}  // namespace

Table breakdownTable(const Measurements& m) {
  std::vector<std::string> header{"2 ranks, median ms per segment"};
  std::vector<int> cells;
  for (Mode mode : kAllModes) {
    if (auto cell = m.cells().find(mode, 2)) {
      header.push_back(modeName(mode));
      cells.push_back(*cell);
    }
  }
  Table t(header);
  auto row = [&](const std::string& label, const SampleValue& value) {
    std::vector<std::string> r{label};
    for (int cell : cells) r.push_back(ms(m.segmentMs(cell, value)));
    t.add(r);
  };
  row("test start → first fork() (parent: checks, store file, pipes)",
      [](const Sample&, const Timeline& l) { return l.first_fork; });
  row("fork() calls, summed (parent)",
      [](const Sample&, const Timeline& l) { return l.fork_sum; });
  row("between the fork() calls (parent: pipes, per-rank setup)",
      [](const Sample&, const Timeline& l) -> OptionalNs {
        auto span = diff(l.last_fork, l.first_fork);
        if (!span || !l.fork_sum) return std::nullopt;
        return *span - *l.fork_sum;
      });
  row("last fork() returned → all ranks alive (spawn: exec + loading)",
      [](const Sample&, const Timeline& l) {
        return diff(l.alive, l.last_fork);
      });
  row("all ranks alive → all groups ready (rendezvous + Gloo group)",
      [](const Sample&, const Timeline& l) {
        return diff(l.pg_ready, l.alive);
      });
  row("test start → all groups ready (reuse: dispatch, group built ahead)",
      [](const Sample&, const Timeline& l) { return l.pg_ready; });
  row("→ last body end (SetUp + barrier)",
      [](const Sample&, const Timeline& l) {
        return diff(l.body_end, l.pg_ready);
      });
  row("→ last TearDown done", [](const Sample&, const Timeline& l) {
    return diff(l.done, l.body_end);
  });
  row("→ test end in parent (ranks exit or report, reaping, verdict)",
      [](const Sample& s, const Timeline& l) {
        return diff(OptionalNs(s.total_ns), l.done);
      });
  row("total (median of whole tests)", wholeTest);
  row("parent thread CPU (user + sys)", parentCpu);
  row("parent thread CPU outside fork()", parentCpuOutsideFork);
  return t;
}

HarnessWork harnessWork(const Measurements& m, Mode mode, Mode bare) {
  HarnessWork w;
  auto cell = m.cells().find(mode, 2);
  auto bare_cell = m.cells().find(bare, 2);
  if (cell && bare_cell) {
    auto ranktest = m.segmentMs(*cell, outsideLoading);
    auto baseline = m.segmentMs(*bare_cell, outsideLoading);
    if (ranktest && baseline) w.wall = *ranktest - *baseline;
  }
  if (cell) w.parent_cpu = m.segmentMs(*cell, parentCpuOutsideFork);
  return w;
}

}  // namespace harness_overhead
