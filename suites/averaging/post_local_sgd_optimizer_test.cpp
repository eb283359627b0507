// PostLocalSGDOptimizer under the post-local SGD hook: equal to its parts
// (optimizer step, then averager) exactly; with period 1 equal to reference
// DDP + SGD; with period 4 the ranks' models meet exactly on averaging steps
// and drift apart between them; a state dict restored mid-training continues
// the run exactly.

#include "distalgo/optim/post_local_sgd_optimizer.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/optim/sgd.h>
#include <torch/serialize/output-archive.h>

#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "averaging_util.h"
#include "ddp_runs.h"
#include "distalgo/averaging/hierarchical_model_averager.h"
#include "distalgo/averaging/periodic_model_averager.h"
#include "distalgo/hooks/post_local_sgd.h"
#include "fixtures/compare.h"
#include "fixtures/ddp_training.h"
#include "fixtures/models.h"
#include "fixtures/same_on_every_rank.h"
#include "ranktest/ranktest.h"
#include "torch_compat/warning_collector.h"

namespace averaging_suite {
namespace {

using distalgo::averaging::HierarchicalModelAverager;
using distalgo::averaging::ModelAverager;
using distalgo::averaging::PeriodicModelAverager;
using distalgo::hooks::postLocalSgdHook;
using distalgo::hooks::PostLocalSgdOptions;
using distalgo::hooks::PostLocalSgdState;
using distalgo::optim::PostLocalSgdOptimizer;
using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

// PyTorch's parity test uses lr 0.03; momentum gives the optimizer a state
// that the state dict must carry.
std::shared_ptr<torch::optim::SGD> makeSgd(
    const std::vector<at::Tensor>& params) {
  return std::make_shared<torch::optim::SGD>(
      params, torch::optim::SGDOptions(0.03).momentum(0.9));
}

// After start_local_sgd_iter no gradient is reduced, so only the averager
// keeps the ranks together.
distalgo::ddp::CommHook localAfter(std::int64_t start, const Group& pg) {
  return postLocalSgdHook(
      std::make_shared<PostLocalSgdState>(
          PostLocalSgdOptions{.start_local_sgd_iter = start,
                              .post_local_gradient_allreduce = false}),
      pg);
}

// make_step for a PostLocalSgdOptimizer over makeSgd and `averager`, kept
// in `optimizer` for the test to inspect.
auto postLocalSgdStep(std::unique_ptr<PostLocalSgdOptimizer>& optimizer,
                      std::shared_ptr<ModelAverager> averager) {
  return [&optimizer, averager = std::move(averager)](
             fixtures::SequentialDdp& ddp) -> fixtures::OptimizerStep {
    optimizer = std::make_unique<PostLocalSgdOptimizer>(
        makeSgd(ddp.module()->parameters()), averager);
    return [&optimizer] { optimizer->step(); };
  };
}

using CapturedWarnings = torch_compat::WarningCollector;

class AveragingPostLocalSgdOptimizer : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }
};

// `steps` steps of two equal models, local after `warmup`: one stepped by
// a PostLocalSgdOptimizer over an averager from make_averager(), the other
// by SGD followed by another such averager called by hand. Expects the same
// parameters, bit for bit, and the same averager steps.
void expectWrapperEqualsParts(
    const Group& pg, int rank, int steps, int warmup,
    const std::function<std::shared_ptr<ModelAverager>()>& make_averager) {
  fixtures::DdpTraining training = ddpTraining(rank, localAfter(warmup, pg));
  training.steps = steps;
  std::unique_ptr<PostLocalSgdOptimizer> wrapped;
  training.make_step = postLocalSgdStep(wrapped, make_averager());
  const auto wrapped_run = fixtures::trainUnderDdp(pg, training);

  training.hook = localAfter(warmup, pg);
  const auto averager = make_averager();
  training.make_step = [&](fixtures::SequentialDdp& ddp) {
    auto sgd = makeSgd(ddp.module()->parameters());
    return [sgd, &averager] {
      sgd->step();
      averager->averageParameters(sgd->param_groups());
    };
  };
  const auto manual_run = fixtures::trainUnderDdp(pg, training);
  fixtures::expectSameTensors(wrapped_run.parameters, manual_run.parameters,
                              fixtures::kExact);
  EXPECT_EQ(wrapped->averager().step(), steps);
  EXPECT_EQ(averager->step(), steps);
}

