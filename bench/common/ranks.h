#pragma once

// Running a benchmark's body in rank processes (ranktest::runRanks, or the
// processes of a launched job), and bringing the ranks' numbers together.

#include <functional>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "ranktest/run_ranks.h"

namespace bench {

// Runs body(rank) in `world_size` forked ranks over Gloo, each computing on
// one intra-op thread (the ranks share the machine's cores). Throws
// std::runtime_error with runRanks' message unless every rank passed.
// Under a launcher (torchrun or mpirun, e.g. across ci/cluster's hosts)
// this process is one rank of the job instead (runRanks): body runs in its
// one forked rank, on a fresh Gloo group over the job's store, when
// `world_size` is the job's; other sizes are skipped (rank 0 says so).
void inRanks(int world_size,
             const std::function<void(const ranktest::Rank&)>& body);

// The number of ranks of the launched job this process belongs to, or
// nullopt when no launcher started it.
std::optional<int> launchedWorldSize();

// Where this process writes the samples file `path`: /dev/null in the ranks
// of a launched job other than rank 0, which alone writes.
std::string samplesPath(const std::string& path);

// At the end of a launched job's rank: rank 0 keeps the job's store up
// until every rank is done. Returns the job's exit code (`exit_code`
// without a launcher).
int finishLaunchedJob(int exit_code);

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
