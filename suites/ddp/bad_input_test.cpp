// What a user can get wrong fails on every rank with std::invalid_argument
// instead of hanging the ranks that got it right.

#include <gmock/gmock.h>
#include <torch/nn/modules/linear.h>

#include <limits>

#include "ddp_parity.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"

namespace ddpparity {
namespace {

using distalgo::ddp::DistributedDataParallel;

class DdpParityBadInput : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }
};

// DDP over `model`, whose 0.weight is [2, 3] on rank 1 and [2, 4] on the
// others, fails on this rank with the message every rank gives, naming the
// parameter and the ranks.
void expectFirstWeightMismatchRefused(
    const torch::nn::Sequential& model,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg) {
  try {
    DistributedDataParallel ddp(model, pg);
    ADD_FAILURE() << "rank " << pg->getRank()
                  << " built DDP over mismatched models";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(
        error.what(),
        testing::AllOf(testing::HasSubstr("parameter 0 (0.weight here)"),
                       testing::HasSubstr("rank 1 has Float[2, 3], "
                                          "rank 0 has Float[2, 4]")));
  }
}

// Every rank, not only the odd one, gets an error instead of a hang.
RANKTEST_F(DdpParityBadInput, MismatchedModelsFailOnEveryRank) {
  torch::manual_seed(0);
  expectFirstWeightMismatchRefused(
      torch::nn::Sequential(torch::nn::Linear(rank() == 1 ? 3 : 4, 2)), pg());
}

// Frozen parameters are broadcast, as in PyTorch, so checked too.
RANKTEST_F(DdpParityBadInput, MismatchedFrozenLayerFailsOnEveryRank) {
  torch::manual_seed(0);
  const torch::nn::Linear frozen(rank() == 1 ? 3 : 4, 2);
  for (at::Tensor& parameter : frozen->parameters()) {
    parameter.set_requires_grad(false);
  }
  expectFirstWeightMismatchRefused(
      torch::nn::Sequential(frozen, torch::nn::Linear(2, 2)), pg());
}

// A rank that froze other parameters would reduce other buckets.
RANKTEST_F(DdpParityBadInput, DifferentlyFrozenModelsFailOnEveryRank) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  if (rank() == 1) {
    for (at::Tensor& parameter : model->ptr(0)->parameters()) {
      parameter.set_requires_grad(false);
    }
  }
  EXPECT_THAT([&] { DistributedDataParallel ddp(model, pg()); },
              testing::ThrowsMessage<std::invalid_argument>(
                  testing::HasSubstr("rank 1 has 2 parameters, rank 0 has 4")));
}

// Refused before any collective, so every rank refuses alike.
RANKTEST_F(DdpParityBadInput, NegativeBucketCapIsRefused) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  EXPECT_THAT(
      [&] { DistributedDataParallel ddp(model, pg(), {.bucket_cap_mb = -1}); },
      testing::ThrowsMessage<std::invalid_argument>(
          testing::HasSubstr("bucket_cap_mb must be >= 0")));
  // Not a number of bytes c10d can hold: refused, not converted to anything.
  for (const double cap : {std::numeric_limits<double>::infinity(), 1e30}) {
    EXPECT_THAT(
        [&] {
          DistributedDataParallel ddp(model, pg(), {.bucket_cap_mb = cap});
        },
        testing::ThrowsMessage<std::invalid_argument>(
            testing::HasSubstr("bucket_cap_mb must be below 2^43")));
  }
}

}  // namespace
}  // namespace ddpparity
