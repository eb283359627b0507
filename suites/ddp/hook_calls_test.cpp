// The buckets a communication hook sees, iteration by iteration, against the
// PyTorch of the libtorch built against (golden/hook_calls.py printed the
// expectations with 1.13 and 2.11): one bucket of every gradient until the
// reducer rebuilds its buckets in the order the gradients arrived, unless
// find_unused_parameters without static_graph, which never rebuilds and
// starts with the real limits. PyTorch 2.x gives the first rebuilt bucket
// the cap passed (84 = 80 + 4 gradients); 1.13 its 1-byte default first cap.

#include <ATen/core/ivalue.h>
#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>

#include <memory>
#include <optional>
#include <vector>

#include "ddp_parity.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/training.h"
#include "torch_compat/version.h"

namespace ddpparity {
namespace {

using distalgo::ddp::DistributedDataParallel;
using Calls = std::vector<std::vector<std::int64_t>>;

// golden/hook_calls.py sets PyTorch's default first bucket to 1 byte, which
// 1.13 applies and 2.x ignores once a bucket cap is given: unset, distalgo
// follows the same rule for the libtorch built against.
const std::optional<std::size_t> kScriptsFirstBucketCap =
    torch_compat::kTorchMajor >= 2 ? std::nullopt
                                   : std::optional<std::size_t>(1);

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
         .first_bucket_cap_bytes = kScriptsFirstBucketCap,
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

// The buckets after the rebuild, as this build's PyTorch makes them.
const std::vector<std::int64_t> kRebuilt =
    torch_compat::kTorchMajor >= 2 ? std::vector<std::int64_t>{84, 128}
                                   : std::vector<std::int64_t>{4, 80, 128};
const Calls kOneBucketUntilRebuilt = {{212}, kRebuilt, kRebuilt};
const Calls kRealLimitsThroughout = {{4, 80, 128}, {4, 80, 128}, {4, 80, 128}};
// A static graph's first iteration only records the order, its second
// collects it, and the third runs on the rebuilt buckets.
const Calls kStaticGraphCalls = {{212}, {212}, kRebuilt};

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
