#pragma once

// One cell of a modes benchmark (bench_zero, bench_averaging): every rank
// trains the cell's model once per mode, each mode with its own DDP so that
// none inherits another's reducer state, times the modes interleaved
// (interleave.h), and rank 0 appends the samples lines (mode_samples.h).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_common/mode_bench.h"
#include "bench_common/models.h"

namespace bench_common {

// One rank's DDP and optimizer in one mode.
struct ModeRunner {
  ModeRunner(const ModelRow& model, const Group& group,
             const distalgo::ddp::DdpOptions& options)
      : ddp(model.make(kModelSeed), group, options) {}

  Ddp ddp;
  std::function<void()> step;  // after backward; may do nothing
  // Called once the warm-up steps are done (e.g. to reset a counter); may
  // be empty.
  std::function<void()> after_warmup;
  // The rank's value for the report (e.g. optimizer state bytes), read
  // after the timed steps.
  std::function<std::int64_t()> per_rank_value;
};

struct ModeRow {
  std::string name;         // in the samples and the report
  std::string description;  // for the report
  // Builds the rank's runner. Collective over `group`.
  std::function<std::unique_ptr<ModeRunner>(const ModelRow&, const Group&,
                                            const distalgo::ddp::DdpOptions&)>
      make;
};

// Forks the cell's ranks (errors are prefixed with [bench]) and waits. Each
// trains the modes spec.modes names (rows of `rows`): spec.warmup untimed
// steps, after_warmup, then the timed steps interleaved. Rank 0 appends a
// step line per step (the slowest rank's time) and a `tag` line per rank
// (per_rank_value) for each mode to `out`. Returns 0 when every rank
// succeeded. Throws std::invalid_argument, before forking, for an unknown
// model or mode or settings that do not fit (checkModeCellSpec).
int runModeCell(const std::string& bench, const ModeCellSpec& spec,
                const std::vector<ModeRow>& rows, const std::string& tag,
                const std::string& out);

// The report's "Modes:" list (each row's name and description), then
// timingMethod against `baseline`, without a final newline.
std::string modesSection(const std::vector<ModeRow>& rows,
                         const ModeReportConfig& config,
                         const std::string& baseline);

// A modes benchmark's main: runModeBench with runModeCell over `rows`
// (spec.modes defaulting to all of them, in order), inside
// guardedMain("bench_<bench>").
int modeBenchMain(int argc, char** argv, const std::string& bench,
                  const std::vector<ModeRow>& rows, const std::string& tag,
                  ModeCellSpec defaults,
                  const std::function<int(const ModeReportConfig&)>& report);

}  // namespace bench_common
