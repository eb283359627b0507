#include "bench_common/stats.h"

#include <algorithm>
#include <cmath>

namespace bench_common {
namespace {

// Linear interpolation between closest ranks.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] +
         (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

Stats stats(std::vector<double> values) {
  Stats s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  s.median = quantile(values, 0.5);
  s.p10 = quantile(values, 0.1);
  s.p25 = quantile(values, 0.25);
  s.p75 = quantile(values, 0.75);
  s.p90 = quantile(values, 0.9);
  return s;
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  return stats(std::move(values)).median;
}

}  // namespace bench_common
