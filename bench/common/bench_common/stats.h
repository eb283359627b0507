#pragma once

// Order statistics of a cell's samples: medians and quantiles rather than
// means, since a test's time has a long tail (scheduling on a small machine,
// 10 ms polling steps).

#include <optional>
#include <vector>

namespace bench_common {

struct Stats {
  int n = 0;
  double median = 0, min = 0, p10 = 0, p25 = 0, p75 = 0, p90 = 0, max = 0;
};

// All zero (n == 0) for no values.
Stats stats(std::vector<double> values);
// Nothing for no values.
std::optional<double> median(std::vector<double> values);

}  // namespace bench_common
