// DDP on uneven inputs without Join, on purpose: the rank with more inputs
// waits in an allreduce that the other rank never joins, while that rank
// waits for a result the first never sends (a point-to-point receive, which
// no collective can match by accident, unlike a barrier). Not registered with
// ctest: suite_join runs this binary and checks that the harness's deadline
// ends it and names both ranks.

#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>

#include <chrono>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"
#include "ranktest/ranktest.h"

namespace {

class InnerJoin : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2}, .timeout = std::chrono::seconds(2)};
  }
};

RANKTEST_F(InnerJoin, UnevenInputsWithoutJoin) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  distalgo::ddp::DistributedDataParallel ddp(model, pg());
  fixtures::sgdSteps(model->parameters(), 3 + rank(), 0.1, [&](int step) {
    const auto b = fixtures::rankBatch(step, rank(), 5, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
    return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  });
  if (rank() == 0) {
    std::vector<at::Tensor> result{at::zeros({1})};
    pg()->recv(result, /*srcRank=*/1, /*tag=*/7)->wait();
  }
}

}  // namespace
