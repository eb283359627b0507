// addParamGroup: the new group is partitioned after the earlier ones, whose
// owners stay, and training continues exactly as a plain optimizer that adds
// the same group.

#include <gmock/gmock.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/compare.h"
#include "fixtures/ddp_training.h"
#include "fixtures/models.h"
#include "ranktest/ranktest.h"
#include "zero_parity.h"

namespace zero_suite {
namespace {

using distalgo::zero::ZeroRedundancyOptimizer;
using testing::HasSubstr;
using testing::ThrowsMessage;

constexpr int kStepsBefore = 2;  // with the first group only
constexpr int kStepsAfter = 3;

class ZeroAddParamGroup : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }
};

// Trains the MLP under DDP with an optimizer over the first layer (`build`),
// adds the last layer's group (lr 0.02) to it just before the optimizer step
// of step kStepsBefore (`add`), and trains on (`step`).
std::vector<at::Tensor> trainAddingAGroup(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank,
    const OptimizerCase& optimizer,
    const std::function<void(torch::nn::Sequential&)>& build,
    const std::function<void(const torch::optim::OptimizerParamGroup&)>& add,
    const std::function<void()>& step) {
  return fixtures::trainUnderDdp(
             pg, {.rank = rank,
                  .rows = kParityRows,
                  .steps = kStepsBefore + kStepsAfter,
                  .make_step =
                      [&](fixtures::SequentialDdp& ddp) {
                        build(ddp.module());
                        return [&, added = lastLayer(ddp.module(), optimizer),
                                count = 0]() mutable {
                          if (count++ == kStepsBefore) add(added);
                          step();
                        };
                      }})
      .parameters;
}

RANKTEST_F(ZeroAddParamGroup, ContinuesLikeAPlainOptimizerAddingTheGroup) {
  for (const auto& optimizer : optimizerCases()) {
    // libtorch's Adagrad creates its state in the constructor and fails an
    // internal assert when stepping a group added later: there is no plain
    // reference (ZeRO's Adagrad case is AdagradGainsAGroupToo).
    if (optimizer.name == "Adagrad") continue;
    for (const bool bucket_view : {false, true}) {
      SCOPED_TRACE(optimizer.name + (bucket_view ? ", bucket view" : ""));
      std::unique_ptr<torch::optim::Optimizer> plain;
      const auto expected = trainAddingAGroup(
          pg(), rank(), optimizer,
          [&](torch::nn::Sequential& m) {
            plain = optimizer.factory({firstLayer(m, optimizer)});
          },
          [&](const auto& group) { plain->add_param_group(group); },
          [&] { plain->step(); });
      std::unique_ptr<ZeroRedundancyOptimizer> zero;
      const auto actual = trainAddingAGroup(
          pg(), rank(), optimizer,
          [&](torch::nn::Sequential& m) {
            zero = std::make_unique<ZeroRedundancyOptimizer>(
                std::vector<torch::optim::OptimizerParamGroup>{
                    firstLayer(m, optimizer)},
                pg(), optimizer.factory,
                distalgo::zero::ZeroOptions{.parameters_as_bucket_view =
                                                bucket_view});
          },
          [&](const auto& group) {
            const auto before = zero->partition();
            zero->addParamGroup(group);
            // Earlier groups keep their owners.
            for (int r = 0; r < worldSize(); ++r) {
              for (const auto& entry : before[r]) {
                const auto& now = zero->partition()[r];
                EXPECT_TRUE(std::any_of(now.begin(), now.end(),
                                        [&](auto& e) {
                                          return e.parameter.is_same(
                                              entry.parameter);
                                        }))
                    << "a parameter left rank " << r;
              }
            }
            EXPECT_EQ(zero->localOptimizer().param_groups().size(), 2u);
          },
          [&] { zero->step(); });
      fixtures::expectSameTensors(actual, expected, optimizer.tolerance);
      // The added group trained: its parameters moved.
      EXPECT_FALSE(expected[2].equal(fixtures::makeMlp(1)->parameters()[2]));
    }
  }
}

// Against a plain Adagrad built over both groups when the second is added,
// carrying over the first group's state.
RANKTEST_F(ZeroAddParamGroup, AdagradGainsAGroupToo) {
  const auto cases = optimizerCases();
  const auto adagrad = *std::find_if(
      cases.begin(), cases.end(), [](auto& c) { return c.name == "Adagrad"; });
  std::unique_ptr<torch::optim::Optimizer> plain;
  std::vector<at::Tensor> first_group;
  const auto expected = trainAddingAGroup(
      pg(), rank(), adagrad,
      [&](torch::nn::Sequential& m) {
        const auto p = m->parameters();
        first_group = {p[0], p[1]};
        plain = adagrad.factory({torch::optim::OptimizerParamGroup(
            first_group, adagrad.options(0.05))});
      },
      [&](const auto& group) {
        auto both = adagrad.factory({torch::optim::OptimizerParamGroup(
                                         first_group, adagrad.options(0.05)),
                                     group});
        for (const auto& [key, state] : plain->state()) {
          both->state()[key] = state->clone();
        }
        plain = std::move(both);
      },
      [&] { plain->step(); });
  std::unique_ptr<ZeroRedundancyOptimizer> zero;
  const auto actual = trainAddingAGroup(
      pg(), rank(), adagrad,
      [&](torch::nn::Sequential& m) {
        zero = std::make_unique<ZeroRedundancyOptimizer>(
            std::vector<torch::optim::OptimizerParamGroup>{
                firstLayer(m, adagrad)},
            pg(), adagrad.factory);
      },
      [&](const auto& group) { zero->addParamGroup(group); },
      [&] { zero->step(); });
  fixtures::expectSameTensors(actual, expected, adagrad.tolerance);
  EXPECT_FALSE(expected[2].equal(fixtures::makeMlp(1)->parameters()[2]));
}

RANKTEST_F(ZeroAddParamGroup, RefusesAParameterAlreadyPresent) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  const auto p = model->parameters();
  ZeroRedundancyOptimizer zero(
      std::vector<at::Tensor>{p[0], p[1]}, pg(),
      distalgo::zero::localOptimizer<torch::optim::SGD>(
          torch::optim::SGDOptions(0.1)));
  EXPECT_THAT(
      [&] {
        zero.addParamGroup(torch::optim::OptimizerParamGroup({p[2], p[1]}));
      },
      ThrowsMessage<std::invalid_argument>(
          HasSubstr("parameter 1 of group 1 already appears")));
  // Still usable with its one group.
  EXPECT_EQ(zero.localOptimizer().param_groups().size(), 1u);
  zero.addParamGroup(torch::optim::OptimizerParamGroup({p[2], p[3]}));
  EXPECT_EQ(zero.localOptimizer().param_groups().size(), 2u);
}

}  // namespace
}  // namespace zero_suite
