#pragma once

// The cells of bench_quantization: a payload size and a world size. Each
// collective (calls.h) runs in its three modes (exact, fp16, bfp16) by one
// forked process per rank over Gloo on loopback (bench_common/ranks.h).

#include <string>
#include <vector>

namespace quant_bench {

struct CellSpec {
  double size_mb = 1;  // float32 MiB going in on each rank, per call
  int world_size = 2;
  std::vector<std::string> collectives;  // calls.h names, in report order
  int warmup = 2;                        // untimed calls first, per mode
  // `calls` timed calls per mode, in blocks of `block`; each round runs one
  // block of every mode of a collective, the order rotating by round.
  int calls = 30;
  int block = 5;
};

// Forks the ranks and waits; rank 0 appends the cell's lines to `out`
// (report.h). Returns 0 when every rank succeeded. Throws
// std::invalid_argument for an unknown collective or settings that do not
// fit.
int runCell(const CellSpec& spec, const std::string& out);

}  // namespace quant_bench
