#pragma once

// What the benchmarks that compare ways of training with DDP share: their
// cells (a model and a world size, in fresh ranks) and a DdpMode per way,
// timed side by side.

#include <functional>
#include <string>
#include <vector>

#include "algorithms/ddp_mode.h"
#include "common/flags.h"
#include "distalgo/ddp/comm_hook.h"
#include "distalgo/groups/subgroup_provider.h"

namespace bench {

// A way of training: its name and what it adds to a fresh DdpMode before
// the first step (a hook, an optimizer step, values to report).
struct DdpVariant {
  std::string name;
  std::function<void(DdpMode&)> set_up;
};

using MakeHook = std::function<distalgo::ddp::CommHook(
    const c10::intrusive_ptr<c10d::ProcessGroup>&)>;

// `install`, then SGD (lr 0.01) after backward.
DdpVariant withSgd(std::string name,
                   const std::function<void(DdpMode&)>& install);
// The hook make(group) registered under `name`, then SGD.
DdpVariant hookWithSgd(const std::string& name, const MakeHook& make);
// PowerSGD (batched or not) of `matrix_rank` from the third iteration.
MakeHook powerSgd(int matrix_rank, bool batched);
// Local SGD from the first step: gradients averaged over `subgroup` (or not
// at all without `gradient_allreduce`), then SGD (lr 0.01) and the
// parameters averaged over every rank each `period` steps.
void useLocalSgd(DdpMode& mode, distalgo::groups::SubgroupProvider subgroup,
                 bool gradient_allreduce, int period);

struct ModelCells {
  std::vector<std::string> models;
  std::vector<int> world_sizes;
  int rows = 32;  // batch rows per rank
  Schedule schedule;
  distalgo::ddp::DdpOptions ddp;
};

// --models, --world_sizes, --rows, --bucket_cap_mb and the schedule.
ModelCells modelCellFlags(Flags& flags, const std::string& models,
                          const Schedule& defaults, double bucket_cap_mb);

// The columns of the samples of timeVariants() after `prefix`.
Row variantHeader(const Row& prefix);

// For each model and world size, in fresh ranks: a DdpMode per variant,
// timed side by side (timeModes); the samples' key is `prefix`, the model
// and the world size.
void timeVariants(const ModelCells& cells,
                  const std::vector<DdpVariant>& variants, const Row& prefix,
                  const SampleFile& out);

}  // namespace bench
