// Peak activation memory of a deep MLP with every block checkpointed is
// lower than without, counted by a CountingCpuAllocator (the bytes of live
// tensor allocations; see fixtures/activation_memory.h).

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "distalgo/checkpoint/apply_activation_checkpointing.h"
#include "fixtures/activation_memory.h"
#include "fixtures/deep_mlp.h"

namespace checkpoint_suite {
namespace {

constexpr int kMemoryDepth = 16;
constexpr int kMemoryWidth = 64;
constexpr int kBatch = 128;

fixtures::ActivationMemory measure(bool wrap) {
  auto model = fixtures::makeDeepMlp(kMemoryDepth, kMemoryWidth, /*seed=*/1);
  if (wrap) {
    distalgo::checkpoint::applyActivationCheckpointing(
        *model, [](const torch::nn::Module& m) {
          return dynamic_cast<const fixtures::MlpBlockImpl*>(&m) != nullptr;
        });
  }
  const at::Tensor x = at::randn({kBatch, kMemoryWidth});
  const auto loss = [&] { return model->forward(x).square().mean(); };
  loss().backward();  // the gradients exist from here on
  return fixtures::measureActivationMemory(loss);
}

TEST(CheckpointMemory, EveryBlockWrappedKeepsUnderAQuarterOfTheActivations) {
  // A plain block keeps its input and two hidden activations four times
  // wider (9 units); a checkpointed one its input (1 unit).
  const auto plain = measure(false);
  const auto wrapped = measure(true);
  const std::int64_t unit = std::int64_t{kBatch} * kMemoryWidth * 4;
  EXPECT_GE(plain.retained, std::int64_t{9} * kMemoryDepth * unit);
  EXPECT_LT(wrapped.retained * 4, plain.retained)
      << "plain " << plain.retained << " bytes, wrapped " << wrapped.retained;
}

TEST(CheckpointMemory, EveryBlockWrappedPeaksUnderHalfThePlainPeak) {
  // The wrapped peak adds one block's recomputed activations to the inputs.
  const auto plain = measure(false);
  const auto wrapped = measure(true);
  EXPECT_LT(wrapped.peak * 2, plain.peak)
      << "plain " << plain.peak << " bytes, wrapped " << wrapped.peak;
}

}  // namespace
}  // namespace checkpoint_suite
