#pragma once

// The samples of the benchmarks that time modes side by side in cells (a
// model and a world size), read back from their tab-separated lines:
//   step   <model> <world> <mode> <round> <microseconds>  one per timed step
//   <tag>  <model> <world> <mode> <rank> <value>          one per rank (e.g.
//                                                         state bytes)
//   failed <model> <world> <why>                          the cell failed

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench_common {

struct ModeSamples {
  std::map<int, std::vector<double>> rounds;  // per round, the step times
  std::vector<std::int64_t> per_rank;         // the <tag> values, by rank
};

struct ModeCell {
  std::string model;
  int world_size = 0;
  std::vector<std::string> order;  // the modes as they first appear
  std::map<std::string, ModeSamples> modes;
  std::string failed;
};

// The cells of `path` in the order they ran; `tag` names the per-rank lines.
std::vector<ModeCell> readModeCells(const std::string& path,
                                    const std::string& tag);

// Every step time of the mode, round after round.
std::vector<double> allSteps(const ModeSamples& m);
// The ratio of the mode's median to the baseline's within each round.
std::vector<double> roundRatios(const ModeSamples& m, const ModeSamples& base);
// The largest and the mean per-rank value; nothing without any.
std::optional<double> maxPerRank(const ModeSamples& m);
std::optional<double> meanPerRank(const ModeSamples& m);

}  // namespace bench_common
