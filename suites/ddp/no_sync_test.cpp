// DDP's no_sync: backward passes accumulate locally until the next synced
// one, which reduces the sum.

#include <torch/nn/functional/loss.h>

#include "ddp_parity.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/training.h"

namespace ddpparity {
namespace {

class DdpParityNoSync : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }
};

at::Tensor mseLoss(const at::Tensor& output, const fixtures::Batch& b) {
  return torch::nn::functional::mse_loss(output, b.target);
}

// Two micro-batches under noSync, then a synced one: the reduced gradient is
// the sum of the three, as in one process on the three global batches.
RANKTEST_F(DdpParityNoSync, AccumulatesLocallyThenReduces) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  distalgo::ddp::DistributedDataParallel ddp(model, pg());
  {
    auto no_sync = ddp.noSync();
    for (int step = 0; step < 2; ++step) {
      const auto local = batch(step, rank());
      mseLoss(ddp.forward(local.input), local).backward();
    }
  }
  // Nothing was reduced yet: the gradients are this rank's own.
  auto local_only = fixtures::makeMlp(/*seed=*/1);
  for (int step = 0; step < 2; ++step) {
    const auto local = batch(step, rank());
    mseLoss(local_only->forward(local.input), local).backward();
  }
  {
    SCOPED_TRACE("the gradients under noSync");
    fixtures::expectSameTensors(fixtures::gradientSnapshot(*model),
                                fixtures::gradientSnapshot(*local_only),
                                kTolerance);
  }

  const auto last = batch(2, rank());
  mseLoss(ddp.forward(last.input), last).backward();
  fixtures::sgdUpdate(model->parameters(), kLearningRate);

  auto reference = fixtures::makeMlp(/*seed=*/1);
  for (int step = 0; step < 3; ++step) {
    const auto all = globalBatch(step, worldSize());
    mseLoss(reference->forward(all.input), all).backward();
  }
  fixtures::sgdUpdate(reference->parameters(), kLearningRate);
  fixtures::expectSameParameters(*model, *reference, kTolerance);
}

}  // namespace
}  // namespace ddpparity
