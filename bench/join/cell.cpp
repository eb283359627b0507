#include "join/cell.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "bench_common/models.h"
#include "bench_common/ranks.h"
#include "distalgo/join/join.h"

namespace join_bench {
namespace {

using bench_common::Group;
using bench_common::Trainer;

constexpr int kModeCount = 3;

const bench_common::ModelRow& modelOf(const CellSpec& spec) {
  const bench_common::ModelRow* model = bench_common::findModel(spec.model);
  if (!model) throw std::invalid_argument("unknown model " + spec.model);
  return *model;
}

std::string keyOf(const CellSpec& spec) {
  return spec.model + "\t" + std::to_string(spec.world_size);
}

void flush(std::ofstream& file, const std::string& out) {
  if (!file.flush()) throw std::runtime_error("cannot write " + out);
}

// One block of `n` steps of `mode` (0 plain, 1 in an enabled Join, 2 in a
// disabled one). Creating and finishing the Join are outside the timed
// steps; with even inputs finish() is one allreduce round and the final
// model sync.
void block(Trainer& trainer, int mode,
           const std::vector<fixtures::Batch>& batches, int first, int n,
           std::vector<double>* us) {
  if (mode == 0) {
    trainer.steps(batches, first, n, us);
    return;
  }
  distalgo::join::Join join = trainer.ddp.join(
      /*divide_by_initial_world_size=*/true, {.enable = mode == 1});
  trainer.steps(batches, first, n, us);
  join.finish();
}

void runEvenRank(const CellSpec& spec, int rank, const std::string& store_path,
                 const std::string& out) {
  const bench_common::ModelRow& model = modelOf(spec);
  const auto [group, batches] = bench_common::setUpRank(
      model, store_path, rank, spec.world_size, spec.rows);

  // A DDP per mode, so that no mode inherits another's reducer state.
  std::array<std::unique_ptr<Trainer>, kModeCount> trainers;
  for (auto& t : trainers) t = std::make_unique<Trainer>(model, group);
  for (int mode = 0; mode < kModeCount; ++mode) {
    block(*trainers[mode], mode, batches, 0, spec.warmup, nullptr);
  }
  group->barrier()->wait();

  std::array<std::vector<double>, kModeCount> us;
  std::array<std::vector<int>, kModeCount> round_of;
  for (int round = 0, done = 0; done < spec.steps; ++round) {
    const int n = std::min(spec.block, spec.steps - done);
    for (int j = 0; j < kModeCount; ++j) {
      const int mode = (round + j) % kModeCount;
      block(*trainers[mode], mode, batches, spec.warmup + done, n, &us[mode]);
      round_of[mode].insert(round_of[mode].end(), n, round);
    }
    done += n;
  }
  std::array<std::vector<double>, kModeCount> slowest;
  for (int mode = 0; mode < kModeCount; ++mode) {
    slowest[mode] = bench_common::slowestRankPerStep(group, us[mode]);
  }

  if (rank != 0) return;
  std::ofstream file(out, std::ios::app);
  for (int mode = 0; mode < kModeCount; ++mode) {
    for (std::size_t i = 0; i < slowest[mode].size(); ++i) {
      file << "step\t" << keyOf(spec) << "\t" << kModes[mode] << "\t"
           << round_of[mode][i] << "\t" << slowest[mode][i] << "\n";
    }
  }
  flush(file, out);
}

void runUnevenRank(const CellSpec& spec, int rank,
                   const std::string& store_path, const std::string& out) {
  const bench_common::ModelRow& model = modelOf(spec);
  const auto [group, batches] = bench_common::setUpRank(
      model, store_path, rank, spec.world_size, spec.rows);

  Trainer trainer(model, group);
  block(trainer, 1, batches, 0, spec.warmup, nullptr);
  group->barrier()->wait();

  // Per Join: the training ranks' step times (rank 0 gives zeros, so that
  // the maximum over the ranks is the slowest training rank's), and rank
  // 0's join.finish() time over the rounds it shadowed.
  const int shadowed = spec.steps_uneven - spec.early;
  std::vector<double> shadow_us;
  std::vector<double> train_us;
  for (int repeat = 0; repeat < spec.repeats; ++repeat) {
    distalgo::join::Join join = trainer.ddp.join();
    if (rank == 0) {
      trainer.steps(batches, spec.warmup, spec.early, nullptr);
      const std::int64_t start = bench_common::nowNs();
      join.finish();
      const std::int64_t end = bench_common::nowNs();
      shadow_us.push_back(static_cast<double>(end - start) / 1e3 / shadowed);
      train_us.insert(train_us.end(), spec.steps_uneven, 0.0);
    } else {
      trainer.steps(batches, spec.warmup, spec.steps_uneven, &train_us);
      join.finish();
    }
  }
  const std::vector<double> slowest =
      bench_common::slowestRankPerStep(group, train_us);

  if (rank != 0) return;
  std::ofstream file(out, std::ios::app);
  for (double v : shadow_us) {
    file << "shadow\t" << keyOf(spec) << "\t" << v << "\n";
  }
  for (std::size_t i = 0; i < slowest.size(); ++i) {
    const bool after = static_cast<int>(i % spec.steps_uneven) >= spec.early;
    file << "train\t" << keyOf(spec) << "\t" << i / spec.steps_uneven << "\t"
         << (after ? "after" : "before") << "\t" << slowest[i] << "\n";
  }
  flush(file, out);
}

}  // namespace

int runEvenCell(const CellSpec& spec, const std::string& out) {
  modelOf(spec);
  if (spec.steps < 1 || spec.block < 1) {
    throw std::invalid_argument("steps and block must be positive");
  }
  return bench_common::forkRanks(spec.world_size, "join",
                                 [&](int rank, const std::string& store_path) {
                                   runEvenRank(spec, rank, store_path, out);
                                 });
}

int runUnevenCell(const CellSpec& spec, const std::string& out) {
  modelOf(spec);
  if (spec.world_size < 2 || spec.early < 1 || spec.repeats < 1 ||
      spec.steps_uneven <= spec.early) {
    throw std::invalid_argument(
        "uneven inputs need 2 ranks or more and 0 < early < steps_uneven");
  }
  return bench_common::forkRanks(spec.world_size, "join",
                                 [&](int rank, const std::string& store_path) {
                                   runUnevenRank(spec, rank, store_path, out);
                                 });
}

}  // namespace join_bench
