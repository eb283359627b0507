// The post-local SGD hook: plain DDP before start_local_sgd_iter (exactly),
// then gradients averaged within the subgroup only, or kept local; the
// iteration counter and the lazily created subgroup; refused arguments.

#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "averaging_util.h"
#include "ddp_runs.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/groups/subgroup_provider.h"
#include "distalgo/hooks/post_local_sgd.h"
#include "fixtures/bucketed_models.h"
#include "fixtures/compare.h"
#include "fixtures/ddp_training.h"
#include "ranktest/ranktest.h"

namespace averaging_suite {
namespace {

using distalgo::groups::SubgroupProvider;
using distalgo::hooks::postLocalSgdHook;
using distalgo::hooks::PostLocalSgdOptions;
using distalgo::hooks::PostLocalSgdState;

constexpr double kLearningRate = 0.05;

// Linear(3, 2) fed (rank + 1) everywhere, loss = sum of the outputs: every
// weight gradient of rank r is r + 1 and every bias gradient 1, so averages
// over any group are exact in float.
class RankGradients {
 public:
  RankGradients(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank,
                distalgo::ddp::CommHook hook)
      : rank_(rank), linear_(3, 2), ddp_(linear_, pg) {
    ddp_.registerCommHook(std::move(hook));
  }

  // One backward; returns the weight's gradient (every element is equal).
  float weightGradient() {
    distalgo::ddp::zeroGradients(*linear_);
    ddp_.forward(at::full({1, 3}, rank_ + 1.0f)).sum().backward();
    const auto grad = linear_->weight.grad();
    EXPECT_TRUE(grad.eq(grad.flatten()[0]).all().item<bool>()) << grad;
    EXPECT_TRUE(linear_->bias.grad().eq(1).all().item<bool>());
    return grad.flatten()[0].item<float>();
  }

 private:
  int rank_;
  torch::nn::Linear linear_;
  distalgo::ddp::DistributedDataParallel<torch::nn::Linear> ddp_;
};

// The mean of r + 1 over the ranks [first, first + size).
float meanOfRanksPlusOne(int first, int size) {
  return first + 1 + (size - 1) / 2.0f;
}

// Sets LOCAL_WORLD_SIZE for one scope (ranks may run several tests).
class LocalWorldSize {
 public:
  explicit LocalWorldSize(int size) {
    setenv("LOCAL_WORLD_SIZE", std::to_string(size).c_str(), 1);
  }
  ~LocalWorldSize() { unsetenv("LOCAL_WORLD_SIZE"); }
};

class AveragingPostLocalSgdHook : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }
};

// Before the start: plain DDP, bit for bit, after every step.
void expectReferenceDdpBeforeStart(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const c10::intrusive_ptr<c10d::Store>& store, int rank,
    const fixtures::BucketedModel& model) {
  constexpr int kSteps = 5;
  auto state = std::make_shared<PostLocalSgdState>(
      PostLocalSgdOptions{.start_local_sgd_iter = kSteps});
  EXPECT_FALSE(state->localSgdStarted());
  fixtures::DdpTraining training =
      ddpTraining(rank, postLocalSgdHook(state, pg, store), model);
  training.steps = kSteps;
  training.learning_rate = kLearningRate;
  training.record_history = true;
  training.after_step = [&](int step, fixtures::SequentialDdp&) {
    EXPECT_EQ(state->iteration(), step + 1);
    // Local SGD starts once the last step has been counted.
    EXPECT_EQ(state->localSgdStarted(), step + 1 == kSteps) << "step " << step;
  };
  const auto hooked = fixtures::trainUnderDdp(pg, training);
  training.hook = nullptr;
  training.after_step = nullptr;
  const auto reference = fixtures::trainUnderDdp(pg, training);
  for (int step = 0; step < kSteps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    fixtures::expectSameTensors(hooked.history[step].gradients,
                                reference.history[step].gradients,
                                fixtures::kExact);
    fixtures::expectSameTensors(hooked.history[step].parameters,
                                reference.history[step].parameters,
                                fixtures::kExact);
  }
  EXPECT_FALSE(state->subgroupCreated());
}

RANKTEST_F(AveragingPostLocalSgdHook, BeforeStartEqualsReferenceDdpExactly) {
  expectReferenceDdpBeforeStart(pg(), store(), rank(),
                                fixtures::oneBucketMlp());
}

RANKTEST_F(AveragingPostLocalSgdHook,
           BeforeStartEqualsReferenceDdpExactlyInSeveralBuckets) {
  for (const auto& model : fixtures::bucketedModels()) {
    SCOPED_TRACE(model.name);
    expectReferenceDdpBeforeStart(pg(), store(), rank(), model);
  }
}

