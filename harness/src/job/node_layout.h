#pragma once

// Which ranks of a launched job share a node, worked out from where each rank
// runs: launchers that do not say (Open MPI gives no node index, PMI gives
// nothing) still get node-local ranks and subgroups.

#include <string>
#include <vector>

namespace ranktest::internal {

// One rank's place among the job's nodes.
struct NodeLayout {
  int node_rank = 0;
  int local_rank = 0;
  int local_world_size = 1;
  // Every node is a run of consecutive ranks, all runs of one size: the
  // layout that node subgroups (consecutive ranks, LOCAL_WORLD_SIZE each,
  // as torchrun places them) assume.
  bool blocks = true;
};

// `hosts[r]` names rank r's host (e.g. its address toward rank 0). Ranks on
// one host form a node; nodes are numbered in the order of their lowest
// rank. Throws std::invalid_argument when `rank` is outside `hosts`.
NodeLayout nodeLayoutOf(const std::vector<std::string>& hosts, int rank);

}  // namespace ranktest::internal
