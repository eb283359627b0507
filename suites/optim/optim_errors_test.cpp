// What the functional optimizers and hookThenOptimizer refuse: the option
// sets libtorch's optimizers refuse too, and bad arguments.

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "distalgo/hooks/default_hooks.h"
#include "distalgo/optim/functional_adam.h"
#include "distalgo/optim/functional_sgd.h"
#include "distalgo/optim/hook_then_optimizer.h"

namespace {

using distalgo::optim::AdamOptions;
using distalgo::optim::AdamWOptions;
using distalgo::optim::FunctionalAdam;
using distalgo::optim::FunctionalAdamW;
using distalgo::optim::FunctionalSgd;
using distalgo::optim::SgdOptions;
using testing::AllOf;
using testing::HasSubstr;
using testing::ThrowsMessage;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

struct BadSgd {
  SgdOptions options;
  std::string message;
};

TEST(OptimErrors, SgdRefusesWhatLibtorchRefuses) {
  const std::vector<at::Tensor> params{at::zeros({2})};
  const std::vector<BadSgd> cases = {
      {{.lr = -0.1}, "invalid lr -0.1, expected >= 0"},
      {{.lr = kNan}, "invalid lr nan, expected >= 0"},
      {{.momentum = -0.5}, "invalid momentum -0.5, expected >= 0"},
      {{.weight_decay = -1}, "invalid weight_decay -1, expected >= 0"},
      {{.nesterov = true}, "nesterov momentum requires a momentum > 0"},
      {{.momentum = 0.9, .dampening = 0.1, .nesterov = true},
       "and zero dampening"},
  };
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.message);
    EXPECT_THAT([&] { FunctionalSgd sgd(bad.options); },
                ThrowsMessage<std::invalid_argument>(
                    AllOf(HasSubstr("distalgo::optim::FunctionalSgd: "),
                          HasSubstr(bad.message))));
    const auto& o = bad.options;
    EXPECT_THROW(torch::optim::SGD(params, torch::optim::SGDOptions(o.lr)
                                               .momentum(o.momentum)
                                               .dampening(o.dampening)
                                               .weight_decay(o.weight_decay)
                                               .nesterov(o.nesterov)),
                 c10::Error);
  }
}

struct BadAdam {
  AdamOptions options;
  std::string message;
};

TEST(OptimErrors, AdamAndAdamWRefuseWhatLibtorchRefuses) {
  const std::vector<at::Tensor> params{at::zeros({2})};
  const std::vector<BadAdam> cases = {
      {{.lr = -1e-3}, "invalid lr -0.001, expected >= 0"},
      {{.eps = -1}, "invalid eps -1, expected >= 0"},
      {{.betas = {1.0, 0.999}}, "invalid betas.first 1, expected in [0, 1)"},
      {{.betas = {0.9, -0.1}}, "invalid betas.second -0.1, expected in [0, 1)"},
      {{.weight_decay = -0.1}, "invalid weight_decay -0.1, expected >= 0"},
  };
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.message);
    const auto& o = bad.options;
    const AdamWOptions w{.lr = o.lr,
                         .betas = o.betas,
                         .eps = o.eps,
                         .weight_decay = o.weight_decay};
    EXPECT_THAT([&] { FunctionalAdam adam(o); },
                ThrowsMessage<std::invalid_argument>(
                    AllOf(HasSubstr("distalgo::optim::FunctionalAdam: "),
                          HasSubstr(bad.message))));
    EXPECT_THAT([&] { FunctionalAdamW adamw(w); },
                ThrowsMessage<std::invalid_argument>(
                    AllOf(HasSubstr("distalgo::optim::FunctionalAdamW: "),
                          HasSubstr(bad.message))));
    const auto betas = std::make_tuple(o.betas.first, o.betas.second);
    EXPECT_THROW(torch::optim::Adam(params, torch::optim::AdamOptions(o.lr)
                                                .betas(betas)
                                                .eps(o.eps)
                                                .weight_decay(o.weight_decay)),
                 c10::Error);
    EXPECT_THROW(torch::optim::AdamW(params, torch::optim::AdamWOptions(o.lr)
                                                 .betas(betas)
                                                 .eps(o.eps)
                                                 .weight_decay(w.weight_decay)),
                 c10::Error);
  }
}

TEST(OptimErrors, StepRefusesMismatchedGradients) {
  FunctionalSgd sgd({.lr = 0.1});
  FunctionalAdamW adamw;
  const auto param = at::zeros({2, 3});
  EXPECT_THAT(
      [&] {
        sgd.step({param, param}, {at::ones({2, 3})});
      },
      ThrowsMessage<std::invalid_argument>(
          HasSubstr("expected one gradient per parameter (2), found "
                    "1")));
  EXPECT_THAT(
      [&] {
        adamw.stepParam(param, at::ones({3, 2}));
      },
      ThrowsMessage<std::invalid_argument>(
          HasSubstr("FunctionalAdamW: the gradient's shape [3, 2] "
                    "differs from the parameter's [2, 3]")));
  EXPECT_THAT(
      [&] {
        sgd.stepParam(param, at::ones({2, 3}).to_sparse());
      },
      ThrowsMessage<std::invalid_argument>(
          HasSubstr("FunctionalSgd: sparse gradients are not supported")));
  // Nothing was stepped by the refused calls.
  EXPECT_TRUE(at::equal(param, at::zeros({2, 3})));
}

TEST(OptimErrors, HookThenOptimizerNeedsAHookAndAnOptimizer) {
  EXPECT_THAT(
      [&] {
        distalgo::optim::hookThenOptimizer(distalgo::hooks::noopHook(),
                                           nullptr);
      },
      ThrowsMessage<std::invalid_argument>(
          HasSubstr("hookThenOptimizer: expected an optimizer, found "
                    "nullptr")));
  EXPECT_THAT(
      [&] {
        distalgo::optim::hookThenOptimizer({},
                                           std::make_shared<FunctionalSgd>());
      },
      ThrowsMessage<std::invalid_argument>(
          HasSubstr("hookThenOptimizer: expected a hook, found none")));
}

}  // namespace