// PyTorch's test_post_localSGD_optimizer_parity: the wrapper is exactly the
// optimizer step followed by the averager (period 4, warm-up 10, 20 steps).
RANKTEST_F(AveragingPostLocalSgdOptimizer, EqualsOptimizerThenAveragerExactly) {
  constexpr int kWarmup = 10;
  expectWrapperEqualsParts(pg(), rank(), /*steps=*/20, kWarmup, [&] {
    return std::make_shared<PeriodicModelAverager>(pg(), /*period=*/4, kWarmup);
  });
}

// PyTorch's ..._with_hierarchical_sgd: pairs every 2 steps, all 4 ranks
// every 4, after a warm-up of 4.
RANKTEST_F(AveragingPostLocalSgdOptimizer,
           HierarchicalEqualsOptimizerThenAveragerExactly,
           ranktest::worldSizes({4})) {
  constexpr int kWarmup = 4;
  expectWrapperEqualsParts(pg(), rank(), /*steps=*/12, kWarmup, [&] {
    return std::make_shared<HierarchicalModelAverager>(
        store(), pg(), std::map<int, int>{{2, 2}, {4, 4}}, kWarmup);
  });
}

// With period 1 the models are averaged every step: for SGD with momentum,
// which is linear in the gradients, that is DDP's step up to rounding (the
// mean is taken of parameters and momenta instead of gradients).
RANKTEST_F(AveragingPostLocalSgdOptimizer, PeriodOneEqualsReferenceDdp) {
  constexpr int kSteps = 10, kStart = 3;
  fixtures::DdpTraining training =
      ddpTraining(rank(), localAfter(kStart, pg()));
  training.steps = kSteps;
  training.record_history = true;
  std::unique_ptr<PostLocalSgdOptimizer> local;
  training.make_step = postLocalSgdStep(
      local,
      std::make_shared<PeriodicModelAverager>(pg(), /*period=*/1, kStart));
  const auto local_run = fixtures::trainUnderDdp(pg(), training);

  training.hook = nullptr;
  training.make_step = [](fixtures::SequentialDdp& ddp) {
    auto sgd = makeSgd(ddp.module()->parameters());
    return [sgd] { sgd->step(); };
  };
  const auto reference_run = fixtures::trainUnderDdp(pg(), training);
  for (int step = 0; step < kSteps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    // The same computation as DDP until local SGD starts.
    fixtures::expectSameTensors(
        local_run.history[step].parameters,
        reference_run.history[step].parameters,
        step < kStart ? fixtures::kExact : fixtures::Tolerance{.atol = 1e-6});
  }
}

RANKTEST_F(AveragingPostLocalSgdOptimizer,
           PeriodFourMeetsOnAveragingStepsAndDriftsBetween) {
  constexpr int kSteps = 12, kStart = 2, kPeriod = 4;
  fixtures::DdpTraining training =
      ddpTraining(rank(), localAfter(kStart, pg()));
  training.steps = kSteps;
  std::unique_ptr<PostLocalSgdOptimizer> optimizer;
  training.make_step = postLocalSgdStep(
      optimizer,
      std::make_shared<PeriodicModelAverager>(pg(), kPeriod, kStart));
  training.after_step = [&](int step, fixtures::SequentialDdp& ddp) {
    // Global gradients before the start; then averaged at 2, 6, 10 only.
    const bool together = step < kStart || (step - kStart) % kPeriod == 0;
    EXPECT_EQ(fixtures::sameOnEveryRank(pg(), ddp.module()->parameters()),
              together)
        << "step " << step;
  };
  fixtures::trainUnderDdp(pg(), training);
}

// A run of `steps` steps from step `first_step` with a period-3 averager
// (warm-up 2) and a hook that goes local after 2 steps; a run resumed later
// is past them. `resume`, if given, runs once the optimizer is built.
struct LocalRun {
  fixtures::DdpTrained trained;
  std::unique_ptr<PostLocalSgdOptimizer> optimizer;
};
LocalRun trainLocally(
    const Group& pg, int rank, int first_step, int steps,
    const std::function<void(torch::nn::Sequential&, PostLocalSgdOptimizer&)>&
        resume = {}) {
  fixtures::DdpTraining training =
      ddpTraining(rank, localAfter(first_step == 0 ? 2 : 0, pg));
  training.first_step = first_step;
  training.steps = steps;
  LocalRun run;
  const auto make_step = postLocalSgdStep(
      run.optimizer, std::make_shared<PeriodicModelAverager>(pg, 3, 2));
  training.make_step = [&](fixtures::SequentialDdp& ddp) {
    fixtures::OptimizerStep step = make_step(ddp);
    if (resume) resume(ddp.module(), *run.optimizer);
    return step;
  };
  run.trained = fixtures::trainUnderDdp(pg, training);
  return run;
}

