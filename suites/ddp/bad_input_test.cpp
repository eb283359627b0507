// What a user can get wrong fails on every rank with std::invalid_argument
// instead of hanging the ranks that got it right.

#include <gmock/gmock.h>
#include <torch/nn/modules/linear.h>

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

// Refused before any collective, so every rank refuses alike.
RANKTEST_F(DdpParityBadInput, NegativeBucketCapIsRefused) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  EXPECT_THAT(
      [&] { DistributedDataParallel ddp(model, pg(), {.bucket_cap_mb = -1}); },
      testing::ThrowsMessage<std::invalid_argument>(
          testing::HasSubstr("bucket_cap_mb must be >= 0")));
}

}  // namespace
}  // namespace ddpparity
