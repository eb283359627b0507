// Node-local averaging on the nodes the ranks really run on: the default
// subgroup (post-local SGD's) and the averagers over it. Forked, every rank
// is on one node; under ci/cluster (2 hosts x 2 ranks, each emulated host
// with its own host name) the nodes are the hosts.

#include <ATen/ATen.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "averaging_util.h"
#include "distalgo/averaging/hierarchical_model_averager.h"
#include "distalgo/averaging/periodic_model_averager.h"
#include "distalgo/groups/subgroup_provider.h"
#include "fixtures/compare.h"
#include "ranktest/ranktest.h"

namespace averaging_suite {
namespace {

using distalgo::averaging::HierarchicalModelAverager;
using distalgo::averaging::PeriodicModelAverager;
using distalgo::groups::SubgroupProvider;

// Every member's host name, in group rank order.
std::vector<std::string> hostNames(
    const c10::intrusive_ptr<c10d::ProcessGroup>& group) {
  constexpr int kLength = 256;
  auto mine = at::zeros({kLength}, at::kChar);
  ::gethostname(static_cast<char*>(mine.data_ptr()), kLength - 1);
  std::vector<at::Tensor> input{mine};
  std::vector<std::vector<at::Tensor>> output(1);
  for (int r = 0; r < group->getSize(); ++r) {
    output[0].push_back(at::empty({kLength}, at::kChar));
  }
  group->allgather(output, input)->wait();
  std::vector<std::string> names;
  for (const auto& t : output[0]) {
    names.emplace_back(static_cast<const char*>(t.data_ptr()));
  }
  return names;
}

// Node sizes are powers of two: means are exact (averaging_util.h).
class AveragingNodeLocal : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }

 protected:
  // The global ranks of this rank's node: torchrun and ci/cluster place a
  // node's ranks consecutively.
  std::vector<int> nodeRanks() const {
    std::vector<int> ranks;
    for (int i = 0; i < localWorldSize(); ++i) {
      ranks.push_back(nodeRank() * localWorldSize() + i);
    }
    return ranks;
  }
};

RANKTEST_F(AveragingNodeLocal, DefaultSubgroupIsThisRanksNode) {
  const auto node = SubgroupProvider().get(store(), pg());
  ASSERT_TRUE(node);
  EXPECT_EQ(node->getSize(), localWorldSize());
  EXPECT_EQ(node->getRank(), localRank());
  EXPECT_EQ(rank(), nodeRanks()[static_cast<std::size_t>(localRank())]);
  // The node is one host, and the job has as many hosts as nodes.
  char me[256] = {};
  ::gethostname(me, sizeof(me) - 1);
  for (const std::string& host : hostNames(node)) EXPECT_EQ(host, me);
  const std::vector<std::string> all = hostNames(pg());
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(),
            static_cast<std::size_t>(worldSize() / localWorldSize()));
}

RANKTEST_F(AveragingNodeLocal, PeriodicAveragerOverTheNodeAveragesTheNode) {
  PeriodicModelAverager averager(SubgroupProvider().get(store(), pg()),
                                 /*period=*/1);
  auto params = rankParameters(rank());
  averager.averageParameters(params);
  fixtures::expectSameTensors(params, meanParameters(nodeRanks()),
                              fixtures::kExact);
}

RANKTEST_F(AveragingNodeLocal, HierarchicalAveragerAveragesNodesThenAll) {
  // Step 0: every rank (period 2 divides it); step 1: the node (period 1).
  HierarchicalModelAverager averager(store(), pg(),
                                     {{1, localWorldSize()}, {2, worldSize()}});
  auto params = rankParameters(rank());
  averager.averageParameters(params);
  fixtures::expectSameTensors(params, meanParameters(allRanks(worldSize())),
                              fixtures::kExact);
  params = rankParameters(rank());
  averager.averageParameters(params);
  fixtures::expectSameTensors(params, meanParameters(nodeRanks()),
                              fixtures::kExact);
}

}  // namespace
}  // namespace averaging_suite
