#pragma once

// The cells of bench_checkpoint: one depth of the deep MLP
// (fixtures/deep_mlp.h), trained plain and with every block checkpointed in
// one process, the two modes interleaved in blocks of steps.

#include <string>

namespace checkpoint_bench {

// The modes, in the report's order; "plain" is the baseline.
inline constexpr const char* kModes[] = {"plain", "checkpoint",
                                         "checkpoint_offload"};

struct CellSpec {
  int depth = 8;    // MLP blocks
  int width = 128;  // block width; the hidden layer is 4 times wider
  int rows = 128;   // batch rows
  int warmup = 3;   // untimed steps first, per mode
  // `steps` timed steps per mode, in blocks of `block` steps; each round
  // runs one block of every mode, the order rotating by round.
  int steps = 60;
  int block = 5;
};

// Measures each mode's activation memory once (it is deterministic) and
// times its steps; appends the lines to `out` (report.h). Returns 0. Throws
// std::invalid_argument for settings that do not fit.
int runCell(const CellSpec& spec, const std::string& out);

}  // namespace checkpoint_bench
