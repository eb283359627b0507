#include "zero/modes.h"

#include <torch/optim/adam.h>

#include "distalgo/hooks/default_hooks.h"
#include "distalgo/zero/overlap.h"
#include "distalgo/zero/state_bytes.h"
#include "distalgo/zero/zero_redundancy_optimizer.h"

namespace zero_bench {
namespace {

using bench_common::Group;
using bench_common::ModelRow;
using distalgo::ddp::DdpOptions;

torch::optim::AdamOptions adamOptions() {
  return torch::optim::AdamOptions(kLearningRate);
}

std::unique_ptr<Runner> plainAdam(const ModelRow& model, const Group& group,
                                  const DdpOptions& options) {
  auto runner = std::make_unique<Runner>(model, group, options);
  auto adam = std::make_shared<torch::optim::Adam>(
      runner->ddp.module()->parameters(), adamOptions());
  runner->step = [adam] { adam->step(); };
  runner->state_bytes = [adam] {
    return distalgo::zero::optimizerStateBytes(*adam);
  };
  return runner;
}

std::unique_ptr<Runner> zero(const ModelRow& model, const Group& group,
                             const DdpOptions& options,
                             distalgo::zero::ZeroOptions zero_options) {
  auto runner = std::make_unique<Runner>(model, group, options);
  auto zero = std::make_shared<distalgo::zero::ZeroRedundancyOptimizer>(
      runner->ddp.module()->parameters(), group,
      distalgo::zero::localOptimizer<torch::optim::Adam>(adamOptions()),
      zero_options);
  runner->step = [zero] { zero->step(); };
  runner->state_bytes = [zero] { return zero->stateBytes(); };
  return runner;
}

// ZeRO stepped from DDP's allreduce hook: no step after backward.
std::unique_ptr<Runner> zeroOverlap(const ModelRow& model, const Group& group,
                                    const DdpOptions& options,
                                    bool interleaved) {
  auto runner = std::make_unique<Runner>(model, group, options);
  auto zero = std::make_shared<distalgo::zero::ZeroRedundancyOptimizer>(
      runner->ddp.module()->parameters(), group,
      distalgo::zero::localOptimizer<torch::optim::Adam>(adamOptions()),
      distalgo::zero::ZeroOptions{.overlap_with_ddp = true});
  auto allreduce = distalgo::hooks::allreduceHook(group);
  runner->ddp.registerCommHook(
      interleaved
          ? distalgo::zero::hookWithZeroStepInterleaved(allreduce, runner->ddp,
                                                        *zero)
          : distalgo::zero::hookWithZeroStep(allreduce, runner->ddp, *zero));
  runner->step = [] {};
  runner->state_bytes = [zero] { return zero->stateBytes(); };
  return runner;
}

}  // namespace

const std::vector<ModeRow>& modeRows() {
  static const std::vector<ModeRow> rows = {
      {"adam", "DDP + libtorch's Adam over every parameter", &plainAdam},
      {"zero",
       "DDP + ZeroRedundancyOptimizer over Adam: each rank steps its shard, "
       "then every parameter is broadcast from its owner",
       [](const ModelRow& m, const Group& g, const DdpOptions& o) {
         return zero(m, g, o, {});
       }},
      {"zero_bucket_view",
       "the same with parameters_as_bucket_view: one broadcast per rank",
       [](const ModelRow& m, const Group& g, const DdpOptions& o) {
         return zero(m, g, o, {.parameters_as_bucket_view = true});
       }},
      {"zero_overlap",
       "ZeRO stepped by DDP's hook (hookWithZeroStep over allreduce): after "
       "the last bucket is reduced, each rank steps its buckets and every "
       "bucket is broadcast, inside backward",
       [](const ModelRow& m, const Group& g, const DdpOptions& o) {
         return zeroOverlap(m, g, o, /*interleaved=*/false);
       }},
      {"zero_overlap_interleaved",
       "the same with hookWithZeroStepInterleaved: each bucket is stepped and "
       "broadcast as soon as it is reduced, while backward goes on",
       [](const ModelRow& m, const Group& g, const DdpOptions& o) {
         return zeroOverlap(m, g, o, /*interleaved=*/true);
       }},
  };
  return rows;
}

const ModeRow* findMode(const std::string& name) {
  for (const ModeRow& row : modeRows()) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace zero_bench
