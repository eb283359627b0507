// ZeRO's state dict refusals: a target rank outside the group, a state dict
// asked for where none was consolidated or after the state changed, and
// bytes that are no optimizer state or one of another shape.

#include <gmock/gmock.h>
#include <torch/optim/sgd.h>
#include <torch/serialize.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/models.h"
#include "ranktest/ranktest.h"
#include "state_dict_helpers.h"
#include "torch_compat/optimizer_state.h"
#include "zero_parity.h"

namespace zero_suite {
namespace {

using distalgo::zero::ZeroRedundancyOptimizer;
using testing::HasSubstr;
using testing::ThrowsMessage;

class ZeroStateDictErrors : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }
};

// A plain SGD over `groups`, stepped once so that every parameter has a
// momentum buffer, saved.
std::string steppedPlainState(
    std::vector<torch::optim::OptimizerParamGroup> groups) {
  auto plain = sgdCase().factory(std::move(groups));
  for (auto& group : plain->param_groups()) {
    for (auto& p : group.params()) p.mutable_grad() = at::ones_like(p);
  }
  plain->step();
  return savePlain(*plain);
}

RANKTEST_F(ZeroStateDictErrors, RefusesATargetOutsideTheGroup) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  ZeroRedundancyOptimizer zero(twoGroups(model, sgdCase()), pg(),
                               sgdCase().factory);
  const auto message = [&](int to) {
    return "rank " + std::to_string(to) + " is not in [0, " +
           std::to_string(worldSize()) + ")";
  };
  EXPECT_THAT([&] { zero.consolidateStateDict(-1); },
              ThrowsMessage<std::invalid_argument>(HasSubstr(message(-1))));
  EXPECT_THAT(
      [&] { zero.consolidateStateDict(worldSize()); },
      ThrowsMessage<std::invalid_argument>(HasSubstr(message(worldSize()))));
  // No collective started: the ranks still agree on the next one.
  zero.consolidateStateDict(worldSize() - 1);
  if (rank() == worldSize() - 1) {
    EXPECT_FALSE(zero.stateDict().empty());
  }
}

RANKTEST_F(ZeroStateDictErrors, StateDictOnlyWhereFreshlyConsolidated) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  ZeroRedundancyOptimizer zero(
      std::vector<torch::optim::OptimizerParamGroup>{
          firstLayer(model, sgdCase())},
      pg(), sgdCase().factory);
  const auto none =
      ThrowsMessage<std::logic_error>(HasSubstr("holds no consolidated state"));
  const auto stale = ThrowsMessage<std::logic_error>(HasSubstr("is stale"));
  EXPECT_THAT([&] { zero.stateDict(); }, none);

  const int last = worldSize() - 1;
  const auto consolidate = [&] {
    zero.consolidateStateDict(last);
    if (rank() == last) {
      EXPECT_NO_THROW(zero.stateDict());
    } else {
      EXPECT_THAT([&] { zero.stateDict(); }, none);
    }
  };
  const auto expectStale = [&] {
    if (rank() == last) {
      EXPECT_THAT([&] { zero.stateDict(); }, stale);
    }
  };
  consolidate();
  setGradients(model, 0);
  zero.step();
  expectStale();

  consolidate();
  zero.addParamGroup(lastLayer(model, sgdCase()));
  expectStale();

  consolidate();
  zero.loadStateDict(steppedPlainState(twoGroups(model, sgdCase())));
  expectStale();
}

RANKTEST_F(ZeroStateDictErrors, RefusesBytesThatAreNoOptimizerState) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  ZeroRedundancyOptimizer zero(twoGroups(model, sgdCase()), pg(),
                               sgdCase().factory);
  zero.consolidateStateDict(0);
  const auto refused = ThrowsMessage<std::invalid_argument>(
      HasSubstr("not a libtorch optimizer archive"));
  EXPECT_THAT([&] { zero.loadStateDict("garbage"); }, refused);
  EXPECT_THAT([&] { zero.loadStateDict(""); }, refused);
  // A libtorch archive, but of a tensor.
  std::ostringstream tensor;
  torch::save(at::ones({2}), tensor);
  EXPECT_THAT([&] { zero.loadStateDict(tensor.str()); }, refused);
  // Nothing changed: the consolidation is still current.
  if (rank() == 0) {
    EXPECT_NO_THROW(zero.stateDict());
  }
}

