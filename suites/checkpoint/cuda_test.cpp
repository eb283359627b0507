// CheckpointWrapper on a GPU: offloading keeps the block's saved input in
// CPU memory, and dropout replays its masks from the CUDA random state; the
// outputs and gradients equal the plain block's on the GPU bit for bit.
// Skipped (code 74) where no GPU is visible.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "checkpoint_support.h"
#include "distalgo/checkpoint/checkpoint_wrapper.h"
#include "distalgo/checkpoint/internal/saved_inputs.h"
#include "fixtures/compare.h"
#include "ranktest/ranktest.h"

namespace checkpoint_suite {
namespace {

using distalgo::checkpoint::CheckpointOptions;
using distalgo::checkpoint::CheckpointWrapper;

// No collectives: one rank, or two sharing the GPUs.
class CheckpointCuda : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {1, 2}, .on_cuda = true};
  }

 protected:
  Pass pass(torch::nn::Module& module,
            const std::function<at::Tensor(const at::Tensor&)>& forward) {
    return runPass(
        module, {input(2).to(device())},
        [&](const std::vector<at::Tensor>& in) { return forward(in[0]); });
  }
  static void expectSamePass(const Pass& actual, const Pass& expected) {
    EXPECT_TRUE(actual.output.equal(expected.output)) << "outputs differ";
    fixtures::expectSameTensors(actual.grads, expected.grads, fixtures::kExact);
  }
};

RANKTEST_F(CheckpointCuda, OffloadKeepsTheSavedInputInCpuMemory) {
  ASSERT_TRUE(device().is_cuda());
  auto block = makeBlock(1);
  block->to(device());
  const Pass expected =
      pass(*block, [&](const at::Tensor& x) { return block->forward(x); });
  CheckpointWrapper wrapper(block, CheckpointOptions{.offload_to_cpu = true});
  const at::Tensor y = wrapper->forward(input(2).to(device()));
  EXPECT_TRUE(y.is_cuda());
  const auto saved = distalgo::checkpoint::internal::savedInputs(y);
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_TRUE(saved[0].device().is_cpu());
  const Pass actual =
      pass(*wrapper, [&](const at::Tensor& x) { return wrapper->forward(x); });
  ASSERT_TRUE(actual.grads.back().is_cuda());
  expectSamePass(actual, expected);
}

RANKTEST_F(CheckpointCuda, DropoutReplaysTheSameMasksFromTheCudaRandomState) {
  auto block = makeBlock(1, /*dropout=*/true);
  block->to(device());
  torch::manual_seed(5);  // seeds the CUDA generators too
  const Pass expected =
      pass(*block, [&](const at::Tensor& x) { return block->forward(x); });
  CheckpointWrapper wrapper(block);
  torch::manual_seed(5);
  expectSamePass(
      pass(*wrapper, [&](const at::Tensor& x) { return wrapper->forward(x); }),
      expected);
}

}  // namespace
}  // namespace checkpoint_suite
