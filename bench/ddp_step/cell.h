#pragma once

// One cell of the benchmark: a model, a world size and a hook, trained by
// one forked process per rank over Gloo on loopback.

#include <string>

namespace ddp_step {

struct CellSpec {
  std::string model;
  int world_size = 2;
  std::string hook;
  int warmup = 10;       // untimed steps first (past DDP's bucket rebuild)
  int steps = 200;       // timed steps
  int count_steps = 10;  // steps of the separate byte-counting run
  int rows = 32;         // batch rows per rank
};

// Forks the ranks and waits for them; rank 0 appends the cell's lines to
// `out` (see report.h for the format). Returns 0 when every rank succeeded.
// Throws std::invalid_argument for an unknown model or hook.
int runCell(const CellSpec& spec, const std::string& out);

}  // namespace ddp_step
