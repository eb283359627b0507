// The PowerSGD hooks in DDP: counters, statistics, error feedback, warm
// start, and batching; the hook table (powersgd_table.cpp) covers parity
// with reference DDP and the traffic.

#include "distalgo/hooks/powersgd.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>

#include <memory>
#include <vector>

#include "distalgo/hooks/default_hooks.h"
#include "fixtures/compare.h"
#include "fixtures/models.h"
#include "fixtures/same_on_every_rank.h"
#include "hookparity/hook_parity.h"
#include "powersgd_traffic.h"
#include "synthetic_bucket.h"

namespace {

using distalgo::hooks::PowerSgdOptions;
using distalgo::hooks::PowerSgdState;

constexpr double kLearningRate = 0.1;

class CommHookPowerSgd : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }

 protected:
  // Trains the fixture MLP through the layer-wise (or batched) hook over
  // `state`.
  fixtures::DdpTrained train(const std::shared_ptr<PowerSgdState>& state,
                             int steps, bool batched = false) {
    return hookparity::trainMlp(
        pg(), rank(), steps, kLearningRate, [&](const hookparity::Group&) {
          return batched ? distalgo::hooks::batchedPowerSgdHook(state)
                         : distalgo::hooks::powerSgdHook(state);
        });
  }
  std::shared_ptr<PowerSgdState> makeState(PowerSgdOptions options) {
    return std::make_shared<PowerSgdState>(pg(), options);
  }
};

RANKTEST_F(CommHookPowerSgd, IterationAdvancesOncePerStep) {
  for (const bool batched : {false, true}) {
    auto state = makeState({.start_iteration = 2});
    train(state, 5, batched);
    EXPECT_EQ(state->iteration(), 5) << (batched ? "batched" : "layer-wise");
  }
}

RANKTEST_F(CommHookPowerSgd, StatisticsCountCompressedSteps) {
  const PowerSgdOptions options{.matrix_approximation_rank = 2,
                                .start_iteration = 2};
  constexpr int kSteps = 5, kCompressed = 3;
  const auto parameters = fixtures::makeMlp(/*seed=*/1)->parameters();
  const std::int64_t numel = hookparity::numelOf(parameters);
  for (const bool batched : {false, true}) {
    auto state = makeState(options);
    train(state, kSteps, batched);
    const std::int64_t per_step =
        batched ? hooktest::batchedElementsPerStep(parameters, options)
                : hooktest::layerwiseElementsPerStep(parameters, options);
    const auto stats = state->compressionStats();
    EXPECT_EQ(stats.numel_before, kCompressed * numel);
    EXPECT_EQ(stats.numel_after, kCompressed * per_step);
    EXPECT_DOUBLE_EQ(stats.rate, static_cast<double>(numel) / per_step);
  }
}

// Without error feedback what compression drops is lost for good, and the
// run drifts further from reference DDP.
RANKTEST_F(CommHookPowerSgd, ErrorFeedbackStaysCloserToReference) {
  constexpr int kSteps = 12;
  const auto reference =
      hookparity::trainMlp(pg(), rank(), kSteps, kLearningRate, {});
  auto with_feedback = makeState({.start_iteration = 2});
  auto without_feedback =
      makeState({.start_iteration = 2, .use_error_feedback = false});
  const double fed_back = fixtures::largestDifference(
      train(with_feedback, kSteps).parameters, reference.parameters);
  const double lost = fixtures::largestDifference(
      train(without_feedback, kSteps).parameters, reference.parameters);
  EXPECT_LT(fed_back, lost);
  EXPECT_TRUE(with_feedback->error(0).defined());
  EXPECT_FALSE(without_feedback->error(0).defined());
}

// Warm start draws Q once and keeps it; otherwise every compressed step
// draws afresh and forgets. The next seed tells how many were drawn.
RANKTEST_F(CommHookPowerSgd, WarmStartReusesQ) {
  constexpr int kSteps = 5;  // 3 compressed
  auto warm = makeState({.start_iteration = 2});
  auto cold = makeState({.start_iteration = 2, .warm_start = false});
  const auto warm_run = train(warm, kSteps);
  const auto cold_run = train(cold, kSteps);
  EXPECT_TRUE(warm->lowRankMemory(0).second.defined());
  EXPECT_FALSE(cold->lowRankMemory(0).second.defined());
  EXPECT_EQ(warm->nextSeed(), 398764591u);  // numpy's second draw
  EXPECT_EQ(cold->nextSeed(), 404868288u);  // numpy's fourth draw
  EXPECT_GT(
      fixtures::largestDifference(warm_run.parameters, cold_run.parameters), 0);
}

