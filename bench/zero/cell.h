#pragma once

// The cells of bench_zero: a model and a world size, trained in every mode
// (modes.h) by one forked process per rank over Gloo on loopback
// (bench_common/ranks.h).

#include <string>
#include <vector>

namespace zero_bench {

struct CellSpec {
  std::string model;
  int world_size = 2;
  std::vector<std::string> modes;  // modes.h names, in the report's order
  int rows = 32;                   // batch rows per rank
  int warmup = 5;                  // untimed steps first, per mode
  // DDP's bucket cap in every mode, so that the modes reduce alike.
  double bucket_cap_mb = 4;
  // `steps` timed steps per mode, in blocks of `block` steps; each round
  // runs one block of every mode, the order rotating by round.
  int steps = 200;
  int block = 10;
};

// Forks the ranks and waits; rank 0 appends the cell's lines to `out`
// (report.h). Returns 0 when every rank succeeded. Throws
// std::invalid_argument for an unknown model or mode, or settings that do
// not fit.
int runCell(const CellSpec& spec, const std::string& out);

}  // namespace zero_bench
