#include "averaging/cell.h"

#include <cstdint>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "averaging/modes.h"
#include "bench_common/interleave.h"
#include "bench_common/models.h"
#include "bench_common/ranks.h"

namespace averaging_bench {
namespace {

std::vector<const ModeRow*> modesOf(const CellSpec& spec) {
  return bench_common::modesNamed(spec.modes, &findMode);
}

// What the mode sent since the last reset, all collectives together.
std::int64_t bytesSent(const ranktest::CountingProcessGroup& counting) {
  std::int64_t bytes = 0;
  for (const auto& [collective, traffic] : counting.allTraffic()) {
    bytes += traffic.bytes;
  }
  return bytes;
}

void runRank(const CellSpec& spec, int rank, const std::string& store_path,
             const std::string& out) {
  const bench_common::ModelRow& model = bench_common::modelNamed(spec.model);
  const std::vector<const ModeRow*> modes = modesOf(spec);
  const auto [group, batches] = bench_common::setUpRank(
      model, store_path, rank, spec.world_size, spec.rows);
  distalgo::ddp::DdpOptions ddp_options;
  ddp_options.bucket_cap_mb = spec.bucket_cap_mb;

  // A DDP per mode, so that no mode inherits another's reducer state; its
  // bytes are counted from the first timed step on.
  const std::size_t n_modes = modes.size();
  std::vector<std::unique_ptr<Runner>> runners;
  for (const ModeRow* mode : modes) {
    runners.push_back(mode->make(model, group, ddp_options));
    bench_common::trainSteps(runners.back()->ddp, runners.back()->step, batches,
                             0, spec.warmup, nullptr);
    runners.back()->counting->reset();
  }
  group->barrier()->wait();

  const bench_common::InterleavedSteps timed = bench_common::interleaveBlocks(
      n_modes, spec.steps, spec.block,
      [&](std::size_t m, int done, int n, std::vector<double>* us) {
        bench_common::trainSteps(runners[m]->ddp, runners[m]->step, batches,
                                 spec.warmup + done, n, us);
      });
  std::vector<std::vector<double>> slowest(n_modes);
  std::vector<std::vector<std::int64_t>> bytes_per_step(n_modes);
  for (std::size_t m = 0; m < n_modes; ++m) {
    slowest[m] = bench_common::slowestRankPerStep(group, timed.us[m]);
    bytes_per_step[m] = bench_common::everyRanks(
        group, bytesSent(*runners[m]->counting) / spec.steps);
  }

  if (rank != 0) return;
  std::ofstream file(out, std::ios::app);
  for (std::size_t m = 0; m < n_modes; ++m) {
    bench_common::writeModeLines(file, spec, modes[m]->name, slowest[m],
                                 timed.round_of[m], "bytes", bytes_per_step[m]);
  }
  if (!file.flush()) throw std::runtime_error("cannot write " + out);
}

}  // namespace

int runCell(const CellSpec& spec, const std::string& out) {
  bench_common::modelNamed(spec.model);
  modesOf(spec);
  bench_common::checkModeCellSpec(spec);
  return bench_common::forkRanks(spec.world_size, "averaging",
                                 [&](int rank, const std::string& store_path) {
                                   runRank(spec, rank, store_path, out);
                                 });
}

}  // namespace averaging_bench