RANKTEST_F(AveragingPostLocalSgdOptimizer,
           StateDictRoundTripContinuesIdentically) {
  constexpr int kBefore = 4, kAfter = 6;
  const LocalRun straight = trainLocally(pg(), rank(), 0, kBefore + kAfter);
  const LocalRun first = trainLocally(pg(), rank(), 0, kBefore);
  const std::string saved = first.optimizer->stateDict();

  // Past the hook's start: the resumed hook is local from its first step.
  const LocalRun resumed = trainLocally(
      pg(), rank(), kBefore, kAfter,
      [&](torch::nn::Sequential& model, PostLocalSgdOptimizer& optimizer) {
        {
          at::NoGradGuard no_grad;
          const auto params = model->parameters();
          for (std::size_t i = 0; i < params.size(); ++i) {
            params[i].copy_(first.trained.parameters[i]);
          }
        }
        optimizer.loadStateDict(saved);
        EXPECT_EQ(optimizer.averager().step(), kBefore);
      });
  fixtures::expectSameTensors(resumed.trained.parameters,
                              straight.trained.parameters, fixtures::kExact);
}

RANKTEST_F(AveragingPostLocalSgdOptimizer,
           PlainOptimizerArchiveResetsStepWithWarning,
           ranktest::worldSizes({2})) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  auto sgd = makeSgd(model->parameters());
  PeriodicModelAverager averager(pg(), 2);
  averager.setStep(7);
  PostLocalSgdOptimizer optimizer(*sgd, averager);
  torch::serialize::OutputArchive archive;
  sgd->save(archive);
  std::ostringstream bytes;
  archive.save_to(bytes);

  CapturedWarnings warnings;
  optimizer.loadStateDict(bytes.str());
  EXPECT_EQ(averager.step(), 0);
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_THAT(warnings.messages[0],
              testing::HasSubstr("does not contain a step counter"));
}

RANKTEST_F(AveragingPostLocalSgdOptimizer, RefusesMissingPartsAndBadBytes,
           ranktest::worldSizes({2})) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  auto averager = std::make_shared<PeriodicModelAverager>(pg(), 2);
  expectInvalidArgument(
      [&] { PostLocalSgdOptimizer(nullptr, averager); },
      "distalgo::optim::PostLocalSgdOptimizer: expected an optimizer, got "
      "nullptr");
  expectInvalidArgument(
      [&] { PostLocalSgdOptimizer(makeSgd(model->parameters()), nullptr); },
      "distalgo::optim::PostLocalSgdOptimizer: expected an averager, got "
      "nullptr");
  PostLocalSgdOptimizer optimizer(makeSgd(model->parameters()), averager);
  expectInvalidArgument([&] { optimizer.loadStateDict("not an archive"); },
                        "expected an optimizer archive");
}

RANKTEST_F(AveragingPostLocalSgdOptimizer, ZeroGradAndParamGroupsPassThrough,
           ranktest::worldSizes({2})) {
  // One backward under DDP leaves gradients to zero; nothing steps.
  fixtures::DdpTraining training = ddpTraining(rank());
  training.make_step = [](fixtures::SequentialDdp&) { return [] {}; };
  const auto model = fixtures::trainUnderDdp(pg(), training).model;
  auto sgd = makeSgd(model->parameters());
  PostLocalSgdOptimizer optimizer(
      sgd, std::make_shared<PeriodicModelAverager>(pg(), 2));
  EXPECT_EQ(&optimizer.paramGroups(), &sgd->param_groups());
  optimizer.zeroGrad();
  for (const auto& p : model->parameters()) {
    EXPECT_TRUE(!p.grad().defined() || p.grad().eq(0).all().item<bool>());
  }
  auto extra = at::zeros({2}).requires_grad_();
  optimizer.addParamGroup(torch::optim::OptimizerParamGroup({extra}));
  EXPECT_EQ(sgd->param_groups().size(), 2u);
}

}  // namespace
}  // namespace averaging_suite
