#pragma once

// The report of bench_ddp_step, from the lines both sides appended to one
// samples file (tab-separated; <side> is cpp or python, a cell is
// <model> <world size> <hook>):
//   meta   <key> <value>
//   step   <side> <cell> <microseconds>       one per timed step (the
//                                             slowest rank's)
//   bytes  <side> <cell> <collective> <calls per step> <bytes per step>
//                                             per rank; the python side's
//                                             are expected, not counted
//   na     <side> <cell> <why>               the side cannot run this cell
//   failed <side> <cell> <why>               it could, but the run failed

#include <string>
#include <vector>

#include "bench_common/args.h"

namespace ddp_step {

struct ReportConfig : bench_common::ReportFlags {
  std::string python_note;
  int warmup = 0, steps = 0, count_steps = 0, rows = 0;
};

// Prints the tables and writes the markdown; returns the exit code (1 when
// the markdown cannot be written or no cell has C++ samples).
int report(const ReportConfig& config);

}  // namespace ddp_step
