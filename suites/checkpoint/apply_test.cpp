// applyActivationCheckpointing: wraps every selected module in place, nested
// ones too; names and state-dict keys stay; training is unchanged.

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/nn/functional/loss.h>
#include <torch/serialize.h>

#include <sstream>
#include <string>
#include <vector>

#include "checkpoint_support.h"
#include "distalgo/checkpoint/apply_activation_checkpointing.h"
#include "distalgo/checkpoint/checkpoint_wrapper.h"
#include "fixtures/compare.h"
#include "fixtures/deep_mlp.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"

namespace checkpoint_suite {
namespace {

using distalgo::checkpoint::applyActivationCheckpointing;
using distalgo::checkpoint::CheckpointWrapperImpl;

bool isLinear(const torch::nn::Module& m) {
  return dynamic_cast<const torch::nn::LinearImpl*>(&m) != nullptr;
}
bool isBlock(const torch::nn::Module& m) {
  return dynamic_cast<const fixtures::MlpBlockImpl*>(&m) != nullptr;
}
bool isWrapper(const std::shared_ptr<torch::nn::Module>& m) {
  return std::dynamic_pointer_cast<CheckpointWrapperImpl>(m) != nullptr;
}

std::vector<std::string> stateKeys(const torch::nn::Module& module) {
  std::vector<std::string> keys = module.named_parameters().keys();
  for (const auto& key : module.named_buffers().keys()) keys.push_back(key);
  return keys;
}

// Linear -> BatchNorm -> GELU -> Linear -> GELU -> Linear: parameters and
// buffers.
torch::nn::Sequential makeModel(std::uint64_t seed) {
  torch::manual_seed(seed);
  return torch::nn::Sequential(torch::nn::Linear(kWidth, 16),
                               torch::nn::BatchNorm1d(16), torch::nn::GELU(),
                               torch::nn::Linear(16, 16), torch::nn::GELU(),
                               torch::nn::Linear(16, kWidth));
}

std::vector<double> train(torch::nn::Sequential& model) {
  return fixtures::sgdSteps(model->parameters(), 3, 0.1, [&](int step) {
    const auto b = fixtures::rankBatch(step, 0, kRows, kWidth, kWidth);
    return torch::nn::functional::mse_loss(model->forward(b.input), b.target);
  });
}

TEST(CheckpointApply, WrapsEveryMatchAndKeepsStateDictKeys) {
  auto model = makeModel(1);
  const auto keys = stateKeys(*model);
  EXPECT_EQ(applyActivationCheckpointing(*model, isLinear), 3);
  EXPECT_EQ(stateKeys(*model), keys);
  for (std::size_t i : {0u, 3u, 5u}) EXPECT_TRUE(isWrapper(model->ptr(i)));
  EXPECT_FALSE(isWrapper(model->ptr(1)));
}

TEST(CheckpointApply, StateDictsLoadBothWays) {
  auto wrapped = makeModel(1);
  applyActivationCheckpointing(*wrapped, isLinear);
  auto plain = makeModel(2);
  std::stringstream archive;
  torch::save(wrapped, archive);
  torch::load(plain, archive);
  fixtures::expectSameTensors(fixtures::snapshot(*plain),
                              fixtures::snapshot(*wrapped), fixtures::kExact);

  auto other = makeModel(3);
  applyActivationCheckpointing(*other, isLinear);
  std::stringstream back;
  torch::save(plain, back);
  torch::load(other, back);
  fixtures::expectSameTensors(fixtures::snapshot(*other),
                              fixtures::snapshot(*plain), fixtures::kExact);
}

TEST(CheckpointApply, TrainsExactlyAsThePlainModel) {
  auto plain = makeModel(1);
  const auto expected_losses = train(plain);
  auto wrapped = makeModel(1);
  applyActivationCheckpointing(*wrapped, isLinear);
  EXPECT_EQ(train(wrapped), expected_losses);
  fixtures::expectSameTensors(fixtures::snapshot(*wrapped),
                              fixtures::snapshot(*plain), fixtures::kExact);
}

TEST(CheckpointApply, NestedMatchesAreWrappedInsideOut) {
  auto plain = fixtures::makeDeepMlp(2, kWidth, 1);
  auto model = fixtures::makeDeepMlp(2, kWidth, 1);
  const auto keys = stateKeys(*model);
  const auto either = [](const torch::nn::Module& m) {
    return isLinear(m) || isBlock(m);
  };
  EXPECT_EQ(applyActivationCheckpointing(*model, either), 6);
  EXPECT_EQ(stateKeys(*model), keys);
  for (std::size_t b = 0; b < 2; ++b) {
    ASSERT_TRUE(isWrapper(model->ptr(b)));
    auto& block =
        *std::dynamic_pointer_cast<fixtures::MlpBlockImpl>(
             std::dynamic_pointer_cast<CheckpointWrapperImpl>(model->ptr(b))
                 ->wrapped())
             ->layers();
    EXPECT_TRUE(isWrapper(block.ptr(0)));
    EXPECT_FALSE(isWrapper(block.ptr(1)));
    EXPECT_TRUE(isWrapper(block.ptr(2)));
  }
  const at::Tensor x = input(2);
  const auto expected = runPass(
      *plain, {x}, [&](const auto& in) { return plain->forward(in[0]); });
  const auto actual = runPass(
      *model, {x}, [&](const auto& in) { return model->forward(in[0]); });
  EXPECT_TRUE(actual.output.equal(expected.output));
  fixtures::expectSameTensors(actual.grads, expected.grads, fixtures::kExact);
}

TEST(CheckpointApply, MatchOutsideASequentialThrowsAndChangesNothing) {
  auto model = fixtures::makeUnusedParameterNet(1);
  try {
    applyActivationCheckpointing(*model, isLinear);
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()),
              "distalgo::checkpoint::applyActivationCheckpointing: expected "
              "selected modules inside a Sequential, found 'first' "
              "(torch::nn::LinearImpl) held by a "
              "fixtures::UnusedParameterNetImpl, whose forward cannot be "
              "redirected to a wrapper");
  }
  for (const auto& child : model->children()) EXPECT_FALSE(isWrapper(child));
}

TEST(CheckpointApply, LeavesExistingWrappersAlone) {
  auto model = makeModel(1);
  EXPECT_EQ(applyActivationCheckpointing(*model, isLinear), 3);
  EXPECT_EQ(applyActivationCheckpointing(*model, isLinear), 0);
}

}  // namespace
}  // namespace checkpoint_suite
