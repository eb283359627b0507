#include "common/ranks.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>

namespace bench {
namespace {

// Also the group's timeout: a slow cell must not look like a hang.
constexpr std::chrono::minutes kDeadline{30};

}  // namespace

std::optional<int> launchedWorldSize() {
  const std::optional<ranktest::LaunchedJobPlace> place =
      ranktest::launchedJobPlace();
  if (!place) return std::nullopt;
  return place->world_size;
}

std::string samplesPath(const std::string& path) {
  const std::optional<ranktest::LaunchedJobPlace> place =
      ranktest::launchedJobPlace();
  return !place || place->rank == 0 ? path : "/dev/null";
}

int finishLaunchedJob(int exit_code) {
  return ranktest::finishRanks(exit_code);
}

void inRanks(int world_size,
             const std::function<void(const ranktest::Rank&)>& body) {
  const ranktest::RunResult result =
      ranktest::runRanks({.world_size = world_size, .timeout = kDeadline},
                         [&](const ranktest::Rank& rank) {
                           at::set_num_threads(1);
                           body(rank);
                         });
  if (result.outcome == ranktest::RunResult::Outcome::kSkipped) {
    // Under a launcher, a size that is not the job's (every rank skips it).
    const std::optional<ranktest::LaunchedJobPlace> place =
        ranktest::launchedJobPlace();
    if (place && place->rank == 0) {
      std::cerr << "[bench] skipping " << world_size
                << " ranks: " << result.message << std::endl;
    }
    return;
  }
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