RANKTEST_F(ZeroStateDictErrors, RefusesAStateOfAnotherShape) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  ZeroRedundancyOptimizer zero(twoGroups(model, sgdCase()), pg(),
                               sgdCase().factory);
  const auto p = model->parameters();
  const auto refused = [](const std::string& what) {
    return ThrowsMessage<std::invalid_argument>(HasSubstr(what));
  };
  using Group = torch::optim::OptimizerParamGroup;
  using Groups = std::vector<Group>;

  const auto one_group =
      steppedPlainState(Groups{Group({p[0], p[1], p[2], p[3]})});
  EXPECT_THAT([&] { zero.loadStateDict(one_group); },
              refused("the state has 1 parameter groups, this optimizer 2"));

  const auto split =
      steppedPlainState(Groups{Group({p[0]}), Group({p[1], p[2], p[3]})});
  EXPECT_THAT(
      [&] { zero.loadStateDict(split); },
      refused("group 0 has 1 parameters in the state, 2 in this optimizer"));

  auto other = torch::zeros({16, 9}).requires_grad_();  // p[0] is 16x8
  const auto sizes =
      steppedPlainState(Groups{Group({other, p[1]}), Group({p[2], p[3]})});
  EXPECT_THAT([&] { zero.loadStateDict(sizes); },
              refused("group 0, parameter 0: the state's 'momentum_buffer' "
                      "has sizes [16, 9], the parameter [16, 8]"));
  // And the message names the call and the rank.
  EXPECT_THAT([&] { zero.loadStateDict(sizes); },
              refused("ZeroRedundancyOptimizer::loadStateDict on rank " +
                      std::to_string(rank())));
}

// An SGD state over `groups` (a momentum buffer of ones for each parameter)
// with its parameters named as libtorch 1.x's Optimizer::save names them:
// their TensorImpl addresses in hex.
std::string hexNamedSgdState(
    const std::vector<std::vector<at::Tensor>>& groups) {
  using torch::serialize::OutputArchive;
  OutputArchive archive;
  archive.write("pytorch_version", c10::IValue("1.5.0"));
  OutputArchive state(archive.compilation_unit());
  OutputArchive saved(archive.compilation_unit());
  saved.write("param_groups/size",
              torch::tensor(static_cast<int64_t>(groups.size())));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    OutputArchive group(archive.compilation_unit());
    group.write("params/size",
                torch::tensor(static_cast<int64_t>(groups[g].size())));
    for (std::size_t i = 0; i < groups[g].size(); ++i) {
      std::ostringstream name;
      name << groups[g][i].unsafeGetTensorImpl();
      group.write("params/" + std::to_string(i), c10::IValue(name.str()));
      OutputArchive entry(archive.compilation_unit());
      entry.write("momentum_buffer", at::ones_like(groups[g][i]));
      state.write(name.str(), entry);
    }
    OutputArchive options(archive.compilation_unit());
    torch::optim::SGDOptions(0.1).momentum(0.9).serialize(options);
    group.write("options", options);
    saved.write("param_groups/" + std::to_string(g), group);
  }
  archive.write("state", state);
  archive.write("param_groups", saved);
  std::ostringstream bytes;
  archive.save_to(bytes);
  return bytes.str();
}

// libtorch 2.x reads a parameter's name with std::stoull: 1.x's hex names
// would all read as 0. Refused there, loaded where 1.13 wrote it.
RANKTEST_F(ZeroStateDictErrors, HexNamedStateOfLibtorch1LoadsOnlyOnLibtorch1) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  ZeroRedundancyOptimizer zero(twoGroups(model, sgdCase()), pg(),
                               sgdCase().factory);
  const auto p = model->parameters();
  const auto state = hexNamedSgdState({{p[0], p[1]}, {p[2], p[3]}});
  if constexpr (std::is_same_v<torch_compat::StateKey, void*>) {
    EXPECT_THAT([&] { zero.loadStateDict(state); },
                ThrowsMessage<std::invalid_argument>(
                    HasSubstr("as libtorch 1.x names parameters (in hex)")));
  } else {
    zero.loadStateDict(state);
    for (const auto& entry : zero.partition()[rank()]) {
      const auto& sgd = dynamic_cast<const torch::optim::SGDParamState&>(
          *zero.localOptimizer().state().at(
              torch_compat::stateKey(entry.parameter)));
      EXPECT_TRUE(
          at::equal(sgd.momentum_buffer(), at::ones_like(entry.parameter)));
    }
  }
}

}  // namespace
}  // namespace zero_suite
