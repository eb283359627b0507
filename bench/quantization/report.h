#pragma once

// The report of bench_quantization, from the lines the cells appended to one
// samples file (tab-separated; a cell is <size MiB> <world size>):
//   call   <cell> <collective> <mode> <round> <microseconds>  one per timed
//                                                   call (the slowest rank's)
//   bytes  <cell> <collective> <mode> <bytes>       one call's payload, all
//                                                   ranks together
//   failed <cell> <why>                             the cell's run failed

#include <string>

#include "bench_common/args.h"

namespace quant_bench {

struct ReportConfig : bench_common::ReportFlags {
  int warmup = 0, calls = 0, block = 0;
};

// Prints the table and writes the markdown; returns the exit code (1 when
// the markdown cannot be written or no cell has samples).
int report(const ReportConfig& config);

}  // namespace quant_bench
