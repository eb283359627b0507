#pragma once

// The shared report tables (bench/common), under this benchmark's names.

#include "bench_common/table.h"

namespace harness_overhead {

using bench_common::ms;
using bench_common::ratio;
using bench_common::Table;

}  // namespace harness_overhead
