#include "algorithms/ddp_variants.h"

#include <torch/optim/sgd.h>

#include <memory>

#include "algorithms/benchmarks.h"
#include "common/ranks.h"
#include "distalgo/averaging/periodic_model_averager.h"
#include "distalgo/hooks/post_local_sgd.h"
#include "distalgo/hooks/powersgd.h"
#include "distalgo/optim/post_local_sgd_optimizer.h"

namespace bench {

DdpVariant withSgd(std::string name,
                   const std::function<void(DdpMode&)>& install) {
  return {std::move(name), [install](DdpMode& mode) {
            install(mode);
            useSgd(mode);
          }};
}

DdpVariant hookWithSgd(const std::string& name, const MakeHook& make) {
  return withSgd(name, [name, make](DdpMode& mode) {
    mode.ddp().registerCommHook(make(mode.group()), name);
  });
}

MakeHook powerSgd(int matrix_rank, bool batched) {
  return [matrix_rank,
          batched](const c10::intrusive_ptr<c10d::ProcessGroup>& group) {
    auto state = std::make_shared<distalgo::hooks::PowerSgdState>(
        group,
        distalgo::hooks::PowerSgdOptions{
            .matrix_approximation_rank = matrix_rank, .start_iteration = 2});
    return batched ? distalgo::hooks::batchedPowerSgdHook(state)
                   : distalgo::hooks::powerSgdHook(state);
  };
}

void useLocalSgd(DdpMode& mode, distalgo::groups::SubgroupProvider subgroup,
                 bool gradient_allreduce, int period) {
  constexpr double kLearningRate = 0.01;
  auto state = std::make_shared<distalgo::hooks::PostLocalSgdState>(
      distalgo::hooks::PostLocalSgdOptions{
          .start_local_sgd_iter = 0,
          .post_local_gradient_allreduce = gradient_allreduce},
      std::move(subgroup));
  mode.ddp().registerCommHook(
      distalgo::hooks::postLocalSgdHook(state, mode.group(), mode.store()));
  auto optimizer = std::make_shared<distalgo::optim::PostLocalSgdOptimizer>(
      std::make_shared<torch::optim::SGD>(
          mode.ddp().module()->parameters(),
          torch::optim::SGDOptions(kLearningRate)),
      std::make_shared<distalgo::averaging::PeriodicModelAverager>(mode.group(),
                                                                   period));
  mode.setOptimizerStep([optimizer] { optimizer->step(); });
}

ModelCells modelCellFlags(Flags& flags, const std::string& models,
                          const Schedule& defaults, double bucket_cap_mb) {
  ModelCells cells;
  cells.models = flags.list("models", models);
  cells.world_sizes = flags.integers("world_sizes", "2,4");
  cells.rows = flags.integer("rows", cells.rows);
  cells.schedule = scheduleFlags(flags, defaults);
  cells.ddp.bucket_cap_mb = flags.number("bucket_cap_mb", bucket_cap_mb);
  return cells;
}

Row variantHeader(const Row& prefix) {
  Row header = prefix;
  for (const char* column :
       {"model", "ranks", "mode", "round", "metric", "value"}) {
    header.push_back(column);
  }
  return header;
}

void timeVariants(const ModelCells& cells,
                  const std::vector<DdpVariant>& variants, const Row& prefix,
                  const SampleFile& out) {
  for (const std::string& name : cells.models) {
    const Model& model = modelNamed(name);
    for (int world_size : cells.world_sizes) {
      Row key = prefix;
      key.insert(key.end(), {name, std::to_string(world_size)});
      inRanks(world_size, [&](const ranktest::Rank& rank) {
        std::vector<NamedMode> modes;
        for (const DdpVariant& variant : variants) {
          auto mode =
              std::make_unique<DdpMode>(model, rank, cells.rows, cells.ddp);
          variant.set_up(*mode);
          modes.push_back({variant.name, std::move(mode)});
        }
        timeModes(rank, modes, cells.schedule, key, out);
      });
    }
  }
}

}  // namespace bench
