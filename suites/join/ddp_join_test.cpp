// DDP under Join beyond parity: a disabled Join costs nothing, early
// termination throws on every rank, a rank may join before its first
// iteration, a joined rank takes the reduced gradients in its parameters'
// layouts, and an exception in the loop propagates.

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <map>
#include <string>
#include <vector>

#include "all_reducer.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/replay.h"
#include "fixtures/training.h"
#include "ranktest/ranktest.h"

namespace join_suite {
namespace {

using distalgo::ddp::DistributedDataParallel;
using testing::HasSubstr;

constexpr double kLearningRate = 0.1;

// Parameters that are not row-major: a channels_last weight and a transposed
// matrix, each dense, so that the reducer lays their gradients out in their
// own strides.
struct StridedNetImpl : torch::nn::Module {
  StridedNetImpl() {
    weight = register_parameter(
        "weight",
        at::randn({2, 3, 2, 2}).contiguous(at::MemoryFormat::ChannelsLast));
    matrix = register_parameter("matrix", at::randn({4, 3}).t());
  }
  at::Tensor forward(const at::Tensor& x) {
    return (x * weight).sum() +
           (x.reshape({3, 8}).narrow(1, 0, 4) * matrix).sum();
  }
  at::Tensor weight;
  at::Tensor matrix;
};
TORCH_MODULE(StridedNet);

class JoinDdpBehaviour : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }

 protected:
  static at::Tensor loss(DistributedDataParallel<torch::nn::Sequential>& ddp,
                         int step, int rank) {
    const auto b = fixtures::rankBatch(step, rank, 5, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
    return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  }

  // The model equals the single-process replay of the MLP on `inputs`.
  void expectReplayOf(const torch::nn::Module& model,
                      const std::vector<int>& inputs) const {
    auto expected = fixtures::makeMlp(/*seed=*/1);
    fixtures::replayDataParallel(*expected,
                                 {.world_size = worldSize(),
                                  .learning_rate = kLearningRate,
                                  .inputs = inputs},
                                 [&](int step, int r) {
                                   const auto b = fixtures::rankBatch(
                                       step, r, 5, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
                                   return torch::nn::functional::mse_loss(
                                       expected->forward(b.input), b.target);
                                 });
    const auto actual = model.parameters();
    const auto want = expected->parameters();
    for (std::size_t i = 0; i < actual.size(); ++i) {
      EXPECT_TRUE(at::allclose(actual[i], want[i], 1e-5, 1e-6))
          << "parameter " << i;
    }
  }

  // What this rank sends, per collective, training `inputs` steps with DDP,
  // inside a Join with `enable` (none: no Join).
  std::map<std::string, ranktest::Traffic> trafficOf(std::optional<bool> enable,
                                                     int inputs) {
    auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
    auto model = fixtures::makeMlp(/*seed=*/1);
    DistributedDataParallel ddp(model, counting);
    std::optional<distalgo::join::Join> join;
    if (enable)
      join.emplace(std::vector<distalgo::join::Joinable*>{&ddp},
                   distalgo::join::JoinOptions{.enable = *enable});
    fixtures::sgdSteps(model->parameters(), inputs, kLearningRate,
                       [&](int step) { return loss(ddp, step, rank()); });
    if (join) join->finish();
    return counting->allTraffic();
  }
};

RANKTEST_F(JoinDdpBehaviour, DisabledJoinSendsExactlyWhatDdpAloneSends) {
  constexpr int kEvenInputs = 3;
  const auto alone = trafficOf(std::nullopt, kEvenInputs);
  const auto disabled = trafficOf(false, kEvenInputs);
  const auto enabled = trafficOf(true, kEvenInputs);
  ASSERT_EQ(disabled.size(), alone.size());
  for (const auto& [collective, traffic] : alone) {
    EXPECT_EQ(disabled.at(collective).calls, traffic.calls) << collective;
    EXPECT_EQ(disabled.at(collective).bytes, traffic.bytes) << collective;
  }
  // Enabled: per input a heartbeat, which carries the "backward reduces"
  // flag too; then the loop's count and the last joiner's rank (and the
  // final broadcast).
  EXPECT_EQ(enabled.at("allreduce").calls,
            alone.at("allreduce").calls + kEvenInputs + 2);
}

RANKTEST_F(JoinDdpBehaviour, EarlyTerminationThrowsOnEveryRank) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  const int inputs = rank() == 0 ? 2 : 4;
  try {
    auto join = ddp.join(true, {.throw_on_early_termination = true});
    fixtures::sgdSteps(model->parameters(), inputs, kLearningRate,
                       [&](int step) { return loss(ddp, step, rank()); });
    join.finish();
    ADD_FAILURE() << "rank " << rank() << " did not throw";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(),
                HasSubstr(rank() == 0 ? "Rank 0 exhausted all inputs."
                                      : "Detected at least one rank that "
                                        "exhausted inputs."));
  }
}

RANKTEST_F(JoinDdpBehaviour, RankWithoutInputsJoinsBeforeItsFirstIteration) {
  std::vector<int> inputs(worldSize(), 3);
  inputs[0] = 0;
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  auto join = ddp.join();
  fixtures::sgdSteps(model->parameters(), inputs[rank()], kLearningRate,
                     [&](int step) { return loss(ddp, step, rank()); });
  join.finish();

  expectReplayOf(*model, inputs);
  EXPECT_EQ(ddp.authoritativeRank(), worldSize() - 1);
}

