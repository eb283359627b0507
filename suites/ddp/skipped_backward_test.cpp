// A forward whose outputs never see backward, followed by another forward:
// DDP refuses on that rank, before the mismatch reaches the collectives.

#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "ranktest/ranktest.h"

namespace {

using distalgo::ddp::DistributedDataParallel;

class DdpParitySkippedBackward : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }

 protected:
  at::Tensor loss(DistributedDataParallel<torch::nn::Sequential>& ddp) {
    const auto b = fixtures::rankBatch(0, rank(), 5, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
    return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  }
};

RANKTEST_F(DdpParitySkippedBackward, SecondForwardWithoutBackwardThrows) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  loss(ddp);
  try {
    loss(ddp);
    ADD_FAILURE() << "a second forward without backward was accepted";
  } catch (const std::logic_error& error) {
    EXPECT_THAT(error.what(),
                testing::HasSubstr("on rank " + std::to_string(rank()) +
                                   ": forward ran again, but backward never "
                                   "ran"));
  }
}

RANKTEST_F(DdpParitySkippedBackward, ForwardsWithoutGradientsOrSyncAreFine) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  {
    at::NoGradGuard no_grad;
    loss(ddp);
    loss(ddp);
  }
  {
    auto no_sync = ddp.noSync();
    loss(ddp);
  }
  loss(ddp).backward();
  loss(ddp).backward();
  for (const auto& p : model->parameters()) EXPECT_TRUE(p.grad().defined());
}

}  // namespace
