// Collectives give the right results in every rank, for every start method
// and store, at world sizes 2, 3 and 4.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "ranktest/ranktest.h"

namespace {

class HarnessCollectives : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}, .any_world_size_from = 2};
  }

 protected:
  // Sum of 0..world-1: what an allreduce of the ranks gives.
  int rankSum() const { return worldSize() * (worldSize() - 1) / 2; }

  void checkAllreduce() {
    std::vector<at::Tensor> tensors{at::full({4}, rank() + 1.0)};
    pg()->allreduce(tensors)->wait();
    const double expected = rankSum() + worldSize();
    EXPECT_TRUE(at::equal(tensors[0], at::full({4}, expected)))
        << "rank " << rank() << " got " << tensors[0];
  }
};

RANKTEST_F(HarnessCollectives, AllreduceSumsEveryRank) { checkAllreduce(); }

RANKTEST_F(HarnessCollectives, BroadcastCopiesTheRootTensor) {
  const int root = worldSize() - 1;
  std::vector<at::Tensor> tensors{at::arange(6, at::kFloat) * (rank() + 1)};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  pg()->broadcast(tensors, options)->wait();
  EXPECT_TRUE(at::equal(tensors[0], at::arange(6, at::kFloat) * (root + 1)));
}

RANKTEST_F(HarnessCollectives, AllgatherCollectsInRankOrder) {
  std::vector<at::Tensor> input{at::full({2}, static_cast<double>(rank()))};
  std::vector<std::vector<at::Tensor>> output(1);
  for (int r = 0; r < worldSize(); ++r) output[0].push_back(at::empty({2}));
  pg()->allgather(output, input)->wait();
  for (int r = 0; r < worldSize(); ++r) {
    EXPECT_TRUE(at::equal(output[0][r], at::full({2}, static_cast<double>(r))))
        << "slot " << r << " holds " << output[0][r];
  }
}

RANKTEST_F(HarnessCollectives, AllreduceOverSpawnedRanks,
           ranktest::startMethod(ranktest::StartMethod::kSpawn)) {
  checkAllreduce();
}

RANKTEST_F(HarnessCollectives, AllreduceOverTcpStore,
           ranktest::store(ranktest::StoreKind::kTcp)) {
  checkAllreduce();
}

RANKTEST_F(HarnessCollectives, AllreduceOverSpawnedRanksAndTcpStore,
           ranktest::startMethod(ranktest::StartMethod::kSpawn),
           ranktest::store(ranktest::StoreKind::kTcp)) {
  checkAllreduce();
}

RANKTEST_F(HarnessCollectives, RankAndWorldSizeMatchTheGroup) {
  EXPECT_EQ(pg()->getRank(), rank());
  EXPECT_EQ(pg()->getSize(), worldSize());
  EXPECT_EQ(backend(), "gloo");
  EXPECT_EQ(device(), c10::Device(c10::kCPU));
}

}  // namespace
