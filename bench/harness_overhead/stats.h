#pragma once

// The shared order statistics (bench/common), under this benchmark's names.

#include "bench_common/stats.h"

namespace harness_overhead {

using bench_common::median;
using bench_common::Stats;
using bench_common::stats;

}  // namespace harness_overhead
