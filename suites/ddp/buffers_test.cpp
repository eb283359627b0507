// Buffers (batch-norm running statistics) under DDP: broadcast from rank 0
// before a forward when broadcast_buffers is set, each rank's own otherwise.
// Batch norm normalizes with each rank's local batch, so the reference is
// fixtures::replayDataParallel, not one process on the global batch.

#include <torch/nn/functional/loss.h>
#include <torch/version.h>

#include <vector>

#include "ddp_parity.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/training.h"

namespace ddpparity {
namespace {

using distalgo::ddp::DistributedDataParallel;

class DdpParityBuffers : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }
};

RANKTEST_F(DdpParityBuffers, WithoutBroadcastEachRankKeepsItsOwnStatistics) {
  const auto model =
      fixtures::trainUnderDdp(pg(), ddpTraining(Model::kBatchNormNet, rank(),
                                                {.broadcast_buffers = false}))
          .model;
  const auto reference = groundTruth(Model::kBatchNormNet, worldSize(),
                                     /*broadcast_buffers=*/false);
  fixtures::expectSameParameters(*model, *reference.model, kTolerance);
  fixtures::expectSameBuffers(*model, reference.buffers[rank()], kTolerance);
  if (rank() != 0) {
    // Every step moved each rank's by its own batches (from its own initial
    // ones, where construction did not broadcast rank 0's).
    EXPECT_FALSE(at::allclose(model->buffers()[0], reference.buffers[0][0]))
        << "rank " << rank() << " holds rank 0's running mean";
  }
}

// Construction broadcasts rank 0's buffers as the PyTorch of the build does:
// 1.13 whatever broadcast_buffers says, 2.1 and later only with it. Written
// against the version, not syncsBuffersWithParameters.
RANKTEST_F(DdpParityBuffers, ConstructionTakesRankZeroBuffersAsPyTorchDoes) {
  for (const bool broadcast : {true, false}) {
    SCOPED_TRACE(broadcast ? "broadcast_buffers" : "no broadcast_buffers");
    auto model = makeModel(Model::kBatchNormNet, /*seed=*/1);
    // Rank r's floating-point buffers move by r: rank 0's stay as built.
    std::vector<at::Tensor> rank_zero;
    std::vector<at::Tensor> own;
    {
      at::NoGradGuard no_grad;
      for (auto& b : model->buffers()) {
        rank_zero.push_back(b.clone());
        if (b.is_floating_point()) b.add_(rank());
        own.push_back(b.clone());
      }
    }
    DistributedDataParallel ddp(model, pg(), {.broadcast_buffers = broadcast});
    const bool takes_rank_zero = broadcast || TORCH_VERSION_MAJOR < 2;
    fixtures::expectSameBuffers(*model, takes_rank_zero ? rank_zero : own,
                                fixtures::kExact);
  }
}

// The last training forward left each rank with statistics of its own last
// batch; the next forward starts from rank 0's on every rank. Under no_grad
// in eval mode it changes nothing else.
RANKTEST_F(DdpParityBuffers, NextForwardTakesRankZeroStatistics) {
  auto model = makeModel(Model::kBatchNormNet, /*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  fixtures::sgdSteps(model->parameters(), kSteps, kLearningRate, [&](int step) {
    const auto b = batch(step, rank());
    return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  });
  const auto reference = groundTruth(Model::kBatchNormNet, worldSize(),
                                     /*broadcast_buffers=*/true);
  fixtures::expectSameBuffers(*model, reference.buffers[rank()], kTolerance);

  model->eval();
  at::NoGradGuard no_grad;
  ddp.forward(batch(kSteps, rank()).input);
  fixtures::expectSameBuffers(*model, reference.buffers[0], kTolerance);
}

// The replay is a reference only if it agrees with the plain one where both
// apply: a model without buffers.
RANKTEST_F(DdpParityBuffers, ReplayEqualsGlobalBatchWithoutBuffers) {
  auto replayed = makeModel(Model::kMlp, /*seed=*/1);
  fixtures::replayDataParallel(*replayed,
                               {.world_size = worldSize(),
                                .steps = kSteps,
                                .learning_rate = kLearningRate},
                               [&](int step, int r) {
                                 const auto b = batch(step, r);
                                 return torch::nn::functional::mse_loss(
                                     replayed->forward(b.input), b.target);
                               });
  const auto reference =
      groundTruth(Model::kMlp, worldSize(), /*broadcast_buffers=*/true);
  fixtures::expectSameParameters(*replayed, *reference.model, kTolerance);
}

}  // namespace
}  // namespace ddpparity
