#pragma once

// Where the time of a test goes: the timeline's segments at 2 ranks for
// every mode, and the harness's own share of it.

#include <optional>

#include "harness_overhead/modes.h"
#include "harness_overhead/samples.h"
#include "harness_overhead/table.h"

namespace harness_overhead {

// Medians of each segment, one column per mode measured at 2 ranks.
Table breakdownTable(const Measurements& m);

// The harness's own work at 2 ranks, as medians (ms).
struct HarnessWork {
  // Wall time of a test outside "last fork() returned -> all ranks alive",
  // ranktest minus the bare baseline. That segment is left out because it is
  // exec and loading for spawn: the same binary either way, and on a small
  // machine its time comes in modes ~150 ms apart that would drown the rest.
  std::optional<double> wall;
  // CPU of the parent's test thread outside fork().
  std::optional<double> parent_cpu;
};

// `mode` against its baseline `bare`.
HarnessWork harnessWork(const Measurements& m, Mode mode, Mode bare);

}  // namespace harness_overhead
