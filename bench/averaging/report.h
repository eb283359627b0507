#pragma once

// The report of bench_averaging, from the lines the cells appended to one
// samples file (bench_common/mode_samples.h, per-rank tag "bytes": the
// bytes the rank put into collectives per timed step, all collectives of
// the mode's DDP, hook and averager together).

#include "bench_common/mode_bench.h"

namespace averaging_bench {

using ReportConfig = bench_common::ModeReportConfig;

// Prints the table and writes the markdown; returns the exit code (1 when
// the markdown cannot be written or no cell has samples).
int report(const ReportConfig& config);

}  // namespace averaging_bench