RANKTEST_F(AveragingPostLocalSgdHook, AfterStartAveragesWithinSubgroupOnly,
           ranktest::worldSizes({4})) {
  constexpr int kStart = 2;
  auto state = std::make_shared<PostLocalSgdState>(
      PostLocalSgdOptions{.start_local_sgd_iter = kStart},
      SubgroupProvider(/*group_size=*/2));
  RankGradients model(pg(), rank(), postLocalSgdHook(state, pg(), store()));
  const float global = meanOfRanksPlusOne(0, worldSize());
  const float pair = meanOfRanksPlusOne(rank() / 2 * 2, 2);
  for (int step = 0; step < 5; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    EXPECT_EQ(model.weightGradient(), step < kStart ? global : pair);
    // Counting stops at the start, as PyTorch's maybe_increase_iter.
    EXPECT_EQ(state->iteration(), std::min(step + 1, kStart));
  }
}

RANKTEST_F(AveragingPostLocalSgdHook, DefaultSubgroupIsTheNode,
           ranktest::worldSizes({4})) {
  const LocalWorldSize node(2);
  auto state = std::make_shared<PostLocalSgdState>(
      PostLocalSgdOptions{.start_local_sgd_iter = 1});
  RankGradients model(pg(), rank(), postLocalSgdHook(state, pg(), store()));
  EXPECT_EQ(model.weightGradient(), meanOfRanksPlusOne(0, 4));
  EXPECT_EQ(model.weightGradient(), meanOfRanksPlusOne(rank() / 2 * 2, 2));
}

RANKTEST_F(AveragingPostLocalSgdHook, SubgroupIsCreatedOnFirstLocalIteration) {
  // Built before the hook sees any group, as a launcher plugin would.
  auto state = std::make_shared<PostLocalSgdState>(
      PostLocalSgdOptions{.start_local_sgd_iter = 2});
  EXPECT_FALSE(state->subgroupCreated());
  RankGradients model(pg(), rank(), postLocalSgdHook(state, pg(), store()));
  for (int step = 0; step < 2; ++step) {
    model.weightGradient();
    EXPECT_FALSE(state->subgroupCreated()) << "step " << step;
  }
  // The default subgroup is this rank's node: every rank when forked, the
  // host's ranks under a launcher across hosts.
  EXPECT_EQ(
      model.weightGradient(),
      meanOfRanksPlusOne(nodeRank() * localWorldSize(), localWorldSize()));
  EXPECT_TRUE(state->subgroupCreated());
}

RANKTEST_F(AveragingPostLocalSgdHook,
           WithoutPostLocalAllreduceGradientsStayLocal) {
  constexpr int kStart = 3;
  auto state = std::make_shared<PostLocalSgdState>(PostLocalSgdOptions{
      .start_local_sgd_iter = kStart, .post_local_gradient_allreduce = false});
  // No store needed: no subgroup is ever created.
  RankGradients model(pg(), rank(), postLocalSgdHook(state, pg()));
  for (int step = 0; step < 6; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    EXPECT_EQ(model.weightGradient(), step < kStart
                                          ? meanOfRanksPlusOne(0, worldSize())
                                          : rank() + 1.0f);
  }
  EXPECT_FALSE(state->subgroupCreated());
}

RANKTEST_F(AveragingPostLocalSgdHook, RefusesBadArguments,
           ranktest::worldSizes({2})) {
  expectInvalidArgument(
      [] {
        PostLocalSgdState(PostLocalSgdOptions{.start_local_sgd_iter = -1});
      },
      "distalgo::hooks::PostLocalSgdState: expected start_local_sgd_iter >= "
      "0, got -1");
  expectInvalidArgument([] { PostLocalSgdState(PostLocalSgdOptions{}); },
                        "distalgo::hooks::PostLocalSgdState: "
                        "start_local_sgd_iter is required (PyTorch's "
                        "start_localSGD_iter has no default)");
  auto state = std::make_shared<PostLocalSgdState>(
      PostLocalSgdOptions{.start_local_sgd_iter = 0});
  expectInvalidArgument([&] { postLocalSgdHook(nullptr, pg(), store()); },
                        "postLocalSgdHook: expected a state, got nullptr");
  expectInvalidArgument([&] { postLocalSgdHook(state, {}, store()); },
                        "postLocalSgdHook: expected a process group, got null");
  expectInvalidArgument(
      [&] { postLocalSgdHook(state, pg()); },
      "postLocalSgdHook: expected a store to create the subgroup with, got "
      "null");
  // An existing subgroup needs no store.
  auto given = std::make_shared<PostLocalSgdState>(
      PostLocalSgdOptions{.start_local_sgd_iter = 0},
      SubgroupProvider::of(pg()));
  EXPECT_NO_THROW(postLocalSgdHook(given, pg()));
}

}  // namespace
}  // namespace averaging_suite
