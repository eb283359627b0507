// averageParameters: the exact mean, in place, in one allreduce; param
// groups skip parameters without gradients; ranks outside a subgroup keep
// their parameters.

#include "distalgo/averaging/average_parameters.h"

#include <ATen/ATen.h>
#include <torch/optim/optimizer.h>

#include <vector>

#include "averaging_util.h"
#include "distalgo/groups/subgroups.h"
#include "fixtures/compare.h"
#include "ranktest/ranktest.h"

namespace averaging_suite {
namespace {

using distalgo::averaging::averageParameters;

class AveragingParameters : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }
};

RANKTEST_F(AveragingParameters, EveryTensorBecomesTheMeanInPlace) {
  // Without gradients too: the plain overload averages every tensor.
  auto params = rankParameters(rank(), /*with_grad=*/false);
  std::vector<const void*> storage;
  std::int64_t numel = 0;
  for (const auto& p : params) {
    storage.push_back(p.data_ptr());
    numel += p.numel();
  }
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  averageParameters(params, counting);
  fixtures::expectSameTensors(params, meanParameters(allRanks(worldSize())),
                              fixtures::kExact);
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i].data_ptr(), storage[i]) << "parameter " << i;
  }
  const auto allreduce = counting->traffic("allreduce");
  EXPECT_EQ(allreduce.calls, 1);
  EXPECT_EQ(allreduce.bytes, numel * 4);
}

RANKTEST_F(AveragingParameters, MixedDtypesKeepTheirDtype) {
  std::vector<at::Tensor> params{at::full({3}, rank() + 1, at::kDouble),
                                 at::full({2}, 2 * (rank() + 1), at::kFloat)};
  averageParameters(params, pg());
  const double mean = (worldSize() + 1) / 2.0;
  EXPECT_TRUE(params[0].equal(at::full({3}, mean, at::kDouble)));
  EXPECT_TRUE(params[1].equal(at::full({2}, 2 * mean, at::kFloat)));
}

RANKTEST_F(AveragingParameters, ParamGroupsSkipParametersWithoutGradients) {
  auto with_grad = rankParameters(rank());
  auto without_grad = rankParameters(rank(), /*with_grad=*/false);
  const auto untouched = without_grad[0].detach().clone();
  std::vector<torch::optim::OptimizerParamGroup> groups{
      torch::optim::OptimizerParamGroup({with_grad[0], without_grad[0]}),
      torch::optim::OptimizerParamGroup({with_grad[1], with_grad[2]})};
  averageParameters(groups, pg());
  fixtures::expectSameTensors(with_grad, meanParameters(allRanks(worldSize())),
                              fixtures::kExact);
  EXPECT_TRUE(without_grad[0].equal(untouched));
}

// PyTorch's test_average_parameters: a subgroup {0, 1} averages its members;
// the others keep their parameters.
RANKTEST_F(AveragingParameters, RanksOutsideTheGroupKeepTheirParameters,
           ranktest::worldSizes({4})) {
  const auto pair = distalgo::groups::newGroup(store(), pg(), {0, 1});
  auto params = rankParameters(rank());
  averageParameters(params, pair);
  if (rank() < 2) {
    fixtures::expectSameTensors(params, meanParameters({0, 1}),
                                fixtures::kExact);
  } else {
    fixtures::expectSameTensors(params, rankParameters(rank()),
                                fixtures::kExact);
  }
}

}  // namespace
}  // namespace averaging_suite
