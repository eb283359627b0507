#include "harness_overhead/samples.h"

#include <algorithm>

#include "harness_overhead/stats.h"

namespace harness_overhead {

OptionalNs diff(const OptionalNs& later, const OptionalNs& earlier) {
  if (!later || !earlier) return std::nullopt;
  return *later - *earlier;
}

Timeline timeline(const Sample& s) {
  Timeline t;
  if (s.forks.count > 0) {
    t.first_fork = s.forks.first_ns - s.t0_ns;
    t.last_fork = s.forks.last_ns - s.t0_ns;
    t.fork_sum = s.forks.sum_ns;
  }
  auto latest = [&](std::int64_t Slot::*field,
                    bool this_test_only) -> OptionalNs {
    std::int64_t latest_ns = 0;
    for (const Slot& slot : s.slots) {
      const std::int64_t v = slot.*field;
      if (v == 0 || (this_test_only && v < s.t0_ns)) return std::nullopt;
      latest_ns = std::max(latest_ns, v);
    }
    return latest_ns - s.t0_ns;
  };
  t.alive = latest(&Slot::alive_ns, true);  // a reused worker is older
  t.pg_ready = latest(&Slot::pg_ready_ns, false);
  t.body_end = latest(&Slot::body_end_ns, false);
  t.done = latest(&Slot::done_ns, false);
  return t;
}

OptionalNs wholeTest(const Sample& s, const Timeline&) { return s.total_ns; }

OptionalNs parentCpu(const Sample& s, const Timeline&) { return s.cpu_ns; }

OptionalNs parentCpuOutsideFork(const Sample& s, const Timeline&) {
  return s.cpu_ns - s.forks.cpu_ns;
}

std::vector<double> Measurements::valuesMs(int cell, bool pool_start,
                                           const SampleValue& value) const {
  std::vector<double> out;
  for (const Sample& s : samples_) {
    if (s.cell != cell || !s.ok || s.pool_start != pool_start) continue;
    if (auto v = value(s, timeline(s))) out.push_back(toMs(*v));
  }
  return out;
}

std::vector<double> Measurements::totalsMs(int cell, bool pool_start) const {
  return valuesMs(cell, pool_start, wholeTest);
}

std::optional<double> Measurements::medianMs(Mode mode, int world_size) const {
  auto cell = cells_.find(mode, world_size);
  if (!cell) return std::nullopt;
  return median(totalsMs(*cell, false));
}

std::optional<double> Measurements::segmentMs(int cell,
                                              const SampleValue& value) const {
  return median(valuesMs(cell, false, value));
}

}  // namespace harness_overhead
