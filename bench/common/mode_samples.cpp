#include "bench_common/mode_samples.h"

#include <algorithm>
#include <fstream>

#include "bench_common/stats.h"
#include "bench_common/summary.h"

namespace bench_common {
namespace {

ModeSamples& modeOf(ModeCell& c, const std::string& mode) {
  if (!c.modes.count(mode)) c.order.push_back(mode);
  return c.modes[mode];
}

}  // namespace

std::vector<ModeCell> readModeCells(const std::string& path,
                                    const std::string& tag) {
  std::vector<ModeCell> cells;
  std::map<std::string, std::size_t> index;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = splitTabs(line);
    if (f.size() < 4) continue;
    auto [it, fresh] = index.emplace(f[1] + "\t" + f[2], cells.size());
    if (fresh) cells.push_back({f[1], std::stoi(f[2]), {}, {}, {}});
    ModeCell& c = cells[it->second];
    if (f[0] == "step" && f.size() >= 6) {
      modeOf(c, f[3]).rounds[std::stoi(f[4])].push_back(std::stod(f[5]));
    } else if (f[0] == tag && f.size() >= 6) {
      std::vector<std::int64_t>& values = modeOf(c, f[3]).per_rank;
      const std::size_t rank = std::stoul(f[4]);
      values.resize(std::max(values.size(), rank + 1));
      values[rank] = std::stoll(f[5]);
    } else if (f[0] == "failed") {
      c.failed = f[3];
    }
  }
  return cells;
}

std::vector<double> allSteps(const ModeSamples& m) {
  std::vector<double> out;
  for (const auto& [round, us] : m.rounds) {
    out.insert(out.end(), us.begin(), us.end());
  }
  return out;
}

std::vector<double> roundRatios(const ModeSamples& m, const ModeSamples& base) {
  std::vector<double> out;
  for (const auto& [round, us] : m.rounds) {
    const auto b = base.rounds.find(round);
    if (b == base.rounds.end()) continue;
    const auto x = median(us);
    const auto y = median(b->second);
    if (x && y && *y > 0) out.push_back(*x / *y);
  }
  return out;
}

std::optional<double> maxPerRank(const ModeSamples& m) {
  if (m.per_rank.empty()) return std::nullopt;
  return static_cast<double>(
      *std::max_element(m.per_rank.begin(), m.per_rank.end()));
}

std::optional<double> meanPerRank(const ModeSamples& m) {
  if (m.per_rank.empty()) return std::nullopt;
  double sum = 0;
  for (std::int64_t v : m.per_rank) sum += static_cast<double>(v);
  return sum / static_cast<double>(m.per_rank.size());
}

}  // namespace bench_common
