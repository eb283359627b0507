#include "bench_common/summary.h"

#include <fstream>

#include "bench_common/stats.h"
#include "bench_common/table.h"

namespace bench_common {

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

void forEachSampleLine(
    const std::string& path,
    const std::function<void(const std::vector<std::string>&)>& line) {
  std::ifstream in(path);
  std::string text;
  while (std::getline(in, text)) line(splitTabs(text));
}

std::vector<double> allSamples(const Rounds& rounds) {
  std::vector<double> out;
  for (const auto& [round, samples] : rounds) {
    out.insert(out.end(), samples.begin(), samples.end());
  }
  return out;
}

std::vector<double> roundRatios(const Rounds& mode, const Rounds& base) {
  std::vector<double> out;
  for (const auto& [round, samples] : mode) {
    const auto b = base.find(round);
    if (b == base.end()) continue;
    const auto x = median(samples);
    const auto y = median(b->second);
    if (x && y && *y > 0) out.push_back(*x / *y);
  }
  return out;
}

std::optional<double> medianMs(const std::vector<double>& us) {
  const auto m = median(us);
  if (!m) return std::nullopt;
  return *m / 1e3;
}

std::string spreadMs(const std::vector<double>& us) {
  if (us.empty()) return "–";
  const Stats s = stats(us);
  return ms(s.p10 / 1e3) + "–" + ms(s.p90 / 1e3);
}

std::string ratioSpread(const std::vector<double>& ratios) {
  if (ratios.empty()) return "–";
  const Stats s = stats(ratios);
  return ratio(s.p10, 1.0) + "–" + ratio(s.p90, 1.0);
}

}  // namespace bench_common
