#pragma once

// The report of bench_zero, from the lines the cells appended to one
// samples file (tab-separated; a cell is <model> <world size>):
//   step   <cell> <mode> <round> <microseconds>  one per timed step (the
//                                                slowest rank's)
//   state  <cell> <mode> <rank> <bytes>          the rank's optimizer state
//                                                after the last step
//   failed <cell> <why>                          the cell's run failed

#include "bench_common/mode_bench.h"

namespace zero_bench {

using ReportConfig = bench_common::ModeReportConfig;

// Prints the table and writes the markdown; returns the exit code (1 when
// the markdown cannot be written or no cell has samples).
int report(const ReportConfig& config);

}  // namespace zero_bench
