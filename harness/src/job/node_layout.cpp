#include "job/node_layout.h"

#include <algorithm>
#include <stdexcept>

#include "wire/check.h"

namespace ranktest::internal {

NodeLayout nodeLayoutOf(const std::vector<std::string>& hosts, int rank) {
  const int world = static_cast<int>(hosts.size());
  if (rank < 0 || rank >= world) {
    RANKTEST_FAIL_ARG("ranktest: rank " + std::to_string(rank) +
                      " is outside a layout of " + std::to_string(world) +
                      " ranks");
  }
  std::vector<std::string> nodes;  // in the order of their lowest rank
  NodeLayout layout;
  layout.local_world_size = 0;
  for (int r = 0; r < world; ++r) {
    const std::string& host = hosts[static_cast<std::size_t>(r)];
    if (std::find(nodes.begin(), nodes.end(), host) == nodes.end()) {
      nodes.push_back(host);
    }
    if (host != hosts[static_cast<std::size_t>(rank)]) continue;
    if (r < rank) ++layout.local_rank;
    ++layout.local_world_size;
  }
  const std::string& mine = hosts[static_cast<std::size_t>(rank)];
  layout.node_rank = static_cast<int>(
      std::find(nodes.begin(), nodes.end(), mine) - nodes.begin());
  // Blocks: node n holds exactly ranks [n*size, (n+1)*size).
  const int size = world / static_cast<int>(nodes.size());
  layout.blocks = size * static_cast<int>(nodes.size()) == world;
  for (int r = 0; r < world && layout.blocks; ++r) {
    layout.blocks = hosts[static_cast<std::size_t>(r)] ==
                    nodes[static_cast<std::size_t>(r / size)];
  }
  return layout;
}

}  // namespace ranktest::internal
