// ZeRO as a Joinable: DDP + ZeRO on uneven inputs under Join, in either list
// order, against DDP + the plain optimizer under Join (bit for bit) and the
// single-process replay; ZeRO alone under Join; and Join's stage order.

#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/join/join.h"
#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/replay.h"
#include "fixtures/training.h"
#include "ranktest/ranktest.h"
#include "torch_compat/optimizer_state.h"
#include "zero_parity.h"

namespace zero_suite {
namespace {

using distalgo::ddp::DistributedDataParallel;
using distalgo::join::Join;
using distalgo::join::Joinable;
using distalgo::zero::ZeroRedundancyOptimizer;

constexpr int kJoinRows = 5;
constexpr int kBaseInputs = 3;
constexpr auto kDeadline = std::chrono::seconds(30);

enum class Uneven { kStaggered, kReversed, kFirstRankWithoutInputs };

// Rank r's inputs at world size w: kBaseInputs plus a per-rank offset.
int inputsOf(int r, int w, Uneven uneven) {
  static const std::vector<std::vector<int>> kOffsets = {
      {0}, {0, 1}, {0, 3, 1}, {2, 0, 3, 1}};
  const auto& offsets = kOffsets.at(w - 1);
  switch (uneven) {
    case Uneven::kStaggered:
      return kBaseInputs + offsets.at(r);
    case Uneven::kReversed:
      return kBaseInputs + offsets.at(w - 1 - r);
    case Uneven::kFirstRankWithoutInputs:
      return r == 0 ? 0 : kBaseInputs + offsets.at(r);
  }
  return 0;
}

at::Tensor loss(torch::nn::Module& model,
                const std::function<at::Tensor(const at::Tensor&)>& forward,
                int step, int rank) {
  const auto b = fixtures::rankBatch(
      step, rank, kJoinRows, fixtures::kMlpInputs, fixtures::kMlpOutputs);
  return torch::nn::functional::mse_loss(forward(b.input), b.target);
}

// Every rank's tensor equals rank 0's, bit for bit.
void expectSameOnEveryRank(const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
                           const at::Tensor& t, std::size_t index) {
  std::vector<at::Tensor> rank0s{t.detach().clone()};
  pg->broadcast(rank0s)->wait();
  EXPECT_TRUE(at::equal(rank0s[0], t)) << "parameter " << index;
}

struct ZeroJoinCase {
  std::string name;
  int optimizer;            // index into optimizerCases(): 0 SGD, 1 Adam
  bool zero_first = false;  // Join({&zero, &ddp}) instead of ({&ddp, &zero})
  bool divide_by_initial_world_size = true;
  Uneven uneven = Uneven::kStaggered;
  // Largest parameter distance from the replay, whose gradient sums in
  // another order than the allreduce (float rounding, grown by Adam's
  // normalization).
  double replay_tolerance = 1e-6;
};

class ZeroJoin : public ranktest::DistributedTestWithParam<ZeroJoinCase> {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}, .timeout = kDeadline};
  }
  static std::string paramName(const ZeroJoinCase& row, std::size_t) {
    return row.name;
  }

 protected:
  int inputsOfRank(int r) const {
    return inputsOf(r, worldSize(), param().uneven);
  }
  const OptimizerCase& optimizer() const {
    static const auto cases = optimizerCases();
    return cases.at(param().optimizer);
  }
  distalgo::join::JoinArgs joinArgs() const {
    return distalgo::join::JoinArgs().set(
        distalgo::ddp::kDivideByInitialWorldSize,
        param().divide_by_initial_world_size);
  }

  // This rank's inputs through DDP inside a Join with ZeRO (`with_zero`) or
  // with the plain optimizer over all parameters stepping on training ranks
  // only. Returns the final parameters.
  std::vector<at::Tensor> trainUnderJoin(bool with_zero) {
    auto model = fixtures::makeMlp(/*seed=*/1);
    DistributedDataParallel ddp(model, pg());
    const auto groups = std::vector<torch::optim::OptimizerParamGroup>{
        torch::optim::OptimizerParamGroup(model->parameters())};
    std::unique_ptr<ZeroRedundancyOptimizer> zero;
    std::unique_ptr<torch::optim::Optimizer> plain;
    std::vector<Joinable*> joinables{&ddp};
    if (with_zero) {
      zero = std::make_unique<ZeroRedundancyOptimizer>(groups, pg(),
                                                       optimizer().factory);
      joinables.insert(param().zero_first ? joinables.begin() : joinables.end(),
                       zero.get());
    } else {
      plain = optimizer().factory(groups);
    }
    Join join(joinables, {}, joinArgs());
    for (int step = 0; step < inputsOfRank(rank()); ++step) {
      fixtures::zeroGrads(model->parameters());
      loss(
          *model, [&](const at::Tensor& x) { return ddp.forward(x); }, step,
          rank())
          .backward();
      with_zero ? zero->step() : plain->step();
    }
    join.finish();
    return fixtures::snapshot(*model);
  }

  std::vector<at::Tensor> replay() const {
    auto model = fixtures::makeMlp(/*seed=*/1);
    auto local = optimizer().factory(
        {torch::optim::OptimizerParamGroup(model->parameters())});
    std::vector<int> inputs;
    for (int r = 0; r < worldSize(); ++r) inputs.push_back(inputsOfRank(r));
    fixtures::replayDataParallel(
        *model,
        {.world_size = worldSize(),
         .inputs = inputs,
         .divide_by_initial_world_size = param().divide_by_initial_world_size,
         .optimizer_step = [&] { local->step(); }},
        [&](int step, int r) {
          return loss(
              *model, [&](const at::Tensor& x) { return model->forward(x); },
              step, r);
        });
    return fixtures::snapshot(*model);
  }
};

