// parameters_as_bucket_view: each rank's shard lives in one flat buffer, the
// parameters are views into it, and a step broadcasts one buffer per rank.

#include <gmock/gmock.h>
#include <torch/optim/sgd.h>

#include <set>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "ranktest/counting_process_group.h"
#include "ranktest/ranktest.h"

namespace zero_suite {
namespace {

using distalgo::zero::ZeroRedundancyOptimizer;

class ZeroBucketView : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }

 protected:
  // Eight parameters of distinct sizes and values, with gradients.
  static std::vector<at::Tensor> parameters() {
    std::vector<at::Tensor> params;
    for (int i = 1; i <= 8; ++i) {
      auto p =
          at::arange(10 * i, at::kFloat).reshape({2, std::int64_t{5} * i}) + i;
      p.requires_grad_();
      p.mutable_grad() = at::full_like(p, 0.5 * i);
      params.push_back(p);
    }
    return params;
  }

  distalgo::zero::LocalOptimizerFactory sgd_ =
      distalgo::zero::localOptimizer<torch::optim::SGD>(
          torch::optim::SGDOptions(0.1));
};

RANKTEST_F(ZeroBucketView, ShardsAreViewsOfOneBufferBroadcastOncePerRank) {
  auto params = parameters();
  std::vector<at::Tensor> values;
  for (const auto& p : params) values.push_back(p.detach().clone());
  const std::vector<const c10::TensorImpl*> impls = [&] {
    std::vector<const c10::TensorImpl*> out;
    for (const auto& p : params) out.push_back(p.unsafeGetTensorImpl());
    return out;
  }();
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  ZeroRedundancyOptimizer zero(params, counting, sgd_,
                               {.parameters_as_bucket_view = true});

  std::set<const void*> storages;
  for (int r = 0; r < worldSize(); ++r) {
    std::set<const void*> shard_storages;
    for (const auto& entry : zero.partition()[r]) {
      shard_storages.insert(entry.parameter.storage().data());
    }
    EXPECT_EQ(shard_storages.size(), 1u) << "rank " << r << "'s shard";
    storages.insert(shard_storages.begin(), shard_storages.end());
  }
  EXPECT_EQ(storages.size(), static_cast<std::size_t>(worldSize()));
  for (std::size_t i = 0; i < params.size(); ++i) {
    // The same parameters (identity kept), with their values.
    EXPECT_EQ(params[i].unsafeGetTensorImpl(), impls[i]);
    EXPECT_TRUE(params[i].equal(values[i])) << "parameter " << i;
  }

  counting->reset();
  zero.step();
  EXPECT_EQ(counting->traffic("broadcast").calls, worldSize());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto expected = values[i] - 0.1 * 0.5 * static_cast<double>(i + 1);
    EXPECT_TRUE(params[i].allclose(expected, 1e-6, 1e-6)) << "parameter " << i;
  }
}

RANKTEST_F(ZeroBucketView, WithoutItEveryParameterIsBroadcast) {
  auto params = parameters();
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  ZeroRedundancyOptimizer zero(params, counting, sgd_);
  counting->reset();
  zero.step();
  EXPECT_EQ(counting->traffic("broadcast").calls,
            static_cast<std::int64_t>(params.size()));
}

}  // namespace
}  // namespace zero_suite
