// averaging: the bytes sent and the time per step of DDP with SGD against
// post-local SGD with period 4 and against SGD stepped inside the hook.

#include <memory>

#include "algorithms/benchmarks.h"
#include "algorithms/ddp_variants.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/optim/functional_sgd.h"
#include "distalgo/optim/hook_then_optimizer.h"

namespace bench {
namespace {

constexpr double kLearningRate = 0.01;
constexpr int kPeriod = 4;

std::shared_ptr<distalgo::optim::FunctionalSgd> functionalSgd() {
  return std::make_shared<distalgo::optim::FunctionalSgd>(
      distalgo::optim::SgdOptions{.lr = kLearningRate});
}

}  // namespace

void averaging(Flags& flags) {
  // Warm-up and blocks in multiples of the period, so that every block
  // holds as many averaging steps.
  const ModelCells cells = modelCellFlags(
      flags, "mlp,deep_mlp",
      {.warmup = 2 * kPeriod, .steps = 96, .block = 2 * kPeriod}, 4);
  const SampleFile out(flags.text("out", ""), variantHeader({}));
  flags.checkAllRead();
  timeVariants(
      cells,
      {{"ddp", [](DdpMode& m) { useSgd(m, kLearningRate); }},
       // The node is every rank here: its subgroup is the counting group,
       // so that the gradients' bytes count.
       {"local_sgd_4",
        [](DdpMode& m) {
          useLocalSgd(m, distalgo::groups::SubgroupProvider::of(m.group()),
                      false, kPeriod);
        }},
       {"post_local_4",
        [](DdpMode& m) {
          useLocalSgd(m, distalgo::groups::SubgroupProvider::of(m.group()),
                      true, kPeriod);
        }},
       {"functional_sgd",
        [](DdpMode& m) {
          m.setOptimizerStep([sgd = functionalSgd(),
                              parameters = m.ddp().module()->parameters()] {
            sgd->step(parameters);
          });
        }},
       {"hook_sgd",
        [](DdpMode& m) {
          m.ddp().registerCommHook(distalgo::optim::hookThenOptimizer(
              distalgo::hooks::allreduceHook(m.group()), functionalSgd()));
        }}},
      {}, out);
}

}  // namespace bench
