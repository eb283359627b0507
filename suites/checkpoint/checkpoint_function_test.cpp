// distalgo::checkpoint::checkpoint, the function under the wrapper: several
// outputs, undefined inputs, grad mode off, autocast.

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <vector>

#include "checkpoint_support.h"
#include "distalgo/checkpoint/checkpoint.h"
#include "distalgo/checkpoint/internal/saved_inputs.h"
#include "fixtures/compare.h"
#include "torch_compat/autocast.h"

namespace checkpoint_suite {
namespace {

using distalgo::checkpoint::checkpoint;

// Two outputs from two inputs, the second of which may be absent.
std::vector<at::Tensor> twoOutputs(const std::vector<at::Tensor>& in,
                                   const at::Tensor& weight) {
  at::Tensor h = at::matmul(in[0], weight).sin();
  if (in[1].defined()) h = h + in[1];
  return {h.sum(1), h.exp()};
}

at::Tensor weight() {
  auto generator = at::detail::createCPUGenerator(7);
  return at::randn({kWidth, kWidth}, generator).requires_grad_();
}

std::vector<at::Tensor> gradients(const std::vector<at::Tensor>& outputs,
                                  const std::vector<at::Tensor>& targets) {
  return torch::autograd::grad({outputs[0].sum() + outputs[1].mean()}, targets);
}

TEST(CheckpointFunction, SeveralOutputsEqualThePlainComputation) {
  const at::Tensor w = weight();
  const at::Tensor a = input(2), b = input(3);
  const auto expected = gradients(twoOutputs({a, b}, w), {a, b, w});
  const auto run = [&](const std::vector<at::Tensor>& in) {
    return twoOutputs(in, w);
  };
  const auto actual = gradients(checkpoint(run, {a, b}, {w}), {a, b, w});
  fixtures::expectSameTensors(actual, expected, fixtures::kExact);
}

TEST(CheckpointFunction, AnUndefinedInputStaysUndefined) {
  const at::Tensor w = weight();
  const at::Tensor a = input(2);
  const auto expected = gradients(twoOutputs({a, at::Tensor()}, w), {a, w});
  const auto run = [&](const std::vector<at::Tensor>& in) {
    EXPECT_FALSE(in[1].defined());
    return twoOutputs(in, w);
  };
  const auto outputs =
      checkpoint(run, {a, at::Tensor()}, {w}, {.offload_to_cpu = true});
  EXPECT_EQ(distalgo::checkpoint::internal::savedInputs(outputs[0]).size(), 1u);
  fixtures::expectSameTensors(gradients(outputs, {a, w}), expected,
                              fixtures::kExact);
}

TEST(CheckpointFunction, WithoutGradModeOnlyRuns) {
  at::NoGradGuard no_grad;
  const at::Tensor w = weight();
  int runs = 0;
  const auto outputs = checkpoint(
      [&](const std::vector<at::Tensor>& in) {
        ++runs;
        return twoOutputs(in, w);
      },
      {input(2), input(3)}, {w});
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(outputs[0].requires_grad());
  EXPECT_TRUE(distalgo::checkpoint::internal::savedInputs(outputs[0]).empty());
}

// A forward run under CPU autocast (matmul in bfloat16) is recomputed under
// it too, though backward runs with autocast off: the gradients equal the
// plain computation's under autocast, bit for bit, and the recompute leaves
// autocast as it found it.
TEST(CheckpointFunction, RecomputesUnderTheForwardsAutocast) {
  const at::Tensor w = weight();
  const at::Tensor a = input(2), b = input(3);
  const auto run = [&](const std::vector<at::Tensor>& in) {
    return twoOutputs(in, w);
  };
  torch_compat::AutocastState autocast;
  autocast.cpu_enabled = true;
  autocast.cpu_dtype = at::kBFloat16;
  std::vector<at::Tensor> expected_outputs, outputs;
  {
    torch_compat::AutocastStateGuard guard(autocast);
    ASSERT_EQ(at::matmul(a, w).scalar_type(), at::kBFloat16);
    expected_outputs = twoOutputs({a, b}, w);
    outputs = checkpoint(run, {a, b}, {w});
  }
  ASSERT_FALSE(torch_compat::autocastState().cpu_enabled);
  const auto expected = gradients(expected_outputs, {a, b, w});
  fixtures::expectSameTensors(gradients(outputs, {a, b, w}), expected,
                              fixtures::kExact);
  EXPECT_FALSE(torch_compat::autocastState().cpu_enabled);
}

}  // namespace
}  // namespace checkpoint_suite
