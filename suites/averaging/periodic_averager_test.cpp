// PeriodicModelAverager: after each step the parameters are the exact mean
// when step >= warmup and (step - warmup) % period == 0 (PyTorch counts the
// period from the end of warm-up), and untouched otherwise.

#include <ATen/ATen.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <string>
#include <vector>

#include "averaging_util.h"
#include "distalgo/averaging/periodic_model_averager.h"
#include "fixtures/compare.h"
#include "ranktest/ranktest.h"

namespace averaging_suite {
namespace {

using distalgo::averaging::PeriodicModelAverager;

constexpr int kPeriodicSteps = 20;

struct PeriodCase {
  int period;
  int warmup;
};

// Warm-ups that are not multiples of the period tell "counted from warm-up"
// apart from "step % period".
const std::vector<PeriodCase> kCases{{1, 0},  {2, 0},  {3, 2},  {4, 5},
                                     {4, 12}, {4, 13}, {4, 15}, {7, 1}};

bool due(const PeriodCase& c, std::int64_t step) {
  return step >= c.warmup && (step - c.warmup) % c.period == 0;
}

std::string name(const PeriodCase& c) {
  return "period " + std::to_string(c.period) + ", warm-up " +
         std::to_string(c.warmup);
}

class AveragingPeriodic : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }
};

RANKTEST_F(AveragingPeriodic, AveragesExactlyOnDueStepsOnly) {
  const auto mean = meanParameters(allRanks(worldSize()));
  for (const auto& c : kCases) {
    PeriodicModelAverager averager(pg(), c.period, c.warmup);
    for (int step = 0; step < kPeriodicSteps; ++step) {
      SCOPED_TRACE(name(c) + ", step " + std::to_string(step));
      // Fresh rank-dependent values each step, as PyTorch's test resets them.
      auto params = rankParameters(rank());
      averager.averageParameters(params);
      EXPECT_EQ(averager.step(), step + 1);
      fixtures::expectSameTensors(params,
                                  due(c, step) ? mean : rankParameters(rank()),
                                  fixtures::kExact);
    }
  }
}

RANKTEST_F(AveragingPeriodic, ParamGroupsAverageOnDueStepsOnly) {
  const auto mean = meanParameters(allRanks(worldSize()));
  const PeriodCase c{3, 2};
  PeriodicModelAverager averager(pg(), c.period, c.warmup);
  for (int step = 0; step < 10; ++step) {
    SCOPED_TRACE(name(c) + ", step " + std::to_string(step));
    auto params = rankParameters(rank());
    auto no_grad = rankParameters(rank(), /*with_grad=*/false)[0];
    std::vector<torch::optim::OptimizerParamGroup> groups{
        torch::optim::OptimizerParamGroup({params[0], no_grad}),
        torch::optim::OptimizerParamGroup({params[1], params[2]})};
    averager.averageParameters(groups);
    fixtures::expectSameTensors(
        params, due(c, step) ? mean : rankParameters(rank()), fixtures::kExact);
    // Never averaged: it has no gradient.
    EXPECT_TRUE(no_grad.equal(rankParameters(rank())[0]));
  }
}

RANKTEST_F(AveragingPeriodic, RestoredStepContinuesTheSchedule) {
  const PeriodCase c{4, 5};
  PeriodicModelAverager averager(pg(), c.period, c.warmup);
  averager.setStep(9);
  for (int step = 9; step < 14; ++step) {
    SCOPED_TRACE(step);
    auto params = rankParameters(rank());
    averager.averageParameters(params);
    fixtures::expectSameTensors(params,
                                due(c, step)
                                    ? meanParameters(allRanks(worldSize()))
                                    : rankParameters(rank()),
                                fixtures::kExact);
  }
  EXPECT_EQ(averager.step(), 14);
}

RANKTEST_F(AveragingPeriodic, RejectsBadPeriodOrWarmup) {
  for (const int period : {0, -3}) {
    expectInvalidArgument([&] { PeriodicModelAverager(pg(), period); },
                          "PeriodicModelAverager: expected period >= 1, got");
  }
  expectInvalidArgument([&] { PeriodicModelAverager(pg(), 2, -1); },
                        "PeriodicModelAverager: expected warmup_steps >= 0, "
                        "got -1");
  expectInvalidArgument([&] { PeriodicModelAverager({}, 2); },
                        "ModelAverager: expected a process group, got null");
  // A period of 1 is allowed (PyTorch only warns).
  EXPECT_EQ(PeriodicModelAverager(pg(), 1).period(), 1);
}

}  // namespace
}  // namespace averaging_suite
