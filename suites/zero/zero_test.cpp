// ZeRO against the plain libtorch optimizer under DDP, its per-rank state
// memory, and its refusals of bad input.

#include <gmock/gmock.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "distalgo/zero/state_bytes.h"
#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/bucketed_models.h"
#include "fixtures/compare.h"
#include "fixtures/ddp_training.h"
#include "fixtures/models.h"
#include "ranktest/ranktest.h"
#include "zero_parity.h"

namespace zero_suite {
namespace {

using distalgo::zero::ZeroRedundancyOptimizer;
using testing::AllOf;
using testing::HasSubstr;
using testing::ThrowsMessage;

constexpr int kZeroSteps = 5;

class ZeroParity : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }

 protected:
  // The MLP under DDP for kZeroSteps steps on this rank's device,
  // `make_step` building the optimizer; `training` for another model.
  // Returns the final parameters.
  std::vector<at::Tensor> train(
      const std::function<fixtures::OptimizerStep(fixtures::SequentialDdp&)>&
          make_step,
      fixtures::DdpTraining training = {}) {
    training.device = device();
    training.rank = rank();
    training.rows = kParityRows;
    training.steps = kZeroSteps;
    training.make_step = make_step;
    return fixtures::trainUnderDdp(pg(), training).parameters;
  }
  std::vector<at::Tensor> trainPlain(const OptimizerCase& optimizer) {
    std::unique_ptr<torch::optim::Optimizer> plain;
    return train([&](fixtures::SequentialDdp& ddp) {
      plain = optimizer.factory(twoGroups(ddp.module(), optimizer));
      return [&] { plain->step(); };
    });
  }
  std::vector<at::Tensor> trainZero(const OptimizerCase& optimizer,
                                    distalgo::zero::ZeroOptions options) {
    std::unique_ptr<ZeroRedundancyOptimizer> zero;
    return train([&](fixtures::SequentialDdp& ddp) {
      zero = std::make_unique<ZeroRedundancyOptimizer>(
          twoGroups(ddp.module(), optimizer), pg(), optimizer.factory, options);
      return [&] { zero->step(); };
    });
  }
  // ZeRO equals the plain optimizer for every optimizer case, with and
  // without bucket views.
  void expectZeroEqualsThePlainOptimizer() {
    for (const auto& optimizer : optimizerCases()) {
      for (const bool bucket_view : {false, true}) {
        SCOPED_TRACE(optimizer.name + (bucket_view ? ", bucket view" : ""));
        const auto expected = trainPlain(optimizer);
        const auto actual =
            trainZero(optimizer, {.parameters_as_bucket_view = bucket_view});
        fixtures::expectSameTensors(actual, expected, optimizer.tolerance);
        // The training moved the parameters: the comparison is not vacuous.
        EXPECT_FALSE(expected[0].equal(fixtures::makeMlp(1)->parameters()[0]));
      }
    }
  }
};

RANKTEST_F(ZeroParity, DdpPlusZeroEqualsDdpPlusLocalOptimizer) {
  expectZeroEqualsThePlainOptimizer();
}

// The same with CUDA parameters, optimizer state and buckets: NCCL at one
// rank per GPU, Gloo at two ranks (which may share a GPU).
class ZeroCuda : public ZeroParity {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {1, 2}, .on_cuda = true};
  }
};

RANKTEST_F(ZeroCuda, DdpPlusZeroEqualsDdpPlusLocalOptimizerOnTheGpu) {
  ASSERT_TRUE(device().is_cuda());
  expectZeroEqualsThePlainOptimizer();
}

// Models of several buckets, over a million parameters in the large ones:
// ZeRO's partition spreads them over the ranks (one group, lr 0.05).
RANKTEST_F(ZeroParity, DdpPlusZeroEqualsDdpPlusLocalOptimizerOnBucketedModels) {
  const auto cases = optimizerCases();
  for (const auto& model : fixtures::bucketedModels()) {
    for (const auto& optimizer : {cases[0], cases[1]}) {  // SGD, Adam
      SCOPED_TRACE(model.name + ", " + optimizer.name);
      const auto group = [&](fixtures::SequentialDdp& ddp) {
        return std::vector<torch::optim::OptimizerParamGroup>{
            {ddp.module()->parameters(), optimizer.options(0.05)}};
      };
      std::unique_ptr<torch::optim::Optimizer> plain;
      const auto expected = train(
          [&](fixtures::SequentialDdp& ddp) {
            plain = optimizer.factory(group(ddp));
            return [&] { plain->step(); };
          },
          fixtures::ddpTrainingOf(model));
      std::unique_ptr<ZeroRedundancyOptimizer> zero;
      const auto actual = train(
          [&](fixtures::SequentialDdp& ddp) {
            zero = std::make_unique<ZeroRedundancyOptimizer>(group(ddp), pg(),
                                                             optimizer.factory);
            return [&] { zero->step(); };
          },
          fixtures::ddpTrainingOf(model));
      fixtures::expectSameTensors(actual, expected, optimizer.tolerance);
    }
  }
}

