#pragma once

// The shared machine description (bench/common), under this benchmark's
// names.

#include "bench_common/machine.h"

namespace harness_overhead {

using bench_common::CpuClock;
using bench_common::describeMachine;
using bench_common::foreignCpu;
using bench_common::Machine;
using bench_common::readCpuClock;
using bench_common::utcNow;

}  // namespace harness_overhead
