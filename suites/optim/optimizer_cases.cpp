#include "optimizer_cases.h"

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <tuple>

#include "distalgo/optim/functional_adam.h"
#include "distalgo/optim/functional_sgd.h"

namespace optim_suite {
namespace {

using distalgo::optim::AdamOptions;
using distalgo::optim::AdamWOptions;
using distalgo::optim::SgdOptions;

OptimizerCase sgdCase(std::string name, SgdOptions o) {
  return {std::move(name),
          [o](std::vector<at::Tensor> params) {
            return std::make_unique<torch::optim::SGD>(
                std::move(params), torch::optim::SGDOptions(o.lr)
                                       .momentum(o.momentum)
                                       .dampening(o.dampening)
                                       .weight_decay(o.weight_decay)
                                       .nesterov(o.nesterov));
          },
          [o] { return std::make_shared<distalgo::optim::FunctionalSgd>(o); }};
}

// Adam and AdamW take the same options in both libraries.
template <typename Torch, typename TorchOptions, typename Functional,
          typename Options>
OptimizerCase adamCase(std::string name, Options o) {
  return {std::move(name),
          [o](std::vector<at::Tensor> params) {
            return std::make_unique<Torch>(
                std::move(params),
                TorchOptions(o.lr)
                    .betas(std::make_tuple(o.betas.first, o.betas.second))
                    .eps(o.eps)
                    .weight_decay(o.weight_decay)
                    .amsgrad(o.amsgrad));
          },
          [o] { return std::make_shared<Functional>(o); }};
}

OptimizerCase adam(std::string name, AdamOptions o) {
  return adamCase<torch::optim::Adam, torch::optim::AdamOptions,
                  distalgo::optim::FunctionalAdam>(std::move(name), o);
}

OptimizerCase adamW(std::string name, AdamWOptions o) {
  return adamCase<torch::optim::AdamW, torch::optim::AdamWOptions,
                  distalgo::optim::FunctionalAdamW>(std::move(name), o);
}

}  // namespace

std::vector<OptimizerCase> sgdCases() {
  return {
      sgdCase("SgdPlain", {.lr = 0.1}),
      sgdCase("SgdMomentum", {.lr = 0.05, .momentum = 0.9}),
      sgdCase("SgdDampeningDecay", {.lr = 0.05,
                                    .momentum = 0.8,
                                    .dampening = 0.3,
                                    .weight_decay = 1e-2}),
      sgdCase("SgdNesterov", {.lr = 0.05,
                              .momentum = 0.9,
                              .weight_decay = 1e-3,
                              .nesterov = true}),
  };
}

std::vector<OptimizerCase> adamCases() {
  return {
      adam("AdamDefaults", {}),
      adam("AdamBetasDecay", {.lr = 1e-2,
                              .betas = {0.8, 0.99},
                              .eps = 1e-6,
                              .weight_decay = 1e-2}),
      adam("AdamAmsgrad", {.lr = 1e-2, .amsgrad = true}),
      adam("AdamAmsgradDecay",
           {.lr = 5e-3, .weight_decay = 0.1, .amsgrad = true}),
  };
}

std::vector<OptimizerCase> adamWCases() {
  return {
      adamW("AdamWDefaults", {}),
      adamW("AdamWNoDecay", {.lr = 1e-2, .weight_decay = 0}),
      adamW("AdamWAmsgrad", {.lr = 1e-2, .amsgrad = true}),
      adamW("AdamWStrongDecay",
            {.lr = 2e-2, .betas = {0.85, 0.95}, .weight_decay = 0.5}),
  };
}

}  // namespace optim_suite
