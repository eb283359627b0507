#pragma once

// The tables of whole-test times: ranktest's cells, PyTorch's, and the two
// side by side.

#include "harness_overhead/pytorch_samples.h"
#include "harness_overhead/samples.h"
#include "harness_overhead/table.h"

namespace harness_overhead {

// Every cell, with a reuse cell's pool starts in a row of their own.
Table ranktestTable(const Measurements& m);
Table pytorchTable(const PyTorchSamples& py);
// Medians by world size, with ranktest / PyTorch ratios.
Table comparisonTable(const Measurements& m, const PyTorchSamples& py);

}  // namespace harness_overhead
