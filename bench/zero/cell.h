#pragma once

// The cells of bench_zero: a model and a world size, trained in every mode
// (modes.h) by one forked process per rank over Gloo on loopback
// (bench_common/ranks.h).

#include <string>

#include "bench_common/mode_bench.h"

namespace zero_bench {

using CellSpec = bench_common::ModeCellSpec;

// Forks the ranks and waits; rank 0 appends the cell's lines to `out`
// (report.h). Returns 0 when every rank succeeded. Throws
// std::invalid_argument for an unknown model or mode, or settings that do
// not fit.
int runCell(const CellSpec& spec, const std::string& out);

}  // namespace zero_bench
