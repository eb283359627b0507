#include "averaging/modes.h"

#include <torch/optim/sgd.h>

#include <cstdint>
#include <memory>

#include "distalgo/averaging/periodic_model_averager.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/post_local_sgd.h"
#include "distalgo/optim/functional_sgd.h"
#include "distalgo/optim/hook_then_optimizer.h"
#include "distalgo/optim/post_local_sgd_optimizer.h"
#include "ranktest/counting_process_group.h"

namespace averaging_bench {
namespace {

using bench_common::Group;
using bench_common::ModelRow;
using bench_common::ModeRunner;
using distalgo::ddp::DdpOptions;
using Counting = c10::intrusive_ptr<ranktest::CountingProcessGroup>;

// A runner whose DDP (and whatever else the mode builds over `counting`)
// sends through `counting`, counted from the end of warm-up.
std::unique_ptr<ModeRunner> countingRunner(const ModelRow& model,
                                           const Counting& counting,
                                           const DdpOptions& options) {
  auto runner = std::make_unique<ModeRunner>(model, counting, options);
  runner->after_warmup = [counting] { counting->reset(); };
  runner->per_rank_value = [counting] {
    std::int64_t bytes = 0;
    for (const auto& [collective, traffic] : counting->allTraffic()) {
      bytes += traffic.bytes;
    }
    return bytes;
  };
  return runner;
}

Counting counted(const Group& group) {
  return c10::make_intrusive<ranktest::CountingProcessGroup>(group);
}

std::shared_ptr<torch::optim::SGD> libtorchSgd(ModeRunner& runner) {
  return std::make_shared<torch::optim::SGD>(
      runner.ddp.module()->parameters(),
      torch::optim::SGDOptions(kLearningRate));
}

std::unique_ptr<ModeRunner> plainDdp(const ModelRow& model, const Group& group,
                                     const DdpOptions& options) {
  auto runner = countingRunner(model, counted(group), options);
  auto sgd = libtorchSgd(*runner);
  runner->step = [sgd] { sgd->step(); };
  return runner;
}

// Local SGD from the first step (start_local_sgd_iter 0): gradients
// reduced within the node (one machine: every rank) or not at all, the
// model averaged over every rank each kPeriod steps.
std::unique_ptr<ModeRunner> postLocal(const ModelRow& model, const Group& group,
                                      const DdpOptions& options,
                                      bool post_local_gradient_allreduce) {
  const Counting counting = counted(group);
  auto runner = countingRunner(model, counting, options);
  auto state = std::make_shared<distalgo::hooks::PostLocalSgdState>(
      distalgo::hooks::PostLocalSgdOptions{
          .start_local_sgd_iter = 0,
          .post_local_gradient_allreduce = post_local_gradient_allreduce},
      // The node's group is the whole group here: count what it sends.
      distalgo::groups::SubgroupProvider::of(counting));
  runner->ddp.registerCommHook(
      distalgo::hooks::postLocalSgdHook(state, counting));
  auto optimizer = std::make_shared<distalgo::optim::PostLocalSgdOptimizer>(
      libtorchSgd(*runner),
      std::make_shared<distalgo::averaging::PeriodicModelAverager>(counting,
                                                                   kPeriod));
  runner->step = [optimizer] { optimizer->step(); };
  return runner;
}

distalgo::optim::SgdOptions functionalOptions() {
  return {.lr = kLearningRate};
}

std::unique_ptr<ModeRunner> functionalAfter(const ModelRow& model,
                                            const Group& group,
                                            const DdpOptions& options) {
  auto runner = countingRunner(model, counted(group), options);
  auto sgd =
      std::make_shared<distalgo::optim::FunctionalSgd>(functionalOptions());
  runner->step = [sgd, params = runner->ddp.module()->parameters()] {
    sgd->step(params);
  };
  return runner;
}

std::unique_ptr<ModeRunner> functionalInHook(const ModelRow& model,
                                             const Group& group,
                                             const DdpOptions& options) {
  const Counting counting = counted(group);
  auto runner = countingRunner(model, counting, options);
  runner->ddp.registerCommHook(distalgo::optim::hookThenOptimizer(
      distalgo::hooks::allreduceHook(counting),
      std::make_shared<distalgo::optim::FunctionalSgd>(functionalOptions())));
  runner->step = [] {};
  return runner;
}

}  // namespace

const std::vector<ModeRow>& modeRows() {
  static const std::vector<ModeRow> rows = {
      {"ddp", "DDP (gradient allreduce) + libtorch's SGD", &plainDdp},
      {"local_sgd_4",
       "post-local SGD hook without gradient allreduce "
       "(post_local_gradient_allreduce false) + PostLocalSgdOptimizer over "
       "SGD and a PeriodicModelAverager of period 4: the parameters are "
       "averaged every 4th step, nothing else is sent",
       [](const ModelRow& m, const Group& g, const DdpOptions& o) {
         return postLocal(m, g, o, /*post_local_gradient_allreduce=*/false);
       }},
      {"post_local_4",
       "the same with gradients allreduced within the node (one machine: "
       "every rank), so the averaging comes on top of DDP's traffic",
       [](const ModelRow& m, const Group& g, const DdpOptions& o) {
         return postLocal(m, g, o, /*post_local_gradient_allreduce=*/true);
       }},
      {"functional_sgd",
       "DDP + distalgo's FunctionalSgd stepped over every parameter after "
       "backward",
       &functionalAfter},
      {"hook_sgd",
       "DDP + hookThenOptimizer(allreduceHook, FunctionalSgd): each bucket's "
       "parameters stepped as soon as it is reduced, no step after backward",
       &functionalInHook},
  };
  return rows;
}

}  // namespace averaging_bench
