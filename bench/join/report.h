#pragma once

// The report of bench_join, from the lines the cells appended to one
// samples file (tab-separated; a cell is <model> <world size>):
//   step   <cell> <mode> <round> <microseconds>  even inputs, one per timed
//                                                step (the slowest rank's);
//                                                mode: plain, join,
//                                                join_disabled
//   shadow <cell> <microseconds>                 uneven inputs, one per
//                                                Join: rank 0's finish()
//                                                over the rounds it shadowed
//   train  <cell> <join> before|after <microseconds>
//                                                uneven inputs, one per step
//                                                of the slowest training
//                                                rank, before / after rank 0
//                                                joined; <join> counts the
//                                                Joins from 0
//   failed <cell> even|uneven <why>              the cell's run failed

#include <string>
#include <vector>

#include "bench_common/args.h"

namespace join_bench {

struct ReportConfig : bench_common::ReportFlags {
  int warmup = 0, steps = 0, block = 0, rows = 0;
  int repeats = 0, early = 0, steps_uneven = 0;
};

// Prints the tables and writes the markdown; returns the exit code (1 when
// the markdown cannot be written or no cell has samples).
int report(const ReportConfig& config);

}  // namespace join_bench
