// ZeRO against the plain libtorch optimizer under DDP, its per-rank state
// memory, and its refusals of bad input.

#include <gmock/gmock.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/models.h"
#include "ranktest/ranktest.h"
#include "zero_parity.h"

namespace zero_suite {
namespace {

using distalgo::zero::ZeroRedundancyOptimizer;
using testing::HasSubstr;
using testing::ThrowsMessage;

constexpr int kSteps = 5;

double maxDifference(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

class ZeroParity : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }

 protected:
  std::vector<at::Tensor> trainPlain(const OptimizerCase& optimizer) {
    std::unique_ptr<torch::optim::Optimizer> plain;
    return trainWithDdp(pg(), rank(), kSteps, [&](torch::nn::Sequential& m) {
      plain = optimizer.factory(twoGroups(m, optimizer));
      return [&] { plain->step(); };
    });
  }
  std::vector<at::Tensor> trainZero(const OptimizerCase& optimizer) {
    std::unique_ptr<ZeroRedundancyOptimizer> zero;
    return trainWithDdp(pg(), rank(), kSteps, [&](torch::nn::Sequential& m) {
      zero = std::make_unique<ZeroRedundancyOptimizer>(twoGroups(m, optimizer),
                                                       pg(), optimizer.factory);
      return [&] { zero->step(); };
    });
  }
};

RANKTEST_F(ZeroParity, DdpPlusZeroEqualsDdpPlusLocalOptimizer) {
  for (const auto& optimizer : optimizerCases()) {
    SCOPED_TRACE(optimizer.name);
    const auto expected = trainPlain(optimizer);
    const auto actual = trainZero(optimizer);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
      if (optimizer.tolerance == 0) {
        EXPECT_TRUE(actual[i].equal(expected[i]))
            << "parameter " << i << " differs by "
            << maxDifference(actual[i], expected[i]);
      } else {
        EXPECT_LE(maxDifference(actual[i], expected[i]), optimizer.tolerance)
            << "parameter " << i;
      }
    }
    // The training moved the parameters: the comparison is not vacuous.
    EXPECT_FALSE(expected[0].equal(fixtures::makeMlp(1)->parameters()[0]));
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
      m->zero_grad();
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
  auto stateBytes = [](const torch::optim::Optimizer& optimizer) {
    std::int64_t bytes = 0;
    for (const auto& [key, state] : optimizer.state()) {
      const auto& adam =
          dynamic_cast<const torch::optim::AdamParamState&>(*state);
      for (const auto& t :
           {adam.exp_avg(), adam.exp_avg_sq(), adam.max_exp_avg_sq()}) {
        if (t.defined()) bytes += t.numel() * t.element_size();
      }
    }
    return bytes;
  };
  // Twelve parameters of 100..1200 elements: the greedy rule balances them
  // to within the largest one.
  std::vector<at::Tensor> params;
  for (int i = 1; i <= 12; ++i) {
    params.push_back(at::zeros({100 * i}).requires_grad_());
  }
  for (auto& p : params) p.mutable_grad() = at::ones_like(p);
  auto factory = distalgo::zero::localOptimizer<torch::optim::Adam>(
      torch::optim::AdamOptions(1e-3));
  ZeroRedundancyOptimizer zero(params, pg(), factory);
  zero.step();
  auto plain = factory({torch::optim::OptimizerParamGroup(params)});
  plain->step();

  const std::int64_t total = stateBytes(*plain);
  const std::int64_t local = stateBytes(zero.localOptimizer());
  // Two state tensors (exp_avg, exp_avg_sq) of float.
  const std::int64_t largest = 2 * 1200 * sizeof(float);
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

}  // namespace
}  // namespace zero_suite
