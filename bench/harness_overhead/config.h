#pragma once

// The benchmark's command line: its own --bench_* flags (gtest's are left to
// gtest, which ignores these).
//
//   --bench_runs=N           samples per fork, reuse and bare fork cell (30)
//   --bench_spawn_runs=N     samples per spawn and bare spawn cell (20)
//   --bench_reuse_pools=N    pools per reuse cell; each pays one pool start (3)
//   --bench_world_sizes=2,4,8
//   --bench_modes=bare_fork,fork,reuse,bare_spawn,spawn
//   --bench_bare_spawn_world_sizes=2
//   --bench_pytorch=FILE     PyTorch samples (TSV of bench/pytorch_overhead.py)
//   --bench_pytorch_note=TXT why the PyTorch column is missing, if it is
//   --bench_markdown=FILE    write the report there
//   --bench_command=TXT      the command line to quote in the report
//   --bench_raw=FILE         every sample, one TSV line each
//   --bench_note=TXT         a line for the report's run section (repeatable)

#include <iterator>
#include <string>
#include <vector>

#include "harness_overhead/modes.h"

namespace harness_overhead {

struct Config {
  std::string program;  // argv[0], for exec'ed bare ranks
  int runs = 30;
  int spawn_runs = 20;
  int reuse_pools = 3;
  std::vector<int> world_sizes{2, 4, 8};
  std::vector<int> bare_spawn_world_sizes{2};
  std::vector<Mode> modes{std::begin(kAllModes), std::end(kAllModes)};
  std::string pytorch;
  std::string pytorch_note;
  std::string markdown;
  std::string command;
  std::string raw;
  std::vector<std::string> notes;
};

// Throws std::invalid_argument for an unknown --bench_ flag or mode.
Config parseConfig(int argc, char** argv);

// "2,4,8" -> {2, 4, 8}; empty items are skipped.
std::vector<int> parseInts(const std::string& text);

}  // namespace harness_overhead
