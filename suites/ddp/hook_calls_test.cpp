// The buckets a communication hook sees, iteration by iteration, against
// PyTorch 1.13 (golden/hook_calls.py printed the expectations): one bucket of
// every gradient until the reducer rebuilds its buckets in the order the
// gradients arrived, unless find_unused_parameters without static_graph, which
// never rebuilds and starts with the real limits.

#include <ATen/core/ivalue.h>
#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>

#include <memory>
#include <vector>

#include "ddp_parity.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/training.h"

namespace ddpparity {
namespace {

using distalgo::ddp::DistributedDataParallel;
using Calls = std::vector<std::vector<std::int64_t>>;

class DdpHookCalls : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }

 protected:
  // The buffer size of every hook call in each of the first three
  // iterations on the fixture MLP (212 gradients: 128 + 16 + 64 + 4).
  Calls hookCalls(bool find_unused_parameters, bool static_graph) {
    auto model = makeModel(Model::kMlp, /*seed=*/1);
    DistributedDataParallel ddp(
        model, pg(),
        {.bucket_cap_mb = 300.0 / (1024 * 1024),
         .first_bucket_cap_bytes = 1,
         .find_unused_parameters = find_unused_parameters,
         .static_graph = static_graph});
    auto calls = std::make_shared<Calls>();
    ddp.registerCommHook(
        [calls, pg = pg()](distalgo::ddp::GradBucket& bucket) {
          calls->back().push_back(bucket.buffer().numel());
          std::vector<at::Tensor> tensors{bucket.buffer()};
          return pg->allreduce(tensors)->getFuture();
        },
        "counting");
    for (int step = 0; step < 3; ++step) {
      calls->emplace_back();
      fixtures::zeroGrads(model->parameters());
      const auto b = batch(step, rank());
      torch::nn::functional::mse_loss(ddp.forward(b.input), b.target)
          .backward();
    }
    return *calls;
  }
};

const Calls kOneBucketUntilRebuilt = {{212}, {4, 80, 128}, {4, 80, 128}};
const Calls kRealLimitsThroughout = {{4, 80, 128}, {4, 80, 128}, {4, 80, 128}};
// A static graph's first iteration only records the order, its second
// collects it, and the third runs on the rebuilt buckets.
const Calls kStaticGraphCalls = {{212}, {212}, {4, 80, 128}};

RANKTEST_F(DdpHookCalls, OneBucketUntilTheRebuild) {
  EXPECT_EQ(hookCalls(false, false), kOneBucketUntilRebuilt);
}

RANKTEST_F(DdpHookCalls, FindUnusedParametersStartsWithTheRealLimits) {
  EXPECT_EQ(hookCalls(true, false), kRealLimitsThroughout);
}

RANKTEST_F(DdpHookCalls, StaticGraphRebuildsAfterItsSecondIteration) {
  EXPECT_EQ(hookCalls(false, true), kStaticGraphCalls);
  EXPECT_EQ(hookCalls(true, true), kStaticGraphCalls);
}

}  // namespace
}  // namespace ddpparity
