#pragma once

// The samples of the benchmarks that time modes side by side in cells (a
// model and a world size), read back from their tab-separated lines, and
// the parts their reports share:
//   step   <model> <world> <mode> <round> <microseconds>  one per timed step
//   <tag>  <model> <world> <mode> <rank> <value>          one per rank (e.g.
//                                                         state bytes)
//   failed <model> <world> <why>                          the cell failed

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench_common/mode_bench.h"
#include "bench_common/summary.h"
#include "bench_common/table.h"

namespace bench_common {

struct ModeSamples {
  Rounds rounds;                       // the step times
  std::vector<std::int64_t> per_rank;  // the <tag> values, by rank
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

// The largest and the mean per-rank value; nothing without any.
std::optional<double> maxPerRank(const ModeSamples& m);
std::optional<double> meanPerRank(const ModeSamples& m);

// The mode named `baseline` in `c`, or nullptr.
const ModeSamples* modeNamed(const ModeCell& c, const std::string& baseline);
// A row's timing columns: the median step in ms, its 10th–90th percentile,
// the ratio of the median to `base`'s and that ratio's 10th–90th percentile
// over the rounds ("–" without `base`).
std::vector<std::string> timingColumns(const Rounds& mode, const Rounds* base);
// The report's table: per cell, a row per mode (model, ranks, mode, its
// timingColumns against `baseline`, then extra(cell, mode, baseline's or
// nullptr) under `extra_headers`), or one "failed" row.
Table modeTable(
    const std::vector<ModeCell>& cells, const std::string& baseline,
    const std::vector<std::string>& extra_headers,
    const std::function<std::vector<std::string>(
        const ModeCell&, const ModeSamples&, const ModeSamples*)>& extra);
// Whether any mode of any cell has a step time.
bool anySteps(const std::vector<ModeCell>& cells);
// The report's sentences on how the modes were timed against `baseline`.
std::string timingMethod(const ModeReportConfig& config,
                         const std::string& baseline);

}  // namespace bench_common
