#pragma once

// The rows of bench_zero: ways to run Adam beside distalgo's DDP, each a
// DDP of the same model plus what steps its parameters after backward.

#include <vector>

#include "bench_common/mode_cell.h"

namespace zero_bench {

using Runner = bench_common::ModeRunner;
using ModeRow = bench_common::ModeRow;

// The modes in the report's order; the first is the baseline.
const std::vector<ModeRow>& modeRows();

// The learning rate of every mode's Adam.
inline constexpr double kLearningRate = 1e-3;

}  // namespace zero_bench