// Trains `model` under a Join, rank 0 one step and the others two, and
// expects every rank to end with the gradients of rank 0, which joined
// first: the training ranks' reduced ones.
void expectJoinedRankTakesTheReducedGradients(
    DistributedDataParallel<StridedNet>& ddp, StridedNet& model,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg) {
  auto join = ddp.join();
  for (int step = 0; step < (pg->getRank() == 0 ? 1 : 2); ++step) {
    fixtures::zeroGrads(model->parameters());
    // Every element differs, so that a reading in another order shows.
    ddp.forward(at::arange(24, at::kFloat).view({2, 3, 2, 2}) + 100 * step +
                pg->getRank())
        .backward();
  }
  join.finish();
  for (const auto& item : model->named_parameters()) {
    const at::Tensor grad = item.value().grad();
    std::vector<at::Tensor> joined_rank{grad.clone()};
    pg->broadcast(joined_rank)->wait();
    EXPECT_TRUE(at::equal(joined_rank[0], grad))
        << item.key() << ": rank 0 (joined) holds "
        << joined_rank[0].reshape(-1) << "\nrank " << pg->getRank() << " holds "
        << grad.reshape(-1);
  }
}

// A joined rank writes the training ranks' reduced gradient into its own
// parameters (for an optimizer stepping there, as ZeRO's join hook does),
// read in each parameter's layout as the reducer lays the bucket out.
RANKTEST_F(JoinDdpBehaviour, JoinedRankReadsGradientsInTheParametersLayout) {
  StridedNet model;
  ASSERT_FALSE(model->weight.is_contiguous());
  ASSERT_FALSE(model->matrix.is_contiguous());
  DistributedDataParallel ddp(model, pg());
  expectJoinedRankTakesTheReducedGradients(ddp, model, pg());
}

// A hook may leave a compressed copy in the bucket (setBuffer): a joined
// rank still reads the result at the offsets of the bucket's own buffer.
RANKTEST_F(JoinDdpBehaviour, JoinedRankReadsGradientsPastAReplacedBuffer) {
  StridedNet model;
  DistributedDataParallel ddp(model, pg());
  ddp.registerCommHook(
      [pg = pg()](distalgo::ddp::GradBucket& bucket) {
        std::vector<at::Tensor> tensors{bucket.buffer() / pg->getSize()};
        bucket.setBuffer(tensors[0].narrow(0, 0, 1).clone());
        return pg->allreduce(tensors)->getFuture();
      },
      "shrinks_the_buffer");
  expectJoinedRankTakesTheReducedGradients(ddp, model, pg());
}

// Not the first joinable, DDP sends its own "backward reduces" flag; the
// result is the same replay.
RANKTEST_F(JoinDdpBehaviour, SecondJoinableSendsItsOwnFlag) {
  std::vector<int> inputs;
  for (int r = 0; r < worldSize(); ++r) inputs.push_back(2 + r);
  AllReducer first("first", pg());
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  distalgo::join::Join join({&first, &ddp});
  fixtures::sgdSteps(model->parameters(), inputs[rank()], kLearningRate,
                     [&](int step) {
                       first();
                       return loss(ddp, step, rank());
                     });
  join.finish();
  expectReplayOf(*model, inputs);
}

// Every other step accumulates under noSync: joined ranks must skip those
// (the heartbeat's flag says so) and shadow only the reducing ones, or the
// collectives mismatch and the test times out.
RANKTEST_F(JoinDdpBehaviour, NoSyncStepsAreNotShadowed) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  auto join = ddp.join();
  const int inputs = 4 + 2 * rank();
  for (int step = 0; step < inputs; ++step) {
    if (step % 2 == 0) {
      distalgo::ddp::zeroGradients(*model);
      auto no_sync = ddp.noSync();
      loss(ddp, step, rank()).backward();
    } else {
      loss(ddp, step, rank()).backward();
      fixtures::sgdUpdate(model->parameters(), kLearningRate);
    }
  }
  join.finish();
  EXPECT_EQ(ddp.authoritativeRank(), worldSize() - 1);
  for (const auto& p : model->parameters()) {
    std::vector<at::Tensor> mine{p.detach().clone()};
    pg()->broadcast(mine)->wait();
    EXPECT_TRUE(at::equal(mine[0], p)) << "ranks end with different models";
  }
}

RANKTEST_F(JoinDdpBehaviour, ExceptionInTheLoopPropagatesThroughTheJoin) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  try {
    distalgo::join::Join::run({&ddp}, {}, {}, [&] {
      loss(ddp, 0, rank()).backward();
      // Every rank fails alike: an input of the wrong width.
      ddp.forward(at::ones({2, fixtures::kMlpInputs + 1}));
    });
    ADD_FAILURE() << "the exception was swallowed";
  } catch (const c10::Error& error) {
    EXPECT_THAT(error.what_without_backtrace(), HasSubstr("mat1 and mat2"));
  }
  EXPECT_FALSE(ddp.joinConfig().enable);
}

}  // namespace
}  // namespace join_suite