RANKTEST_F(ZeroParity, ClosureLossIsReturnedAndStepMatches) {
  const auto sgd = optimizerCases().front();
  std::vector<double> losses;
  auto model = fixtures::makeMlp(/*seed=*/1);
  auto reference = fixtures::makeMlp(/*seed=*/1);
  ZeroRedundancyOptimizer zero(model->parameters(), pg(), sgd.factory);
  auto plain =
      sgd.factory({torch::optim::OptimizerParamGroup(reference->parameters())});
  // The same full-batch loss on every rank: no DDP needed.
  const auto input = at::ones({2, fixtures::kMlpInputs});
  auto closureOf = [&](torch::nn::Sequential& m) {
    return [&m, &input] {
      m->zero_grad(/*set_to_none=*/false);
      auto loss = m->forward(input).square().mean();
      loss.backward();
      return loss;
    };
  };
  const at::Tensor loss = zero.step(closureOf(model));
  const at::Tensor expected_loss = plain->step(closureOf(reference));
  ASSERT_TRUE(loss.defined());
  EXPECT_TRUE(loss.equal(expected_loss));
  for (std::size_t i = 0; i < model->parameters().size(); ++i) {
    EXPECT_TRUE(model->parameters()[i].equal(reference->parameters()[i]));
  }
  EXPECT_FALSE(zero.step().defined());
}

// Per-rank Adam state after one step, summed over the state tensors of the
// local optimizer, against the plain optimizer over all parameters.
RANKTEST_F(ZeroParity, AdamStateIsAboutOneWthPerRank) {
  // Twelve parameters of 100..1200 elements: the greedy rule balances them
  // to within the largest one.
  std::vector<at::Tensor> params;
  for (int i = 1; i <= 12; ++i) {
    params.push_back(at::zeros({std::int64_t{100} * i}).requires_grad_());
  }
  for (auto& p : params) p.mutable_grad() = at::ones_like(p);
  auto factory = distalgo::zero::localOptimizer<torch::optim::Adam>(
      torch::optim::AdamOptions(1e-3));
  ZeroRedundancyOptimizer zero(params, pg(), factory);
  zero.step();
  auto plain = factory({torch::optim::OptimizerParamGroup(params)});
  plain->step();

  const std::int64_t total = distalgo::zero::optimizerStateBytes(*plain);
  const std::int64_t local =
      distalgo::zero::optimizerStateBytes(zero.localOptimizer());
  EXPECT_EQ(zero.stateBytes(), local);  // no overlap: the local optimizer's
  // Two state tensors (exp_avg, exp_avg_sq) of float.
  const std::int64_t largest = std::int64_t{2} * 1200 * sizeof(float);
  EXPECT_NEAR(static_cast<double>(local),
              static_cast<double>(total) / worldSize(),
              static_cast<double>(largest))
      << "local " << local << " of " << total;
  // The shards add up to the whole state exactly.
  std::vector<at::Tensor> sum{at::full({1}, local, at::kLong)};
  pg()->allreduce(sum)->wait();
  EXPECT_EQ(sum[0].item<std::int64_t>(), total);
}

class ZeroBadInput : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }

 protected:
  distalgo::zero::LocalOptimizerFactory sgd_ =
      distalgo::zero::localOptimizer<torch::optim::SGD>(
          torch::optim::SGDOptions(0.1));
};

// Refused before any collective, so every rank refuses alike.
RANKTEST_F(ZeroBadInput, EmptyParameterListIsRefused) {
  EXPECT_THAT(
      [&] {
        ZeroRedundancyOptimizer zero(std::vector<at::Tensor>{}, pg(), sgd_);
      },
      ThrowsMessage<std::invalid_argument>(
          HasSubstr("got an empty parameter list")));
  std::vector<torch::optim::OptimizerParamGroup> empty_groups{
      torch::optim::OptimizerParamGroup(std::vector<at::Tensor>{})};
  EXPECT_THAT([&] { ZeroRedundancyOptimizer zero(empty_groups, pg(), sgd_); },
              ThrowsMessage<std::invalid_argument>(
                  HasSubstr("got an empty parameter list")));
}

RANKTEST_F(ZeroBadInput, ParameterInTwoGroupsIsRefused) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  auto params = model->parameters();
  std::vector<torch::optim::OptimizerParamGroup> groups{
      torch::optim::OptimizerParamGroup(
          std::vector<at::Tensor>{params[0], params[1]}),
      torch::optim::OptimizerParamGroup(
          std::vector<at::Tensor>{params[2], params[0]})};
  EXPECT_THAT([&] { ZeroRedundancyOptimizer zero(groups, pg(), sgd_); },
              ThrowsMessage<std::invalid_argument>(
                  HasSubstr("parameter 1 of group 1 already appears")));
}

// Caught by the construction check on every rank, before any broadcast could
// mismatch.
RANKTEST_F(ZeroBadInput, MismatchedParametersAcrossRanksAreRefused) {
  std::vector<at::Tensor> params{at::zeros({4, 3}).requires_grad_(),
                                 at::zeros({rank() == 1 ? 5 : 3})};
  EXPECT_THAT([&] { ZeroRedundancyOptimizer zero(params, pg(), sgd_); },
              ThrowsMessage<std::invalid_argument>(AllOf(
                  HasSubstr("needs the same parameters on every rank"),
                  HasSubstr("group 0, parameter 1"),
                  HasSubstr("rank 1 has Float[5], rank 0 has Float[3]"))));
}

RANKTEST_F(ZeroBadInput, DifferentGroupSplitsAcrossRanksAreRefused) {
  std::vector<at::Tensor> params{at::zeros({2}).requires_grad_(),
                                 at::zeros({2}).requires_grad_()};
  std::vector<torch::optim::OptimizerParamGroup> groups;
  if (rank() == 0) {
    groups.emplace_back(params);
  } else {
    groups.emplace_back(std::vector<at::Tensor>{params[0]});
    groups.emplace_back(std::vector<at::Tensor>{params[1]});
  }
  EXPECT_THAT([&] { ZeroRedundancyOptimizer zero(groups, pg(), sgd_); },
              ThrowsMessage<std::invalid_argument>(
                  HasSubstr("rank 1 has parameter groups of sizes [1, 1], "
                            "rank 0 has [2]")));
}

}  // namespace
}  // namespace zero_suite
