#pragma once

// Running a benchmark's body in rank processes (ranktest::runRanks), and
// bringing the ranks' numbers together.

#include <functional>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "ranktest/run_ranks.h"

namespace bench {

// Runs body(rank) in `world_size` forked ranks over Gloo, each computing on
// one intra-op thread (the ranks share the machine's cores). Throws
// std::runtime_error with runRanks' message unless every rank passed.
void inRanks(int world_size,
             const std::function<void(const ranktest::Rank&)>& body);

// Every rank's `mine`, in rank order; each rank gives as many values.
// Collective.
std::vector<std::vector<double>> allGather(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<double>& mine);

// Element by element, the largest value over the ranks: a step takes as
// long as its slowest rank. Collective.
std::vector<double> slowestRank(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<double>& mine);

}  // namespace bench
