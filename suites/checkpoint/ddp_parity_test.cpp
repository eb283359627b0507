// Training a checkpointed model with reference DDP equals training the plain
// model with reference DDP: the reducer sees each gradient once (it throws on
// a second "ready" of a parameter) and the same values. Bit for bit at two
// ranks; from three on, Gloo's ring sums each element in an order set by the
// bucket layout, which DDP rebuilds in the order gradients arrive, and
// checkpointing changes that order.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "distalgo/checkpoint/apply_activation_checkpointing.h"
#include "fixtures/compare.h"
#include "fixtures/ddp_training.h"
#include "fixtures/deep_mlp.h"
#include "ranktest/ranktest.h"

namespace checkpoint_suite {
namespace {

// Wraps every MlpBlock of `model` in a checkpoint; returns how many.
int checkpointBlocks(torch::nn::Module& model) {
  return distalgo::checkpoint::applyActivationCheckpointing(
      model, [](const torch::nn::Module& m) {
        return dynamic_cast<const fixtures::MlpBlockImpl*>(&m) != nullptr;
      });
}

constexpr int kSteps = 4;
constexpr int kDepth = 3;
constexpr int kWidth = 8;
constexpr int kRows = 5;

class CheckpointDdp : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }

 protected:
  // The deep MLP after kSteps SGD steps through DDP, each block
  // checkpointed when `wrap`.
  std::vector<at::Tensor> train(bool wrap,
                                const distalgo::ddp::DdpOptions& options,
                                int width = kWidth) {
    return fixtures::trainUnderDdp(
               pg(), {.make_model =
                          [&] {
                            auto model = fixtures::makeDeepMlp(kDepth, width,
                                                               /*seed=*/1);
                            if (wrap) {
                              EXPECT_EQ(checkpointBlocks(*model), kDepth);
                            }
                            return model;
                          },
                      .inputs = width,
                      .outputs = width,
                      .ddp = options,
                      .rank = rank(),
                      .rows = kRows,
                      .steps = kSteps})
        .parameters;
  }

  // Bit for bit at two ranks. From three on, checkpointing changes the
  // order in which gradients become ready, so the buckets and the order in
  // which Gloo sums an element differ: the sum rounds differently in its
  // last bits (at four ranks, at most 9.3e-10 measured with libtorch 1.13's
  // Gloo, 1.5e-8 with 2.11's): two float32 ulps relative, 1e-8 absolute
  // near zero.
  fixtures::Tolerance tolerance() const {
    return worldSize() == 2 ? fixtures::kExact
                            : fixtures::Tolerance{.rtol = 2.4e-7, .atol = 1e-8};
  }
};

RANKTEST_F(CheckpointDdp, WrappedModelTrainsAsThePlainModel) {
  fixtures::expectSameTensors(train(true, {}), train(false, {}), tolerance());
}

RANKTEST_F(CheckpointDdp, WrappedModelTrainsAsThePlainModelWithSmallBuckets) {
  // Several buckets: gradients become ready one block at a time, from
  // inside the outer backward.
  const distalgo::ddp::DdpOptions options{.bucket_cap_mb = 0.0005,
                                          .first_bucket_cap_bytes = 512};
  fixtures::expectSameTensors(train(true, options), train(false, options),
                              tolerance());
}

RANKTEST_F(CheckpointDdp, WrappedLargeModelTrainsAsThePlainOneAtDefaultCaps) {
  // Width 256: 1.6 M parameters, two buckets at DDP's default caps.
  constexpr int kLargeWidth = 256;
  fixtures::expectSameTensors(train(true, {}, kLargeWidth),
                              train(false, {}, kLargeWidth), tolerance());
}

RANKTEST_F(CheckpointDdp, WrappedModelTrainsAsThePlainModelFindingUnused) {
  // The reducer's graph walk from the outputs finds the parameters as
  // inputs of the checkpoint nodes.
  const distalgo::ddp::DdpOptions options{.find_unused_parameters = true};
  fixtures::expectSameTensors(train(true, options), train(false, options),
                              tolerance());
}

RANKTEST_F(CheckpointDdp, WrappedModelTrainsAsThePlainModelWithStaticGraph) {
  const distalgo::ddp::DdpOptions options{.static_graph = true};
  fixtures::expectSameTensors(train(true, options), train(false, options),
                              tolerance());
}

}  // namespace
}  // namespace checkpoint_suite
