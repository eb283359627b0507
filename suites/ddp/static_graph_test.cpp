// static_graph: the first iteration's backward only records which parameters
// get gradients; reducer.delay_all_reduce(), queued by the output sink, then
// reduces them all at its end. Later iterations reduce bucket by bucket from
// that record, without searching the graph for unused parameters.

#include <torch/nn/functional/loss.h>

#include <string>
#include <vector>

#include "ddp_parity.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/ddp_training.h"
#include "fixtures/training.h"

namespace ddpparity {
namespace {

using distalgo::ddp::DistributedDataParallel;

class DdpParityStaticGraph : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }
};

bool isUnused(const std::string& name) {
  return name.find("unused") != std::string::npos;
}

// Past the third forward, where the reducer rebuilds its buckets.
constexpr int kStaticSteps = 6;

RANKTEST_F(DdpParityStaticGraph,
           UnusedParameterNeverChangesAndTrainingMatches) {
  const auto initial = makeModel(Model::kUnusedParameterNet, /*seed=*/1);
  const auto initial_parameters = initial->named_parameters();
  const auto checkUnused = [&](int step, fixtures::SequentialDdp& ddp) {
    const auto parameters = ddp.module()->named_parameters();
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      if (!isUnused(parameters[i].key())) continue;
      EXPECT_FALSE(parameters[i].value().grad().defined())
          << parameters[i].key() << " got a gradient at step " << step
          << " on rank " << rank();
      EXPECT_TRUE(
          at::equal(parameters[i].value(), initial_parameters[i].value()))
          << parameters[i].key() << " changed at step " << step << " on rank "
          << rank();
    }
  };
  const auto trained = fixtures::trainUnderDdp(
      pg(), {.make_model =
                 [&] {
                   return makeModel(Model::kUnusedParameterNet,
                                    rank() == 0 ? 1 : 7);
                 },
             .ddp = {.static_graph = true},
             .rank = rank(),
             .rows = kRows,
             .steps = kStaticSteps,
             .learning_rate = kLearningRate,
             .after_step = checkUnused});
  const auto reference = groundTruth(Model::kUnusedParameterNet, worldSize(),
                                     /*broadcast_buffers=*/true, kStaticSteps);
  fixtures::expectSameParameters(*trained.model, *reference.model, kTolerance);
}

// Without the delayed allreduce the first backward would leave each rank's
// own gradients (and the next forward would fail on an unfinished
// reduction).
RANKTEST_F(DdpParityStaticGraph, FirstBackwardReducesEveryGradient) {
  auto model = makeModel(Model::kMlp, /*seed=*/1);
  DistributedDataParallel ddp(model, pg(), {.static_graph = true});
  const auto local = batch(0, rank());
  torch::nn::functional::mse_loss(ddp.forward(local.input), local.target)
      .backward();

  auto reference = makeModel(Model::kMlp, /*seed=*/1);
  const auto all = globalBatch(0, worldSize());
  torch::nn::functional::mse_loss(reference->forward(all.input), all.target)
      .backward();
  fixtures::expectSameTensors(fixtures::gradientSnapshot(*model),
                              fixtures::gradientSnapshot(*reference),
                              kTolerance, model->named_parameters().keys());
}

}  // namespace
}  // namespace ddpparity
