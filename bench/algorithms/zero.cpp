// zero: the step time and each rank's optimizer state of DDP with Adam
// against ZeroRedundancyOptimizer over Adam in each of its modes.

#include <torch/optim/adam.h>

#include <memory>

#include "algorithms/benchmarks.h"
#include "algorithms/ddp_variants.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/zero/overlap.h"
#include "distalgo/zero/state_bytes.h"
#include "distalgo/zero/zero_redundancy_optimizer.h"

namespace bench {
namespace {

using distalgo::zero::ZeroOptions;
using distalgo::zero::ZeroRedundancyOptimizer;

enum class Overlap { kNone, kAfterLastBucket, kInterleaved };

torch::optim::AdamOptions adamOptions() {
  return torch::optim::AdamOptions(0.001);
}

void useAdam(DdpMode& mode) {
  auto adam = std::make_shared<torch::optim::Adam>(
      mode.ddp().module()->parameters(), adamOptions());
  mode.setOptimizerStep([adam] { adam->step(); });
  mode.addRankValue("state_bytes", [adam] {
    return static_cast<double>(distalgo::zero::optimizerStateBytes(*adam));
  });
}

// ZeRO over Adam, broadcasting through the mode's counting group; with an
// overlap, stepped from DDP's allreduce hook instead of after backward.
void useZero(DdpMode& mode, ZeroOptions options, Overlap overlap) {
  options.overlap_with_ddp = overlap != Overlap::kNone;
  auto zero = std::make_shared<ZeroRedundancyOptimizer>(
      mode.ddp().module()->parameters(), mode.group(),
      distalgo::zero::localOptimizer<torch::optim::Adam>(adamOptions()),
      options);
  mode.addRankValue("state_bytes",
                    [zero] { return static_cast<double>(zero->stateBytes()); });
  if (overlap == Overlap::kNone) {
    mode.setOptimizerStep([zero] { zero->step(); });
    return;
  }
  auto allreduce = distalgo::hooks::allreduceHook(mode.group());
  mode.ddp().registerCommHook(
      overlap == Overlap::kInterleaved
          ? distalgo::zero::hookWithZeroStepInterleaved(allreduce, mode.ddp(),
                                                        *zero)
          : distalgo::zero::hookWithZeroStep(allreduce, mode.ddp(), *zero));
  // The hook holds a reference: keep the optimizer as long as the mode.
  mode.setOptimizerStep([zero] {});
}

}  // namespace

void zero(Flags& flags) {
  const ModelCells cells = modelCellFlags(
      flags, "deep_mlp", {.warmup = 5, .steps = 80, .block = 10}, 4);
  const SampleFile out(flags.text("out", ""), variantHeader({}));
  flags.checkAllRead();
  timeVariants(cells,
               {{"adam", &useAdam},
                {"zero", [](DdpMode& m) { useZero(m, {}, Overlap::kNone); }},
                {"zero_bucket_view",
                 [](DdpMode& m) {
                   useZero(m, {.parameters_as_bucket_view = true},
                           Overlap::kNone);
                 }},
                {"zero_overlap",
                 [](DdpMode& m) { useZero(m, {}, Overlap::kAfterLastBucket); }},
                {"zero_overlap_interleaved",
                 [](DdpMode& m) { useZero(m, {}, Overlap::kInterleaved); }}},
               {}, out);
}

}  // namespace bench
