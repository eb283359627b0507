// CheckpointWrapper: outputs and gradients equal those of the plain module
// bit for bit, with dropout, offload, nesting and several inputs; the
// parameters' AccumulateGrad runs once per backward.

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <map>
#include <vector>

#include "checkpoint_support.h"
#include "distalgo/checkpoint/checkpoint_wrapper.h"
#include "distalgo/checkpoint/internal/saved_inputs.h"
#include "fixtures/compare.h"

namespace checkpoint_suite {
namespace {

using distalgo::checkpoint::CheckpointOptions;
using distalgo::checkpoint::CheckpointWrapper;

void expectSamePass(const Pass& actual, const Pass& expected) {
  EXPECT_TRUE(actual.output.equal(expected.output)) << "outputs differ";
  fixtures::expectSameTensors(actual.grads, expected.grads, fixtures::kExact);
}

Pass plainPass(torch::nn::Sequential& block, const at::Tensor& x) {
  return runPass(*block, {x}, [&](const std::vector<at::Tensor>& in) {
    return block->forward(in[0]);
  });
}

Pass wrappedPass(CheckpointWrapper& wrapper, const at::Tensor& x) {
  return runPass(*wrapper, {x}, [&](const std::vector<at::Tensor>& in) {
    return wrapper->forward(in[0]);
  });
}

TEST(CheckpointWrapper, OutputsAndGradientsEqualThePlainModule) {
  auto block = makeBlock(1);
  const Pass expected = plainPass(block, input(2));
  CheckpointWrapper wrapper(block);
  expectSamePass(wrappedPass(wrapper, input(2)), expected);
}

TEST(CheckpointWrapper, KeepsOnlyTheInputForBackward) {
  CheckpointWrapper wrapper(makeBlock(1));
  const at::Tensor x = input(2);
  const at::Tensor y = wrapper->forward(x);
  const auto saved = distalgo::checkpoint::internal::savedInputs(y);
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_TRUE(saved[0].is_same(x));
}

TEST(CheckpointWrapper, DropoutReplaysTheSameMasks) {
  auto block = makeBlock(1, /*dropout=*/true);
  torch::manual_seed(5);
  const Pass expected = plainPass(block, input(2));
  const at::Tensor expected_next = at::rand({4});
  CheckpointWrapper wrapper(block);
  torch::manual_seed(5);
  expectSamePass(wrappedPass(wrapper, input(2)), expected);
  // The recomputation left the caller's random stream where forward did.
  EXPECT_TRUE(at::rand({4}).equal(expected_next));
}

TEST(CheckpointWrapper, WithoutPreservedRngStateDropoutDiffers) {
  // The replay is what makes the dropout test pass.
  auto block = makeBlock(1, /*dropout=*/true);
  torch::manual_seed(5);
  const Pass expected = plainPass(block, input(2));
  CheckpointWrapper wrapper(block,
                            CheckpointOptions{.preserve_rng_state = false});
  torch::manual_seed(5);
  const Pass actual = wrappedPass(wrapper, input(2));
  EXPECT_TRUE(actual.output.equal(expected.output));
  EXPECT_FALSE(actual.grads[0].equal(expected.grads[0]));
}

TEST(CheckpointWrapper, TrainAndEvalReachTheWrappedModule) {
  CheckpointWrapper wrapper(makeBlock(1, /*dropout=*/true));
  wrapper->eval();
  for (const auto& m : wrapper->wrapped()->modules())
    EXPECT_FALSE(m->is_training());
  wrapper->train();
  for (const auto& m : wrapper->wrapped()->modules())
    EXPECT_TRUE(m->is_training());
}

TEST(CheckpointWrapper, ToConvertsTheWrappedModule) {
  // The parameters are the wrapped module's own tensors, converted in place.
  auto block = makeBlock(1);
  CheckpointWrapper wrapper(block);
  wrapper->to(at::kDouble);
  for (const auto& p : block->parameters())
    EXPECT_EQ(p.scalar_type(), at::kDouble);
  const at::Tensor y = wrapper->forward(input(2).to(at::kDouble));
  EXPECT_EQ(y.scalar_type(), at::kDouble);
  y.sum().backward();
  for (const auto& p : block->parameters()) {
    EXPECT_EQ(p.grad().scalar_type(), at::kDouble);
  }
}

TEST(CheckpointWrapper, OffloadKeepsCpuInputsAndTheSameGradients) {
  auto block = makeBlock(1);
  const Pass expected = plainPass(block, input(2));
  CheckpointWrapper wrapper(block, CheckpointOptions{.offload_to_cpu = true});
  const at::Tensor y = wrapper->forward(input(2));
  const auto saved = distalgo::checkpoint::internal::savedInputs(y);
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_TRUE(saved[0].device().is_cpu());
  expectSamePass(wrappedPass(wrapper, input(2)), expected);
}

TEST(CheckpointWrapper, NestedWrappersEqualThePlainModule) {
  // Linear -> block, the block wrapped and the whole wrapped again (with
  // offload, so that both kinds nest).
  auto block = makeBlock(1);
  torch::manual_seed(3);
  torch::nn::Linear first(kWidth, kWidth);
  CheckpointWrapper outer(
      torch::nn::Sequential(first, CheckpointWrapper(block)),
      CheckpointOptions{.offload_to_cpu = true});
  const Pass expected = runPass(*outer, {input(2)}, [&](const auto& in) {
    return block->forward(first->forward(in[0]));
  });
  const Pass actual = runPass(*outer, {input(2)}, [&](const auto& in) {
    return outer->forward(in[0]);
  });
  expectSamePass(actual, expected);
}

TEST(CheckpointWrapper, SeveralTensorsAndANumberEqualThePlainModule) {
  torch::manual_seed(4);
  Mix mix;
  auto forward_plain = [&](const std::vector<at::Tensor>& in) {
    return mix->forward(in[0], in[1], 0.25);
  };
  const Pass expected = runPass(*mix, {input(2), input(3)}, forward_plain);
  CheckpointWrapper wrapper(mix);
  const Pass actual = runPass(*mix, {input(2), input(3)},
                              [&](const std::vector<at::Tensor>& in) {
                                return wrapper->call(in[0], in[1], 0.25);
                              });
  expectSamePass(actual, expected);
}

TEST(CheckpointWrapper, CallWithAnotherArgumentTypeThrowsBeforeRunning) {
  CheckpointWrapper wrapper(Mix{});
  try {
    wrapper->call(input(2), input(3), 1);  // int, not double
    ADD_FAILURE() << "expected c10::Error";
  } catch (const c10::Error& error) {
    EXPECT_NE(error.msg().find("Expected argument #2 to be of type double"),
              std::string::npos)
        << error.msg();
  }
}

TEST(CheckpointWrapper, InputWithoutGradStillGivesParameterGradients) {
  auto block = makeBlock(1);
  const at::Tensor x = input(2).detach();
  block->forward(x).sum().backward();
  std::vector<at::Tensor> expected;
  for (const auto& p : block->parameters()) {
    expected.push_back(p.grad().clone());
    p.mutable_grad() = at::Tensor();
  }
  CheckpointWrapper wrapper(block);
  wrapper->forward(x).sum().backward();
  std::vector<at::Tensor> actual;
  for (const auto& p : block->parameters()) actual.push_back(p.grad());
  fixtures::expectSameTensors(actual, expected, fixtures::kExact);
}

TEST(CheckpointWrapper, AutogradGradWorksThroughTheWrapper) {
  // PyTorch's reentrant checkpoint refuses torch.autograd.grad; here the
  // parameters' gradients leave the node as outputs, so grad() gets them.
  auto block = makeBlock(1);
  const at::Tensor x = input(2);
  const auto expected =
      torch::autograd::grad({block->forward(x).sum()}, block->parameters());
  CheckpointWrapper wrapper(block);
  const auto actual =
      torch::autograd::grad({wrapper->forward(x).sum()}, block->parameters());
  fixtures::expectSameTensors(actual, expected, fixtures::kExact);
}

TEST(CheckpointWrapper, AccumulateGradRunsOncePerParameterAndBackward) {
  // DDP's reducer hooks hang on AccumulateGrad: a second run per backward
  // would mark a parameter ready twice.
  auto block = makeBlock(1);
  torch::manual_seed(3);
  torch::nn::Sequential model(CheckpointWrapper(block),
                              CheckpointWrapper(makeBlock(2)));
  std::map<std::string, int> runs;
  // The variable holds its accumulator weakly; the reducer keeps them too.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;
  for (const auto& p : model->named_parameters()) {
    const std::string name = p.key();
    accumulators.push_back(torch::autograd::impl::grad_accumulator(p.value()));
    accumulators.back()->add_post_hook(
        std::make_unique<torch::autograd::utils::LambdaPostHook>(
            [&runs, name](const torch::autograd::variable_list& outputs,
                          const torch::autograd::variable_list&) {
              ++runs[name];
              return outputs;
            }));
  }
  for (int step = 0; step < 2; ++step) {
    model->forward(input(2)).sum().backward();
  }
  ASSERT_EQ(runs.size(), model->parameters().size());
  for (const auto& [name, count] : runs) EXPECT_EQ(count, 2) << name;
}

}  // namespace
}  // namespace checkpoint_suite
