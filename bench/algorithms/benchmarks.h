#pragma once

// The benchmarks of bench_algorithms, one function each (bench/README.md
// says what each measures). Each reads its flags, runs its cells in rank
// processes and appends its samples to the file named by --out.

#include "common/flags.h"
#include "common/runner.h"

namespace bench {

void ddpStep(Flags& flags);
void join(Flags& flags);
void zero(Flags& flags);
void averaging(Flags& flags);
void quantization(Flags& flags);
void checkpoint(Flags& flags);
void collectiveCheck(Flags& flags);
void codec(Flags& flags);
void link(Flags& flags);

// --warmup, --steps and --block over the benchmark's defaults.
Schedule scheduleFlags(Flags& flags, const Schedule& defaults);

}  // namespace bench
