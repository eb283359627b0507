#pragma once

// The cells of bench_join: a model and a world size, trained by one forked
// process per rank over Gloo on loopback (bench_common/ranks.h).

#include <string>

namespace join_bench {

struct CellSpec {
  std::string model;
  int world_size = 2;
  int rows = 32;    // batch rows per rank
  int warmup = 10;  // untimed steps first, per mode (past the bucket rebuild)

  // Even inputs: `steps` timed steps per mode, in blocks of `block` steps;
  // each round runs one block of every mode, the order rotating by round.
  int steps = 600;
  int block = 20;

  // Uneven inputs, `repeats` Joins one after another: rank 0 trains
  // `early` steps and joins, the others train `steps_uneven`.
  int repeats = 20;
  int early = 10;
  int steps_uneven = 30;
};

// The modes of the even cell, in the samples file and the report.
inline constexpr const char* kModes[] = {"plain", "join", "join_disabled"};

// Forks the ranks and waits; rank 0 appends the cell's lines to `out`
// (report.h). Return 0 when every rank succeeded. Throws
// std::invalid_argument for an unknown model or settings that do not fit.
int runEvenCell(const CellSpec& spec, const std::string& out);
int runUnevenCell(const CellSpec& spec, const std::string& out);

}  // namespace join_bench
