#pragma once

// The report of bench_checkpoint, from the lines the cells appended to one
// samples file (tab-separated; a cell is the MLP's depth):
//   memory <depth> <mode> <retained bytes> <peak bytes>  once per mode
//   step   <depth> <mode> <round> <microseconds>         one per timed step
//   failed <depth> <why>                                 the cell failed

#include "bench_common/args.h"
#include "checkpoint/cell.h"

namespace checkpoint_bench {

struct ReportConfig : bench_common::ReportFlags {
  CellSpec spec;  // the settings, for the text
};

// Prints the table and writes the markdown; returns the exit code (1 when
// the markdown cannot be written or no cell has samples).
int report(const ReportConfig& config);

}  // namespace checkpoint_bench
