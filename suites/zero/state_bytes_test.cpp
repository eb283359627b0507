// distalgo::zero::optimizerStateBytes against the state each libtorch
// optimizer is known to keep: one process, no group.

#include "distalgo/zero/state_bytes.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/lbfgs.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

// Two float parameters of 30 and 70 elements, with gradients.
class ZeroStateBytes : public ::testing::Test {
 protected:
  ZeroStateBytes() {
    for (auto& p : params_) p.mutable_grad() = at::ones_like(p);
  }

  // Bytes of `tensors` float tensors per element of every parameter.
  static std::int64_t floats(int tensors) {
    return std::int64_t{tensors} * 100 *
           static_cast<std::int64_t>(sizeof(float));
  }

  std::vector<at::Tensor> params_{at::zeros({30}).requires_grad_(),
                                  at::zeros({7, 10}).requires_grad_()};
};

TEST_F(ZeroStateBytes, NoStateBeforeTheFirstStep) {
  torch::optim::Adam adam(params_, torch::optim::AdamOptions(0.1));
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(adam), 0);
}

TEST_F(ZeroStateBytes, CountsEveryDefinedStateTensor) {
  torch::optim::SGD plain_sgd(params_, torch::optim::SGDOptions(0.1));
  torch::optim::SGD sgd(params_, torch::optim::SGDOptions(0.1).momentum(0.9));
  torch::optim::Adam adam(params_, torch::optim::AdamOptions(0.1));
  torch::optim::Adam amsgrad(params_,
                             torch::optim::AdamOptions(0.1).amsgrad(true));
  torch::optim::AdamW adamw(params_, torch::optim::AdamWOptions(0.1));
  torch::optim::RMSprop rmsprop(
      params_, torch::optim::RMSpropOptions(0.1).momentum(0.9).centered(true));
  for (torch::optim::Optimizer* o : std::vector<torch::optim::Optimizer*>{
           &plain_sgd, &sgd, &adam, &amsgrad, &adamw, &rmsprop}) {
    o->step();
  }
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(plain_sgd), 0);
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(sgd), floats(1));
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(adam), floats(2));
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(amsgrad), floats(3));
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(adamw), floats(2));
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(rmsprop), floats(3));
}

TEST_F(ZeroStateBytes, AdagradHasItsStateFromConstruction) {
  torch::optim::Adagrad adagrad(params_, torch::optim::AdagradOptions(0.1));
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(adagrad), floats(1));
}

TEST_F(ZeroStateBytes, UnknownStateTypeIsRefused) {
  torch::optim::LBFGS lbfgs(params_, torch::optim::LBFGSOptions(0.1));
  lbfgs.step([&] { return (params_[0].sum() + params_[1].sum()); });
  EXPECT_THROW(distalgo::zero::optimizerStateBytes(lbfgs),
               std::invalid_argument);
}

}  // namespace
