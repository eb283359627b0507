// averaging: the bytes sent and the time per step of DDP with SGD against
// post-local SGD with period 4 and against SGD stepped inside the hook.

#include <torch/optim/sgd.h>

#include <memory>

#include "algorithms/benchmarks.h"
#include "algorithms/ddp_variants.h"
#include "distalgo/averaging/periodic_model_averager.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/post_local_sgd.h"
#include "distalgo/optim/functional_sgd.h"
#include "distalgo/optim/hook_then_optimizer.h"
#include "distalgo/optim/post_local_sgd_optimizer.h"

namespace bench {
namespace {

constexpr double kLearningRate = 0.01;
constexpr int kPeriod = 4;

// Local SGD from the first step: gradients reduced within the node (one
// machine: every rank) or not at all, the parameters averaged over every
// rank each kPeriod steps. Everything sends through the mode's counting
// group.
void usePostLocalSgd(DdpMode& mode, bool post_local_gradient_allreduce) {
  auto state = std::make_shared<distalgo::hooks::PostLocalSgdState>(
      distalgo::hooks::PostLocalSgdOptions{
          .start_local_sgd_iter = 0,
          .post_local_gradient_allreduce = post_local_gradient_allreduce},
      distalgo::groups::SubgroupProvider::of(mode.group()));
  mode.ddp().registerCommHook(
      distalgo::hooks::postLocalSgdHook(state, mode.group()));
  auto optimizer = std::make_shared<distalgo::optim::PostLocalSgdOptimizer>(
      std::make_shared<torch::optim::SGD>(
          mode.ddp().module()->parameters(),
          torch::optim::SGDOptions(kLearningRate)),
      std::make_shared<distalgo::averaging::PeriodicModelAverager>(mode.group(),
                                                                   kPeriod));
  mode.setOptimizerStep([optimizer] { optimizer->step(); });
}

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
       {"local_sgd_4", [](DdpMode& m) { usePostLocalSgd(m, false); }},
       {"post_local_4", [](DdpMode& m) { usePostLocalSgd(m, true); }},
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