RANKTEST_P(ZeroJoin, DdpPlusZeroUnevenEqualsDdpPlusOptimizerAndTheReplay) {
  const auto actual = trainUnderJoin(/*with_zero=*/true);
  const auto plain = trainUnderJoin(/*with_zero=*/false);
  const auto replayed = replay();
  for (std::size_t i = 0; i < actual.size(); ++i) {
    expectSameOnEveryRank(pg(), actual[i], i);
    // Each shard stepped on its owner, joined or not, with the training
    // ranks' averaged gradient: the very numbers of the plain optimizer.
    EXPECT_TRUE(at::equal(actual[i], plain[i]))
        << "parameter " << i << " differs from DDP + plain optimizer by "
        << (actual[i] - plain[i]).abs().max().item<double>();
    EXPECT_TRUE(
        at::allclose(actual[i], replayed[i], 0, param().replay_tolerance))
        << "parameter " << i << " differs from the replay by "
        << (actual[i] - replayed[i]).abs().max().item<double>();
  }
  // The training moved the parameters: the comparisons are not vacuous.
  EXPECT_FALSE(actual[0].equal(fixtures::makeMlp(1)->parameters()[0]));
}

const std::vector<ZeroJoinCase> kZeroJoinCases = {
    {.name = "sgd_ddp_first", .optimizer = 0},
    {.name = "sgd_zero_first", .optimizer = 0, .zero_first = true},
    {.name = "sgd_divide_by_training_ranks",
     .optimizer = 0,
     .divide_by_initial_world_size = false},
    {.name = "sgd_zero_first_divide_by_training_ranks",
     .optimizer = 0,
     .zero_first = true,
     .divide_by_initial_world_size = false},
    {.name = "sgd_reversed_offsets",
     .optimizer = 0,
     .uneven = Uneven::kReversed},
    {.name = "sgd_first_rank_joins_before_its_first_iteration",
     .optimizer = 0,
     .zero_first = true,
     .uneven = Uneven::kFirstRankWithoutInputs},
    {.name = "adam_ddp_first", .optimizer = 1, .replay_tolerance = 1e-5},
    {.name = "adam_zero_first",
     .optimizer = 1,
     .zero_first = true,
     .replay_tolerance = 1e-5},
    {.name = "adam_divide_by_training_ranks",
     .optimizer = 1,
     .divide_by_initial_world_size = false,
     .replay_tolerance = 1e-5},
    {.name = "adam_first_rank_joins_before_its_first_iteration",
     .optimizer = 1,
     .uneven = Uneven::kFirstRankWithoutInputs,
     .replay_tolerance = 1e-5},
};
RANKTEST_INSTANTIATE_P(ZeroJoin, kZeroJoinCases);

class ZeroJoinAlone : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}, .timeout = kDeadline};
  }
};

// Without DDP each rank steps its shard on its own local gradients; the
// broadcasts still leave every rank with the same parameters, and a joined
// rank's hook keeps stepping (Adam counts the steps of each owned parameter).
RANKTEST_F(ZeroJoinAlone, FinishesWithEqualParametersAndEveryShardStepped) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  ZeroRedundancyOptimizer zero(
      model->parameters(), pg(),
      distalgo::zero::localOptimizer<torch::optim::Adam>(
          torch::optim::AdamOptions(1e-2)));
  const int inputs = inputsOf(rank(), worldSize(), Uneven::kStaggered);
  int most = 0;
  for (int r = 0; r < worldSize(); ++r) {
    most = std::max(most, inputsOf(r, worldSize(), Uneven::kStaggered));
  }
  Join::run({&zero}, {}, {}, [&] {
    for (int step = 0; step < inputs; ++step) {
      fixtures::zeroGrads(model->parameters());
      loss(
          *model, [&](const at::Tensor& x) { return model->forward(x); }, step,
          rank())
          .backward();
      zero.step();
    }
  });
  const auto params = model->parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    expectSameOnEveryRank(pg(), params[i], i);
  }
  for (const auto& entry : zero.partition()[rank()]) {
    const auto& state = dynamic_cast<const torch::optim::AdamParamState&>(
        *zero.localOptimizer().state().at(
            torch_compat::stateKey(entry.parameter)));
    EXPECT_EQ(state.step(), most) << "rank " << rank() << " has " << inputs;
  }
}

// Join orders by stage: in either list order DDP (forward) sends the
// heartbeat, and ZeRO reports its group and device.
RANKTEST_F(ZeroJoinAlone, JoinMakesDdpFirstInEitherListOrder) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  ZeroRedundancyOptimizer zero(model->parameters(), pg(),
                               optimizerCases().front().factory);
  EXPECT_EQ(zero.joinProcessGroup(), pg());
  EXPECT_EQ(zero.joinDevice(), c10::Device(c10::kCPU));
  for (const auto& joinables : {std::vector<Joinable*>{&ddp, &zero},
                                std::vector<Joinable*>{&zero, &ddp}}) {
    Join join(joinables);
    EXPECT_TRUE(ddp.joinConfig().is_first_joinable);
    EXPECT_FALSE(zero.joinConfig().is_first_joinable);
    join.finish();
  }
  Join alone({&zero});
  EXPECT_TRUE(zero.joinConfig().is_first_joinable);
  alone.finish();
}

}  // namespace
}  // namespace zero_suite
