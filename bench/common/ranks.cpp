#include "common/ranks.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "job/launched_job.h"
#include "rank/process_group_factory.h"

namespace bench {
namespace {

using ranktest::internal::LaunchedJob;

// Also the group's timeout: a slow cell must not look like a hang.
constexpr std::chrono::minutes kDeadline{30};
// A launched rank's group timeout: no launcher stops the other hosts' ranks
// when one fails, so they give up on a collective after this.
constexpr std::chrono::minutes kLaunchedGroupTimeout{5};

// The job this process is a rank of, joined on first use; nullptr without
// a launcher.
LaunchedJob* launchedJob() {
  static const std::unique_ptr<LaunchedJob> job = LaunchedJob::join(kDeadline);
  return job.get();
}

void inLaunchedRank(LaunchedJob& job, int world_size,
                    const std::function<void(const ranktest::Rank&)>& body) {
  const ranktest::internal::LaunchedRank& launched = job.launched();
  if (world_size != launched.world_size) {
    if (launched.rank == 0) {
      std::cerr << "[bench] skipping " << world_size << " ranks: the job has "
                << launched.world_size << std::endl;
    }
    return;
  }
  // Every cell on a group of its own, as a forked cell would be.
  static int cell = 0;
  ranktest::Rank rank;
  rank.rank = launched.rank;
  rank.world_size = world_size;
  rank.local_rank = job.layout().local_rank;
  rank.local_world_size = job.layout().local_world_size;
  rank.node_rank = job.layout().node_rank;
  rank.backend = "gloo";
  rank.store = c10::make_intrusive<c10d::PrefixStore>(
      "bench/cell" + std::to_string(cell++) + "/", job.store());
  rank.pg = ranktest::internal::createProcessGroup(
      rank.backend, rank.store, rank.rank, world_size, rank.local_rank,
      kLaunchedGroupTimeout, job.glooHost());
  at::set_num_threads(1);
  body(rank);
  // No rank leaves the cell's group while another still sends to it.
  rank.pg->barrier()->wait();
}

}  // namespace

std::optional<int> launchedWorldSize() {
  LaunchedJob* job = launchedJob();
  if (job == nullptr) return std::nullopt;
  return job->launched().world_size;
}

std::string samplesPath(const std::string& path) {
  LaunchedJob* job = launchedJob();
  return job == nullptr || job->launched().rank == 0 ? path : "/dev/null";
}

int finishLaunchedJob(int exit_code) {
  try {
    LaunchedJob* job = launchedJob();
    return job == nullptr ? exit_code : job->finish(exit_code);
  } catch (const std::exception& error) {
    std::cerr << "[bench] cannot finish the launched job: " << error.what()
              << std::endl;
    return 1;
  }
}

void inRanks(int world_size,
             const std::function<void(const ranktest::Rank&)>& body) {
  if (LaunchedJob* job = launchedJob()) {
    inLaunchedRank(*job, world_size, body);
    return;
  }
  const ranktest::RunResult result =
      ranktest::runRanks({.world_size = world_size, .timeout = kDeadline},
                         [&](const ranktest::Rank& rank) {
                           at::set_num_threads(1);
                           body(rank);
                         });
  if (!result.passed()) throw std::runtime_error(result.message);
}

std::vector<std::vector<double>> allGather(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<double>& mine) {
  if (mine.empty()) return std::vector<std::vector<double>>(pg->getSize());
  std::vector<at::Tensor> input{at::tensor(mine, at::kDouble)};
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int r = 0; r < pg->getSize(); ++r) {
    outputs[0].push_back(at::empty_like(input[0]));
  }
  pg->allgather(outputs, input)->wait();
  std::vector<std::vector<double>> all;
  for (const at::Tensor& t : outputs[0]) {
    const double* data = t.data_ptr<double>();
    all.emplace_back(data, data + t.numel());
  }
  return all;
}

std::vector<double> slowestRank(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<double>& mine) {
  std::vector<double> slowest = mine;
  for (const std::vector<double>& theirs : allGather(pg, mine)) {
    std::transform(slowest.begin(), slowest.end(), theirs.begin(),
                   slowest.begin(),
                   [](double a, double b) { return std::max(a, b); });
  }
  return slowest;
}

}  // namespace bench