// Compression rate so high nothing qualifies: exactly the allreduce hook
// (dividing after the sum is exact at powers of two).
RANKTEST_F(CommHookPowerSgd, NothingCompressedEqualsAllreduce,
           ranktest::worldSizes({2, 4})) {
  constexpr int kSteps = 4;
  auto state = makeState({.start_iteration = 0,
                          .min_compression_rate = 1e6,
                          .use_error_feedback = false,
                          .warm_start = false});
  const auto powersgd = train(state, kSteps);
  const auto allreduce = hookparity::trainMlp(
      pg(), rank(), kSteps, kLearningRate,
      [](const auto& group) { return distalgo::hooks::allreduceHook(group); });
  fixtures::expectSameTensors(powersgd.parameters, allreduce.parameters,
                              fixtures::kExact);
  EXPECT_EQ(state->compressionStats().rate, 1);
}

// PyTorch 1.13's batched hook fails once compression starts; this one
// trains, and every rank ends with the same parameters.
RANKTEST_F(CommHookPowerSgd, CompressedTrainingAgreesOnEveryRank,
           ranktest::worldSizes({2, 3, 4})) {
  for (const bool batched : {false, true}) {
    auto state =
        makeState({.matrix_approximation_rank = 2, .start_iteration = 2});
    const auto run = train(state, 18, batched);
    EXPECT_TRUE(fixtures::sameOnEveryRank(pg(), run.parameters))
        << (batched ? "batched" : "layer-wise");
    EXPECT_LT(run.losses.back(), run.losses.front());
  }
}

// Stacking gradients of one shape into one batched product changes nothing
// (Q has under 16 elements, where randn draws one by one, so the draws
// agree too).
RANKTEST_F(CommHookPowerSgd, BatchingSameShapesMatchesOneByOne) {
  const std::vector<std::vector<std::int64_t>> shapes = {{6, 5}, {6}, {6, 5}};
  std::vector<at::Tensor> results;
  for (const bool batch : {false, true}) {
    auto state = makeState({.start_iteration = 0,
                            .min_compression_rate = 1,
                            .use_error_feedback = false,
                            .warm_start = false,
                            .batch_tensors_with_same_shape = batch});
    auto hook = distalgo::hooks::powerSgdHook(state);
    hooktest::SyntheticBucket bucket(
        (at::arange(66, at::kFloat) * (0.3 + rank())).sin(), shapes);
    const auto future = hook(bucket.bucket());
    future->wait();
    results.push_back(distalgo::ddp::firstTensorOf(future->value()).clone());
  }
  EXPECT_TRUE(at::allclose(results[0], results[1], 1e-5, 1e-6))
      << (results[0] - results[1]).abs().max();
  const at::Tensor input = (at::arange(66, at::kFloat) * (0.3 + rank())).sin();
  EXPECT_FALSE(at::allclose(results[0], input)) << "nothing was compressed";
}

// A bucket of 4 elements is a 2 x 2 matrix, too small for rank 3: the
// hook refuses it as the bucket comes (its size is known only then), with
// the sizes, before any communication.
RANKTEST_F(CommHookPowerSgd, BatchedRankAboveTheSideOfTheSquareIsRefused) {
  auto state = makeState({.matrix_approximation_rank = 3,
                          .start_iteration = 0,
                          .use_error_feedback = false,
                          .warm_start = false});
  auto hook = distalgo::hooks::batchedPowerSgdHook(state);
  hooktest::SyntheticBucket bucket(at::ones({4}), {{4}});
  EXPECT_THAT([&] { hook(bucket.bucket()); },
              testing::ThrowsMessage<std::invalid_argument>(testing::HasSubstr(
                  "batchedPowerSgdHook: matrix_approximation_rank 3 exceeds "
                  "the side of bucket 0's square matrix, 2 (the bucket's 4 "
                  "elements, padded to 2 x 2): use a rank of at most 2")));
}

}  // namespace
