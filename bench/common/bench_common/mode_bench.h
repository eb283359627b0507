#pragma once

// What the benchmarks that time modes side by side share (bench_zero,
// bench_averaging): a cell's settings, their flags, and the main that runs
// a cell (mode_cell.h) or the report (mode_samples.h).

#include <functional>
#include <string>
#include <vector>

#include "bench_common/args.h"

namespace bench_common {

// One cell: a model and a world size, trained in every mode.
struct ModeCellSpec {
  std::string model;
  int world_size = 2;
  std::vector<std::string> modes;  // mode names, in the report's order
  int rows = 32;                   // batch rows per rank
  int warmup = 5;                  // untimed steps first, per mode
  // DDP's bucket cap in every mode, so that the modes reduce alike.
  double bucket_cap_mb = 4;
  // `steps` timed steps per mode, in blocks of `block` steps
  // (interleave.h).
  int steps = 200;
  int block = 10;
};

// The report step's flags, with the cell settings for the text.
struct ModeReportConfig : ReportFlags {
  int warmup = 0, steps = 0, block = 0, rows = 0;
  double bucket_cap_mb = 0;
};

// Throws std::invalid_argument unless steps and block are positive, warmup
// is not negative and the bucket cap positive.
void checkModeCellSpec(const ModeCellSpec& spec);

// A modes benchmark's main:
//   --bench_cell=MODEL,WORLD_SIZE --bench_out=FILE [--bench_modes=a,b,...]
//       [--bench_warmup=N] [--bench_rows=N] [--bench_steps=N]
//       [--bench_block=N] [--bench_bucket_cap_mb=X]
//     runs one cell through run_cell(spec, FILE);
//   --bench_report=FILE and the ReportFlags (and the cell flags, for the
//     text) runs report(config).
// `spec` holds the defaults. Throws std::invalid_argument for unknown flags.
int runModeBench(
    int argc, char** argv, ModeCellSpec spec,
    const std::function<int(const ModeCellSpec&, const std::string&)>& run_cell,
    const std::function<int(const ModeReportConfig&)>& report);

}  // namespace bench_common
