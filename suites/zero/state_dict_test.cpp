// ZeRO's state dict round trips: the consolidated state continues training
// in a plain libtorch optimizer and in a fresh ZeRO exactly as ZeRO does,
// and a plain optimizer's saved state continues in ZeRO. Every optimizer
// runs the same kernels on the same inputs on both sides, so the comparisons
// are bit for bit.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/optim/sgd.h>

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/compare.h"
#include "fixtures/models.h"
#include "ranktest/ranktest.h"
#include "state_dict_helpers.h"
#include "torch_compat/optimizer_state.h"
#include "zero_parity.h"

namespace zero_suite {
namespace {

using distalgo::zero::ZeroRedundancyOptimizer;

constexpr int kStepsBeforeSave = 3;  // before saving
constexpr int kStepsAfterLoad = 2;   // after loading

class ZeroStateDict : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }
};

// The MLP under ZeRO over twoGroups, trained kStepsBeforeSave steps.
struct Trained {
  torch::nn::Sequential model;
  std::unique_ptr<ZeroRedundancyOptimizer> zero;
};

// For every optimizer case, with and without bucket view: the MLP trained
// kStepsBeforeSave steps under ZeRO over twoGroups, and its state consolidated
// on every rank in turn (rank 0 through the last), so each rank checks the
// state it received.
using ConsolidatedCheck = std::function<void(
    const OptimizerCase&, bool bucket_view, Trained&, const std::string&)>;
void forEachConsolidated(const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
                         const ConsolidatedCheck& check) {
  for (const auto& optimizer : optimizerCases()) {
    for (const bool bucket_view : {false, true}) {
      SCOPED_TRACE(optimizer.name + (bucket_view ? ", bucket view" : ""));
      Trained run{fixtures::makeMlp(/*seed=*/1), nullptr};
      run.zero = std::make_unique<ZeroRedundancyOptimizer>(
          twoGroups(run.model, optimizer), pg, optimizer.factory,
          distalgo::zero::ZeroOptions{.parameters_as_bucket_view =
                                          bucket_view});
      for (int step = 0; step < kStepsBeforeSave; ++step) {
        setGradients(run.model, step);
        run.zero->step();
      }
      check(optimizer, bucket_view, run, consolidateOnEveryRank(*run.zero));
    }
  }
}

bool sameParameters(torch::nn::Sequential& a, torch::nn::Sequential& b) {
  const auto pa = a->parameters();
  const auto pb = b->parameters();
  for (std::size_t i = 0; i < pa.size(); ++i) {
    if (!pa[i].equal(pb[i])) return false;
  }
  return true;
}

RANKTEST_F(ZeroStateDict, ContinuesInAPlainOptimizer) {
  forEachConsolidated(pg(), [&](const OptimizerCase& optimizer, bool,
                                Trained& run, const std::string& state) {
    auto loaded_model = copyOf(run.model);
    auto loaded = optimizer.factory(twoGroups(loaded_model, optimizer));
    loadPlain(*loaded, state);
    // Without the state, the same step goes elsewhere: the check below
    // is not vacuous.
    auto fresh_model = copyOf(run.model);
    auto fresh = optimizer.factory(twoGroups(fresh_model, optimizer));

    setGradients(run.model, kStepsBeforeSave);
    run.zero->step();
    setGradients(loaded_model, kStepsBeforeSave);
    loaded->step();
    setGradients(fresh_model, kStepsBeforeSave);
    fresh->step();
    fixtures::expectSameTensors(loaded_model->parameters(),
                                run.model->parameters(), fixtures::kExact);
    EXPECT_FALSE(sameParameters(fresh_model, run.model));
  });
}

// Every parameter is named in decimal, on libtorch 1.13 too, whose own
// Optimizer::save names them in hex (2.x reads names with std::stoull), and
// the groups' options are the consolidating rank's own, as PyTorch's
// state_dict() takes its rank's param_groups, though each rank set another
// learning rate.
RANKTEST_F(ZeroStateDict, DecimalNamesAndTheConsolidatingRanksOptions) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  ZeroRedundancyOptimizer zero(twoGroups(model, sgdCase()), pg(),
                               sgdCase().factory);
  setGradients(model, 0);
  zero.step();
  const double lr = 0.5 + rank();
  for (auto& group : zero.localOptimizer().param_groups()) {
    group.options().set_lr(lr);
  }
  const std::string state = consolidateOnEveryRank(zero);

  std::istringstream bytes(state);
  const auto groups = torch::jit::load(bytes).attr("param_groups").toModule();
  for (std::size_t g = 0; g < 2; ++g) {
    const auto group =
        groups.attr("param_groups/" + std::to_string(g)).toModule();
    const auto size = group.attr("params/size").toTensor().item<int64_t>();
    for (int64_t i = 0; i < size; ++i) {
      const std::string name =
          group.attr("params/" + std::to_string(i)).toStringRef();
      EXPECT_THAT(name, testing::MatchesRegex("[0-9]+"))
          << "group " << g << ", parameter " << i;
    }
    // Read from the archive: libtorch 1.13's own load keeps an optimizer's
    // options.
    EXPECT_EQ(group.attr("options").toModule().attr("lr").toDouble(), lr)
        << "group " << g;
  }
}

