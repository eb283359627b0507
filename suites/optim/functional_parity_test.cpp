// The functional optimizers alone against libtorch's, step by step and bit
// for bit (PyTorch's test_functional_optim_parity_*), in one process.

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <vector>

#include "distalgo/optim/functional_adam.h"
#include "distalgo/optim/functional_sgd.h"
#include "optimizer_cases.h"

namespace optim_suite {
namespace {

constexpr int kSteps = 30;

// A matrix, a vector, a scalar and a double-precision 3-d tensor.
std::vector<at::Tensor> makeParams() {
  auto generator = at::detail::createCPUGenerator(17);
  return {at::randn({4, 3}, generator), at::randn({5}, generator),
          at::randn({}, generator),
          at::randn({2, 3, 2}, generator).to(at::kDouble)};
}

std::vector<at::Tensor> clones(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> out;
  for (const auto& t : tensors) out.push_back(t.clone());
  return out;
}

// The gradients of `step`: random, except that parameter 1 has none every
// fourth step (both optimizers must then leave it and its state alone).
std::vector<at::Tensor> gradients(const std::vector<at::Tensor>& params,
                                  int step) {
  auto generator = at::detail::createCPUGenerator(1000 + step);
  std::vector<at::Tensor> grads;
  for (const auto& p : params) {
    grads.push_back(at::randn(p.sizes(), generator).to(p.scalar_type()));
  }
  if (step % 4 == 3) grads[1] = at::Tensor();
  return grads;
}

class OptimFunctionalParity : public testing::TestWithParam<OptimizerCase> {};

TEST_P(OptimFunctionalParity, EqualsLibtorchStepByStepExactly) {
  auto expected = makeParams();
  auto actual = clones(expected);
  for (auto& p : expected) p.set_requires_grad(true);
  auto libtorch = GetParam().libtorch(expected);
  auto functional = GetParam().functional();
  for (int step = 0; step < kSteps; ++step) {
    const auto grads = gradients(expected, step);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      expected[i].mutable_grad() =
          grads[i].defined() ? grads[i].clone() : grads[i];
    }
    libtorch->step();
    // Both entry points: the whole list, and one parameter at a time.
    if (step % 2 == 0) {
      functional->step(actual, grads);
    } else {
      for (std::size_t i = 0; i < actual.size(); ++i) {
        functional->stepParam(actual[i], grads[i]);
      }
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ASSERT_TRUE(at::equal(actual[i], expected[i].detach()))
          << "step " << step << ", parameter " << i << " differs by "
          << (actual[i] - expected[i].detach()).abs().max().item<double>();
    }
  }
  // The optimizers moved the parameters: the comparison is not vacuous.
  EXPECT_FALSE(at::equal(actual[0], makeParams()[0]));
}

TEST_P(OptimFunctionalParity, StepReadsEachParametersOwnGradient) {
  auto from_list = makeParams();
  auto from_grad = clones(from_list);
  auto list_optimizer = GetParam().functional();
  auto grad_optimizer = GetParam().functional();
  for (int step = 0; step < 3; ++step) {
    const auto grads = gradients(from_list, step);
    for (std::size_t i = 0; i < from_grad.size(); ++i) {
      from_grad[i].mutable_grad() = grads[i];
    }
    list_optimizer->step(from_list, grads);
    grad_optimizer->step(from_grad);
  }
  for (std::size_t i = 0; i < from_list.size(); ++i) {
    EXPECT_TRUE(at::equal(from_list[i], from_grad[i])) << "parameter " << i;
  }
}

// A complex parameter steps as its real and imaginary parts under Adam and
// AdamW, as PyTorch's Adam views it (view_as_real): bit for bit what
// libtorch's optimizer does over that real view. (libtorch's Adam on the
// complex tensor itself would square the complex gradient.)
class OptimFunctionalComplex : public testing::TestWithParam<OptimizerCase> {};

TEST_P(OptimFunctionalComplex, ParameterStepsAsItsRealParts) {
  auto generator = at::detail::createCPUGenerator(23);
  at::Tensor complex = at::randn({4, 3}, generator,
                                 at::TensorOptions().dtype(at::kComplexFloat));
  const at::Tensor real = at::view_as_real(complex).clone().requires_grad_();
  const at::Tensor initial = real.detach().clone();
  auto libtorch = GetParam().libtorch({real});
  auto functional = GetParam().functional();
  for (int step = 0; step < kSteps; ++step) {
    const at::Tensor grad = at::randn(
        {4, 3}, generator, at::TensorOptions().dtype(at::kComplexFloat));
    real.mutable_grad() = at::view_as_real(grad).clone();
    libtorch->step();
    functional->stepParam(complex, grad);
    ASSERT_TRUE(at::equal(at::view_as_real(complex), real.detach()))
        << "step " << step;
  }
  EXPECT_FALSE(at::equal(real.detach(), initial));
}

std::string caseName(const testing::TestParamInfo<OptimizerCase>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Sgd, OptimFunctionalParity,
                         testing::ValuesIn(sgdCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Adam, OptimFunctionalParity,
                         testing::ValuesIn(adamCases()), caseName);
INSTANTIATE_TEST_SUITE_P(AdamW, OptimFunctionalParity,
                         testing::ValuesIn(adamWCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Adam, OptimFunctionalComplex,
                         testing::ValuesIn(adamCases()), caseName);
INSTANTIATE_TEST_SUITE_P(AdamW, OptimFunctionalComplex,
                         testing::ValuesIn(adamWCases()), caseName);

// libtorch 1.13 has no maximize: ascending g must equal descending -g (the
// negation is exact, so bit for bit).
template <typename Optimizer, typename Options>
void expectMaximizeDescendsTheNegation(Options options) {
  auto ascended = makeParams();
  auto descended = clones(ascended);
  Options maximizing = options;
  maximizing.maximize = true;
  Optimizer up(maximizing), down(options);
  for (int step = 0; step < kSteps; ++step) {
    const auto grads = gradients(ascended, step);
    std::vector<at::Tensor> negated;
    for (const auto& g : grads) negated.push_back(g.defined() ? -g : g);
    up.step(ascended, grads);
    down.step(descended, negated);
  }
  for (std::size_t i = 0; i < ascended.size(); ++i) {
    EXPECT_TRUE(at::equal(ascended[i], descended[i])) << "parameter " << i;
  }
  EXPECT_FALSE(at::equal(ascended[0], makeParams()[0]));
}

TEST(OptimFunctionalMaximize, SgdAscendsAsItDescendsTheNegatedGradient) {
  expectMaximizeDescendsTheNegation<distalgo::optim::FunctionalSgd>(
      distalgo::optim::SgdOptions{
          .lr = 0.05, .momentum = 0.9, .weight_decay = 1e-2, .nesterov = true});
}

TEST(OptimFunctionalMaximize, AdamAscendsAsItDescendsTheNegatedGradient) {
  expectMaximizeDescendsTheNegation<distalgo::optim::FunctionalAdam>(
      distalgo::optim::AdamOptions{
          .lr = 1e-2, .weight_decay = 1e-2, .amsgrad = true});
}

TEST(OptimFunctionalMaximize, AdamWAscendsAsItDescendsTheNegatedGradient) {
  expectMaximizeDescendsTheNegation<distalgo::optim::FunctionalAdamW>(
      distalgo::optim::AdamWOptions{.lr = 1e-2});
}

}  // namespace
}  // namespace optim_suite
