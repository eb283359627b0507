// Reference DDP (the real c10d::Reducer, default allreduce) trains exactly
// like one process on the concatenated global batch.

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>

#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "ranktest/ranktest.h"

namespace {

using distalgo::ddp::DdpOptions;
using distalgo::ddp::DistributedDataParallel;

constexpr int kSteps = 4;
constexpr int kRows = 5;  // per rank and step
constexpr double kLearningRate = 0.1;
// Float sums in another order; nothing else differs.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

class DdpParityGroundTruth : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }

 protected:
  fixtures::Batch batch(int step) const {
    return fixtures::rankBatch(step, rank(), kRows, fixtures::kMlpInputs,
                               fixtures::kMlpOutputs);
  }

  // The same model trained in this process on every rank's data.
  template <typename Model>
  Model groundTruth(Model (*make)(std::uint64_t), int steps) const {
    auto model = make(/*seed=*/1);
    torch::optim::SGD sgd(model->parameters(), kLearningRate);
    for (int step = 0; step < steps; ++step) {
      const auto all =
          fixtures::globalBatch(step, worldSize(), kRows, fixtures::kMlpInputs,
                                fixtures::kMlpOutputs);
      sgd.zero_grad();
      torch::nn::functional::mse_loss(model->forward(all.input), all.target)
          .backward();
      sgd.step();
    }
    return model;
  }

  void expectEqualParameters(const torch::nn::Module& actual,
                             const torch::nn::Module& expected) const {
    const auto a = actual.named_parameters();
    const auto e = expected.named_parameters();
    ASSERT_EQ(a.size(), e.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_TRUE(at::allclose(a[i].value(), e[i].value(), kRtol, kAtol))
          << "parameter " << a[i].key() << " on rank " << rank()
          << ", largest difference "
          << (a[i].value() - e[i].value()).abs().max().item<double>();
    }
  }

  template <typename Model = torch::nn::Sequential>
  void trainAndCompare(const DdpOptions& options,
                       Model (*make)(std::uint64_t) = &fixtures::makeMlp) {
    // Ranks start from different parameters: DDP must broadcast rank 0's.
    auto model = make(/*seed=*/rank() == 0 ? 1 : 50 + rank());
    DistributedDataParallel ddp(model, pg(), options);
    torch::optim::SGD sgd(model->parameters(), kLearningRate);
    for (int step = 0; step < kSteps; ++step) {
      const auto local = batch(step);
      distalgo::ddp::zeroGradients(*model);
      torch::nn::functional::mse_loss(ddp.forward(local.input), local.target)
          .backward();
      sgd.step();
    }
    expectEqualParameters(*model, *groundTruth(make, kSteps));
  }
};

RANKTEST_F(DdpParityGroundTruth, MlpMatchesOneProcessOnTheGlobalBatch) {
  trainAndCompare({});
}

RANKTEST_F(DdpParityGroundTruth, GradientAsBucketViewChangesNothing) {
  trainAndCompare({.gradient_as_bucket_view = true});
}

RANKTEST_F(DdpParityGroundTruth, OneBucketPerParameterChangesNothing) {
  // Caps below every parameter's size give each parameter its own bucket.
  trainAndCompare({.bucket_cap_mb = 1e-6, .first_bucket_cap_bytes = 1});
}

RANKTEST_F(DdpParityGroundTruth, FindUnusedParametersChangesNothing) {
  trainAndCompare({.find_unused_parameters = true});
}

RANKTEST_F(DdpParityGroundTruth, ConvNetMatchesOneProcessOnTheGlobalBatch) {
  trainAndCompare({}, &fixtures::makeConvNet);
}

// The unused layer gets no gradient and keeps rank 0's initial values.
RANKTEST_F(DdpParityGroundTruth, UnusedParameterNetMatchesWithFindUnused) {
  trainAndCompare({.find_unused_parameters = true},
                  &fixtures::makeUnusedParameterNet);
}

// Two micro-batches under noSync, then a synced one: the reduced gradient is
// the sum of the three, as in one process on the three global batches.
RANKTEST_F(DdpParityGroundTruth, NoSyncAccumulatesLocallyThenReduces) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  torch::optim::SGD sgd(model->parameters(), kLearningRate);
  sgd.zero_grad();
  {
    auto no_sync = ddp.noSync();
    for (int step = 0; step < 2; ++step) {
      const auto local = batch(step);
      torch::nn::functional::mse_loss(ddp.forward(local.input), local.target)
          .backward();
    }
  }
  // Nothing was reduced yet: the gradients are this rank's own.
  auto local_only = fixtures::makeMlp(/*seed=*/1);
  for (int step = 0; step < 2; ++step) {
    const auto local = batch(step);
    torch::nn::functional::mse_loss(local_only->forward(local.input),
                                    local.target)
        .backward();
  }
  const auto grads = model->parameters();
  const auto local_grads = local_only->parameters();
  for (std::size_t i = 0; i < grads.size(); ++i) {
    EXPECT_TRUE(
        at::allclose(grads[i].grad(), local_grads[i].grad(), kRtol, kAtol))
        << "gradient " << i << " changed under noSync on rank " << rank();
  }

  const auto last = batch(2);
  torch::nn::functional::mse_loss(ddp.forward(last.input), last.target)
      .backward();
  sgd.step();

  auto reference = fixtures::makeMlp(/*seed=*/1);
  torch::optim::SGD reference_sgd(reference->parameters(), kLearningRate);
  reference_sgd.zero_grad();
  for (int step = 0; step < 3; ++step) {
    const auto all = fixtures::globalBatch(
        step, worldSize(), kRows, fixtures::kMlpInputs, fixtures::kMlpOutputs);
    torch::nn::functional::mse_loss(reference->forward(all.input), all.target)
        .backward();
  }
  reference_sgd.step();
  expectEqualParameters(*model, *reference);
}

class DdpParityBadInput : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }
};

// Every rank, not only the odd one, gets an error instead of a hang.
RANKTEST_F(DdpParityBadInput, MismatchedModelsFailOnEveryRank) {
  torch::manual_seed(0);
  auto model = rank() == 1 ? torch::nn::Sequential(torch::nn::Linear(3, 2))
                           : torch::nn::Sequential(torch::nn::Linear(4, 2));
  try {
    DistributedDataParallel ddp(model, pg());
    ADD_FAILURE() << "rank " << rank() << " built DDP over mismatched models";
  } catch (const std::invalid_argument& error) {
    // The same message on every rank, naming the parameter and the rank.
    EXPECT_THAT(
        error.what(),
        testing::AllOf(testing::HasSubstr("parameter 0 (0.weight here)"),
                       testing::HasSubstr("rank 1 has Float[2, 3], "
                                          "rank 0 has Float[2, 4]")));
  }
}

}  // namespace