// The fresh ZeRO starts with lr 1 in both groups: the load restores the
// saved 0.05 and 0.02 along with the shard's state.
RANKTEST_F(ZeroStateDict, ContinuesInAFreshZero) {
  forEachConsolidated(pg(), [&](const OptimizerCase& optimizer,
                                bool bucket_view, Trained& run,
                                const std::string& state) {
    auto model = copyOf(run.model);
    ZeroRedundancyOptimizer zero(
        twoGroupsWithLr(model, optimizer, 1.0), pg(), optimizer.factory,
        distalgo::zero::ZeroOptions{.parameters_as_bucket_view = !bucket_view});
    zero.loadStateDict(state);
    const auto& groups = zero.localOptimizer().param_groups();
    EXPECT_EQ(groups[0].options().get_lr(), 0.05);
    EXPECT_EQ(groups[1].options().get_lr(), 0.02);
    // Only this rank's shard is kept: after training, one state per owned
    // parameter.
    EXPECT_EQ(zero.localOptimizer().state().size(),
              zero.partition()[rank()].size());

    for (int step = kStepsBeforeSave; step < kStepsBeforeSave + kStepsAfterLoad;
         ++step) {
      setGradients(run.model, step);
      run.zero->step();
      setGradients(model, step);
      zero.step();
    }
    fixtures::expectSameTensors(model->parameters(), run.model->parameters(),
                                fixtures::kExact);
  });
}

RANKTEST_F(ZeroStateDict, PlainOptimizerStateContinuesInZero) {
  for (const auto& optimizer : optimizerCases()) {
    SCOPED_TRACE(optimizer.name);
    auto plain_model = fixtures::makeMlp(/*seed=*/1);
    auto plain = optimizer.factory(twoGroups(plain_model, optimizer));
    for (int step = 0; step < kStepsBeforeSave; ++step) {
      setGradients(plain_model, step);
      plain->step();
    }
    auto model = copyOf(plain_model);
    ZeroRedundancyOptimizer zero(twoGroupsWithLr(model, optimizer, 1.0), pg(),
                                 optimizer.factory);
    zero.loadStateDict(savePlain(*plain));
    for (int step = kStepsBeforeSave; step < kStepsBeforeSave + kStepsAfterLoad;
         ++step) {
      setGradients(plain_model, step);
      plain->step();
      setGradients(model, step);
      zero.step();
    }
    fixtures::expectSameTensors(model->parameters(), plain_model->parameters(),
                                fixtures::kExact);
  }
}

// After addParamGroup re-partitions, the state consolidates from the owners
// of that moment: a plain optimizer over both groups continues it.
RANKTEST_F(ZeroStateDict, ConsolidatesAfterAddParamGroup) {
  for (const auto& optimizer : optimizerCases()) {
    SCOPED_TRACE(optimizer.name);
    auto model = fixtures::makeMlp(/*seed=*/1);
    ZeroRedundancyOptimizer zero(
        std::vector<torch::optim::OptimizerParamGroup>{
            firstLayer(model, optimizer)},
        pg(), optimizer.factory);
    setGradients(model, 0);
    zero.step();
    zero.addParamGroup(lastLayer(model, optimizer));
    for (int step = 1; step < kStepsBeforeSave; ++step) {
      setGradients(model, step);
      zero.step();
    }
    const auto state = consolidateOnEveryRank(zero);
    auto loaded_model = copyOf(model);
    auto loaded = optimizer.factory(twoGroups(loaded_model, optimizer));
    loadPlain(*loaded, state);
    setGradients(model, kStepsBeforeSave);
    zero.step();
    setGradients(loaded_model, kStepsBeforeSave);
    loaded->step();
    fixtures::expectSameTensors(loaded_model->parameters(), model->parameters(),
                                fixtures::kExact);
  }
}

class ZeroStateDictCuda : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {1, 2}, .on_cuda = true};
  }
};

// The momentum buffer of `parameter` in `optimizer` (SGD).
const at::Tensor& momentumOf(const torch::optim::Optimizer& optimizer,
                             const at::Tensor& parameter) {
  return dynamic_cast<const torch::optim::SGDParamState&>(
             *optimizer.state().at(torch_compat::stateKey(parameter)))
      .momentum_buffer();
}

// As PyTorch's: the consolidated state is on the CPU, whatever device the
// shards were on, and a load puts each state on its parameter's device (here
// from a plain optimizer saved on the CPU).
RANKTEST_F(ZeroStateDictCuda, ConsolidatesOnTheCpuAndLoadsOntoEachDevice) {
  ASSERT_TRUE(device().is_cuda());
  auto model = fixtures::makeMlp(/*seed=*/1);
  model->to(device());
  ZeroRedundancyOptimizer zero(twoGroups(model, sgdCase()), pg(),
                               sgdCase().factory);
  for (const auto& p : model->parameters()) p.mutable_grad() = at::ones_like(p);
  zero.step();
  const std::string state = consolidateOnEveryRank(zero);
  auto cpu_model = fixtures::makeMlp(/*seed=*/1);
  auto plain = sgdCase().factory(twoGroups(cpu_model, sgdCase()));
  loadPlain(*plain, state);
  for (const auto& p : cpu_model->parameters()) {
    EXPECT_TRUE(momentumOf(*plain, p).device().is_cpu());
  }

  for (const auto& p : cpu_model->parameters()) {
    p.mutable_grad() = at::ones_like(p);
  }
  plain->step();
  zero.loadStateDict(savePlain(*plain));
  for (const auto& entry : zero.partition()[rank()]) {
    EXPECT_EQ(momentumOf(zero.localOptimizer(), entry.parameter).device(),
              entry.parameter.device());
  }
}

}  // namespace
}  // namespace zero_suite
