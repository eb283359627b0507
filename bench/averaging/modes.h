#pragma once

// The rows of bench_averaging: DDP + SGD against post-local SGD (period 4)
// and against SGD stepped inside the communication hook. Each mode's DDP,
// hook and averager send through a ranktest::CountingProcessGroup around
// the rank's group; the per-rank value is the bytes sent over the timed
// steps.

#include <vector>

#include "bench_common/mode_cell.h"

namespace averaging_bench {

using ModeRow = bench_common::ModeRow;

// The modes in the report's order; the first is the baseline.
const std::vector<ModeRow>& modeRows();

// Every mode's SGD (libtorch's or the functional one) and the averaging
// period of the post-local SGD modes.
inline constexpr double kLearningRate = 1e-2;
inline constexpr int kPeriod = 4;

}  // namespace averaging_bench
