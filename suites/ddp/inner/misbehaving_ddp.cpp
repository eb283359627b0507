// DDP runs that go wrong in one rank on purpose. Not registered with ctest:
// suite_ddp runs this binary and checks what its parent reported.

#include <torch/nn/functional/loss.h>

#include <stdexcept>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/hooks/default_hooks.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "ranktest/ranktest.h"

namespace {

using distalgo::ddp::DistributedDataParallel;

class InnerDdp : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }

 protected:
  at::Tensor loss(DistributedDataParallel<torch::nn::Sequential>& ddp,
                  int step) {
    const auto b = fixtures::rankBatch(step, rank(), 5, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
    return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  }
};

RANKTEST_F(InnerDdp, HookThrowsInRank1) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  auto allreduce = distalgo::hooks::allreduceHook(pg());
  ddp.registerCommHook(
      [&](distalgo::ddp::GradBucket& bucket) {
        if (rank() == 1) throw std::runtime_error("gradient exploded");
        return allreduce(bucket);
      },
      "flaky");
  loss(ddp, 0).backward();
}

RANKTEST_F(InnerDdp, Rank1SkipsBackward) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  for (int step = 0; step < 2; ++step) {
    auto value = loss(ddp, step);
    if (rank() != 1) value.backward();
  }
}

}  // namespace
