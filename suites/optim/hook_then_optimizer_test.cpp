// DDP with the optimizer inside the communication hook against DDP followed
// by libtorch's optimizer (PyTorch's test_ddp_hook_with_optimizer_parity).

#include "distalgo/optim/hook_then_optimizer.h"

#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>

#include <memory>
#include <string>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "fixtures/compare.h"
#include "fixtures/ddp_training.h"
#include "fixtures/models.h"
#include "optimizer_cases.h"
#include "ranktest/ranktest.h"

namespace optim_suite {
namespace {

using distalgo::ddp::DdpOptions;
using distalgo::optim::hookThenOptimizer;

constexpr int kHookThenOptimizerSteps = 5;
constexpr int kRows = 6;

// kHookThenOptimizerSteps steps of the MLP under DDP with `options` and, if
// given, `hook`; `optimizer`, if given, steps every parameter after each
// backward (without it the hook steps them).
fixtures::DdpTrained trainMlp(const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
                              int rank, const DdpOptions& options,
                              const OptimizerCase* optimizer,
                              distalgo::ddp::CommHook hook) {
  return fixtures::trainUnderDdp(
      pg, {.ddp = options,
           .hook = std::move(hook),
           .rank = rank,
           .rows = kRows,
           .steps = kHookThenOptimizerSteps,
           .make_step = [optimizer](fixtures::SequentialDdp& ddp)
               -> fixtures::OptimizerStep {
             if (optimizer == nullptr) return [] {};
             std::shared_ptr<torch::optim::Optimizer> libtorch =
                 optimizer->libtorch(ddp.module()->parameters());
             return [libtorch] { libtorch->step(); };
           }});
}

struct BucketLayout {
  const char* name;
  double bucket_cap_mb;
  std::size_t first_bucket_cap_bytes;
  bool several_buckets;
};
// The MLP's 212 floats in one bucket, or in buckets of at most 64 floats.
constexpr BucketLayout kLayouts[] = {
    {"one bucket", 25.0, std::size_t{1024} * 1024, false},
    {"small buckets", 256.0 / (1024 * 1024), 256, true},
};

struct HookCase {
  OptimizerCase optimizer;
  // Largest elementwise difference after kHookThenOptimizerSteps between the
  // fp16 hook's run and reference DDP's: float16 keeps 11 significant bits of
  // each averaged gradient, and the steps carry that rounding into the
  // parameters. Set to five times or more the largest difference measured at
  // world sizes 2 and 4 (noted beside each case).
  double fp16_tolerance;
};

class OptimHookParity : public ranktest::DistributedTestWithParam<HookCase> {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }
  static std::string paramName(const HookCase& row, std::size_t) {
    return row.optimizer.name;
  }
};

// Every (bucket view, bucket layout) pair. With world sizes 2 and 4 the
// reference's division by the world size is exact, so the runs compare bit
// for bit.
RANKTEST_P(OptimHookParity, AllreduceThenOptimizerEqualsDdpThenOptimizer) {
  const OptimizerCase& optimizer = param().optimizer;
  for (const bool bucket_view : {false, true}) {
    for (const auto& layout : kLayouts) {
      SCOPED_TRACE(std::string(layout.name) +
                   (bucket_view ? ", gradient_as_bucket_view" : ""));
      const DdpOptions options{
          .bucket_cap_mb = layout.bucket_cap_mb,
          .first_bucket_cap_bytes = layout.first_bucket_cap_bytes,
          .gradient_as_bucket_view = bucket_view};
      const auto expected = trainMlp(pg(), rank(), options, &optimizer, {});
      const auto actual =
          trainMlp(pg(), rank(), options, nullptr,
                   hookThenOptimizer(distalgo::hooks::allreduceHook(pg()),
                                     optimizer.functional()));
      fixtures::expectSameTensors(actual.parameters, expected.parameters,
                                  fixtures::kExact);
      // Backward still leaves the reduced gradients in .grad().
      fixtures::expectSameTensors(actual.gradients, expected.gradients,
                                  fixtures::kExact);
      EXPECT_EQ(actual.buckets > 1, layout.several_buckets)
          << actual.buckets << " buckets";
      EXPECT_FALSE(expected.parameters[0].equal(
          fixtures::makeMlp(/*seed=*/1)->parameters()[0]));
    }
  }
}

// Wrapping the fp16 compression hook: exactly DDP with that hook followed by
// the optimizer, and close to reference DDP.
RANKTEST_P(OptimHookParity, Fp16ThenOptimizerEqualsFp16DdpThenOptimizer) {
  const OptimizerCase& optimizer = param().optimizer;
  const DdpOptions options{
      .bucket_cap_mb = kLayouts[1].bucket_cap_mb,
      .first_bucket_cap_bytes = kLayouts[1].first_bucket_cap_bytes};
  const auto fp16_then_step = trainMlp(pg(), rank(), options, &optimizer,
                                       distalgo::hooks::fp16CompressHook(pg()));
  const auto reference = trainMlp(pg(), rank(), options, &optimizer, {});
  const auto actual =
      trainMlp(pg(), rank(), options, nullptr,
               hookThenOptimizer(distalgo::hooks::fp16CompressHook(pg()),
                                 optimizer.functional()));
  fixtures::expectSameTensors(actual.parameters, fp16_then_step.parameters,
                              fixtures::kExact);
  fixtures::expectSameTensors(actual.parameters, reference.parameters,
                              {.atol = param().fp16_tolerance});
  EXPECT_FALSE(actual.parameters[0].equal(reference.parameters[0]))
      << "float16 rounding left no trace: was the gradient compressed?";
}

const std::vector<HookCase> kHookCases = {
    {sgdCases()[1], 2e-4},    // momentum; measured 2.6e-5
    {sgdCases()[3], 2e-4},    // nesterov, weight decay; 3.9e-5
    {adamCases()[0], 2e-5},   // defaults; 2.2e-6
    {adamCases()[2], 2e-4},   // amsgrad, lr 1e-2; 3.7e-5
    {adamWCases()[0], 2e-5},  // defaults; 2.2e-6
    {adamWCases()[3], 1e-3},  // lr 2e-2, weight decay 0.5; 1.3e-4
};
RANKTEST_INSTANTIATE_P(OptimHookParity, kHookCases);

class OptimHookThenOptimizer : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

struct Trained {
  torch::nn::Sequential& model;
  fixtures::SequentialDdp& ddp;
};

// kHookThenOptimizerSteps steps of both: `hooked` steps in its DDP's hook,
// `reference` with `libtorch` after each backward.
void trainSideBySide(int rank, const Trained& hooked, const Trained& reference,
                     torch::optim::Optimizer& libtorch) {
  for (int step = 0; step < kHookThenOptimizerSteps; ++step) {
    const auto input = at::full({3, fixtures::kMlpInputs}, 0.5 * (rank + step));
    for (const Trained* run : {&hooked, &reference}) {
      distalgo::ddp::zeroGradients(*run->model);
      run->ddp.forward(input).square().mean().backward();
    }
    libtorch.step();
  }
}

// PyTorch's params_to_optimize: only the first layer moves, as under a
// libtorch optimizer over that layer alone.
RANKTEST_F(OptimHookThenOptimizer, StepsOnlyTheParametersToOptimize) {
  const OptimizerCase sgd = sgdCases()[1];
  auto model = fixtures::makeMlp(/*seed=*/1);
  auto reference = fixtures::makeMlp(/*seed=*/1);
  const auto first_layer = [](torch::nn::Sequential& m) {
    const auto p = m->parameters();
    return std::vector<at::Tensor>{p[0], p[1]};
  };
  distalgo::ddp::DistributedDataParallel ddp(model, pg());
  ddp.registerCommHook(hookThenOptimizer(distalgo::hooks::allreduceHook(pg()),
                                         sgd.functional(), first_layer(model)));
  distalgo::ddp::DistributedDataParallel reference_ddp(reference, pg());
  auto libtorch = sgd.libtorch(first_layer(reference));
  trainSideBySide(rank(), {model, ddp}, {reference, reference_ddp}, *libtorch);
  const auto initial = fixtures::makeMlp(/*seed=*/1)->parameters();
  const auto actual = model->parameters();
  fixtures::expectSameTensors(actual, reference->parameters(),
                              fixtures::kExact);
  EXPECT_FALSE(actual[0].equal(initial[0]));
  EXPECT_TRUE(actual[2].equal(initial[2]));
  EXPECT_TRUE(actual[3].equal(initial[3]));
}

// A weight under two names (tied) is stepped once an iteration, as by a
// libtorch optimizer over each parameter once: DDP lists it once.
RANKTEST_F(OptimHookThenOptimizer, TiedWeightIsSteppedOnce) {
  const OptimizerCase sgd = sgdCases()[1];  // momentum: a second step shows
  auto model = fixtures::makeTiedNet(/*seed=*/1);
  auto reference = fixtures::makeTiedNet(/*seed=*/1);
  distalgo::ddp::DistributedDataParallel ddp(model, pg());
  ddp.registerCommHook(hookThenOptimizer(distalgo::hooks::allreduceHook(pg()),
                                         sgd.functional()));
  distalgo::ddp::DistributedDataParallel reference_ddp(reference, pg());
  std::vector<at::Tensor> each_once = reference->parameters();
  // 2.weight and 2.bias are 0.weight and 0.bias again.
  each_once.erase(each_once.begin() + 2, each_once.begin() + 4);
  ASSERT_TRUE(reference->parameters()[2].is_same(each_once[0]));
  auto libtorch = sgd.libtorch(each_once);
  trainSideBySide(rank(), {model, ddp}, {reference, reference_ddp}, *libtorch);
  fixtures::expectSameTensors(model->parameters(), reference->parameters(),
                              fixtures::kExact);
  EXPECT_FALSE(model->parameters()[0].equal(
      fixtures::makeTiedNet(/*seed=*/1)->parameters()[0]));
}

// A hook that reduces into a new tensor: the optimizer must still step with
// the reduced gradients, not with the bucket's unreduced ones.
RANKTEST_F(OptimHookThenOptimizer, OutOfPlaceHookStepsWithReducedGradients) {
  const OptimizerCase adam = adamCases()[0];
  auto out_of_place = [pg = pg()](distalgo::ddp::GradBucket& bucket) {
    std::vector<at::Tensor> reduced{bucket.buffer().div(pg->getSize())};
    return pg->allreduce(reduced)->getFuture();
  };
  const auto expected = trainMlp(pg(), rank(), {}, &adam, {});
  const auto actual =
      trainMlp(pg(), rank(), {}, nullptr,
               hookThenOptimizer(out_of_place, adam.functional()));
  fixtures::expectSameTensors(actual.parameters, expected.parameters,
                              fixtures::kExact);
  fixtures::expectSameTensors(actual.gradients, expected.gradients,
                              fixtures::kExact);
}

RANKTEST_F(OptimHookThenOptimizer, WrappedHookWithoutATensorFailsBackward) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  distalgo::ddp::DistributedDataParallel ddp(model, pg());
  ddp.registerCommHook(
      hookThenOptimizer(
          [](distalgo::ddp::GradBucket&) {
            auto future =
                c10::make_intrusive<c10::ivalue::Future>(c10::IntType::get());
            future->markCompleted(c10::IValue(int64_t{7}));
            return future;
          },
          sgdCases()[0].functional()),
      "int-then-sgd");
  const auto before = fixtures::makeMlp(/*seed=*/1)->parameters();
  auto loss = ddp.forward(at::ones({2, fixtures::kMlpInputs})).sum();
  try {
    loss.backward();
    ADD_FAILURE() << "backward accepted a wrapped hook without a tensor";
  } catch (const std::exception& error) {
    EXPECT_THAT(error.what(),
                testing::HasSubstr("hookThenOptimizer: the wrapped hook's "
                                   "future must hold a tensor"));
  }
  fixtures::expectSameTensors(model->parameters(), before, fixtures::kExact);
}

}  // namespace
}  // namespace optim_suite
