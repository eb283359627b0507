#pragma once

// What the checkpoint tests share: small models built from a seed, and one
// forward and backward that returns everything the wrapper must not change.

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/utils.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace checkpoint_suite {

inline constexpr int kWidth = 8;
inline constexpr int kRows = 5;

// Linear(8, 32) -> GELU -> [Dropout(0.5)] -> Linear(32, 8): a transformer
// MLP block, whose activations are four times wider than its input.
inline torch::nn::Sequential makeBlock(std::uint64_t seed,
                                       bool dropout = false) {
  torch::manual_seed(seed);
  torch::nn::Sequential block(torch::nn::Linear(kWidth, 4 * kWidth),
                              torch::nn::GELU());
  if (dropout) block->push_back(torch::nn::Dropout(0.5));
  block->push_back(torch::nn::Linear(4 * kWidth, kWidth));
  return block;
}

// A forward with two tensors and a number: scale * first(a) + tanh(second(b)).
class MixImpl : public torch::nn::Module {
 public:
  MixImpl()
      : first_(register_module("first", torch::nn::Linear(kWidth, kWidth))),
        second_(register_module("second", torch::nn::Linear(kWidth, kWidth))) {}
  at::Tensor forward(const at::Tensor& a, const at::Tensor& b, double scale) {
    return first_->forward(a) * scale + second_->forward(b).tanh();
  }

 private:
  torch::nn::Linear first_, second_;
};
TORCH_MODULE(Mix);

// An input that requires grad, from a seed.
inline at::Tensor input(std::uint64_t seed) {
  auto generator = at::detail::createCPUGenerator(seed);
  return at::randn({kRows, kWidth}, generator).requires_grad_(true);
}

// The output of one forward, and after one backward with a fixed upstream
// gradient, the gradients of the inputs and then of every parameter.
struct Pass {
  at::Tensor output;
  std::vector<at::Tensor> grads;
};

// Runs forward(inputs) and its backward on `module`'s parameters, whose
// gradients it clears first and leaves set.
inline Pass runPass(
    torch::nn::Module& module, const std::vector<at::Tensor>& inputs,
    const std::function<at::Tensor(const std::vector<at::Tensor>&)>& forward) {
  std::vector<at::Tensor> leaves;
  for (const auto& x : inputs) leaves.push_back(x.detach().requires_grad_());
  for (auto& p : module.parameters()) p.mutable_grad() = at::Tensor();
  Pass pass;
  pass.output = forward(leaves);
  auto generator = at::detail::createCPUGenerator(99);
  pass.output.backward(
      at::randn(pass.output.sizes(), generator).to(pass.output.device()));
  for (const auto& x : leaves) pass.grads.push_back(x.grad());
  for (const auto& p : module.parameters()) pass.grads.push_back(p.grad());
  pass.output = pass.output.detach();
  return pass;
}

}  // namespace checkpoint_suite
