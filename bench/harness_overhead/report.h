#pragma once

// The benchmark's report: the tables on the console, and, with
// --bench_markdown, the results file with how the run was made; with
// --bench_raw, every sample as a TSV line.

#include "harness_overhead/config.h"
#include "harness_overhead/machine.h"
#include "harness_overhead/samples.h"

namespace harness_overhead {

// The state of the machine when the ranktest part started.
struct RunStart {
  Machine machine;
  CpuClock cpu;
};

// Returns the exit code: 1 when the markdown file cannot be written.
int report(const Config& config, const RunStart& start, int failed_tests,
           const Measurements& m);

}  // namespace harness_overhead
