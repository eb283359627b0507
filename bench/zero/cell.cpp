#include "zero/cell.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "bench_common/models.h"
#include "bench_common/ranks.h"
#include "zero/modes.h"

namespace zero_bench {
namespace {

const bench_common::ModelRow& modelOf(const CellSpec& spec) {
  const bench_common::ModelRow* model = bench_common::findModel(spec.model);
  if (!model) throw std::invalid_argument("unknown model " + spec.model);
  return *model;
}

std::vector<const ModeRow*> modesOf(const CellSpec& spec) {
  std::vector<const ModeRow*> modes;
  for (const std::string& name : spec.modes) {
    const ModeRow* mode = findMode(name);
    if (!mode) throw std::invalid_argument("unknown mode " + name);
    modes.push_back(mode);
  }
  if (modes.empty()) throw std::invalid_argument("no modes");
  return modes;
}

// Every rank's optimizer state bytes, in rank order. Collective.
std::vector<std::int64_t> everyRanksBytes(const bench_common::Group& group,
                                          std::int64_t mine) {
  std::vector<at::Tensor> all{at::zeros({group->getSize()}, at::kLong)};
  all[0][group->getRank()] = mine;
  group->allreduce(all)->wait();
  const std::int64_t* data = all[0].data_ptr<std::int64_t>();
  return {data, data + group->getSize()};
}

void runRank(const CellSpec& spec, int rank, const std::string& store_path,
             const std::string& out) {
  const bench_common::ModelRow& model = modelOf(spec);
  const std::vector<const ModeRow*> modes = modesOf(spec);
  const auto [group, batches] = bench_common::setUpRank(
      model, store_path, rank, spec.world_size, spec.rows);
  distalgo::ddp::DdpOptions ddp_options;
  ddp_options.bucket_cap_mb = spec.bucket_cap_mb;

  // A DDP per mode, so that no mode inherits another's reducer state.
  const std::size_t n_modes = modes.size();
  std::vector<std::unique_ptr<Runner>> runners;
  for (const ModeRow* mode : modes) {
    runners.push_back(mode->make(model, group, ddp_options));
    bench_common::trainSteps(runners.back()->ddp, runners.back()->step, batches,
                             0, spec.warmup, nullptr);
  }
  group->barrier()->wait();

  std::vector<std::vector<double>> us(n_modes);
  std::vector<std::vector<int>> round_of(n_modes);
  for (int round = 0, done = 0; done < spec.steps; ++round) {
    const int n = std::min(spec.block, spec.steps - done);
    for (std::size_t j = 0; j < n_modes; ++j) {
      const std::size_t m = (round + j) % n_modes;
      bench_common::trainSteps(runners[m]->ddp, runners[m]->step, batches,
                               spec.warmup + done, n, &us[m]);
      round_of[m].insert(round_of[m].end(), n, round);
    }
    done += n;
  }
  std::vector<std::vector<double>> slowest(n_modes);
  std::vector<std::vector<std::int64_t>> bytes(n_modes);
  for (std::size_t m = 0; m < n_modes; ++m) {
    slowest[m] = bench_common::slowestRankPerStep(group, us[m]);
    bytes[m] = everyRanksBytes(group, runners[m]->state_bytes());
  }

  if (rank != 0) return;
  const std::string key = spec.model + "\t" + std::to_string(spec.world_size);
  std::ofstream file(out, std::ios::app);
  for (std::size_t m = 0; m < n_modes; ++m) {
    const std::string& name = modes[m]->name;
    for (std::size_t i = 0; i < slowest[m].size(); ++i) {
      file << "step\t" << key << "\t" << name << "\t" << round_of[m][i] << "\t"
           << slowest[m][i] << "\n";
    }
    for (std::size_t r = 0; r < bytes[m].size(); ++r) {
      file << "state\t" << key << "\t" << name << "\t" << r << "\t"
           << bytes[m][r] << "\n";
    }
  }
  if (!file.flush()) throw std::runtime_error("cannot write " + out);
}

}  // namespace

int runCell(const CellSpec& spec, const std::string& out) {
  modelOf(spec);
  modesOf(spec);
  if (spec.steps < 1 || spec.block < 1 || spec.warmup < 0 ||
      spec.bucket_cap_mb <= 0) {
    throw std::invalid_argument(
        "steps and block must be positive, warmup not negative, the bucket "
        "cap positive");
  }
  return bench_common::forkRanks(spec.world_size, "zero",
                                 [&](int rank, const std::string& store_path) {
                                   runRank(spec, rank, store_path, out);
                                 });
}

}  // namespace zero_bench
