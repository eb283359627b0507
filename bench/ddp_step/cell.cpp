#include "ddp_step/cell.h"

#include <ATen/Parallel.h>

#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include "bench_common/models.h"
#include "bench_common/ranks.h"
#include "ddp_step/hooks.h"
#include "ranktest/counting_process_group.h"

namespace ddp_step {
namespace {

using bench_common::findModel;
using bench_common::Trainer;

void runRank(const CellSpec& spec, int rank, const std::string& store_path,
             const std::string& out) {
  // Both sides compute on one thread per rank (Python: torch.set_num_threads).
  const bench_common::ModelRow& model = *findModel(spec.model);
  const HookRow& hook = *findHook(spec.hook);
  const auto [group, batches] = bench_common::setUpRank(
      model, store_path, rank, spec.world_size, spec.rows);

  std::vector<double> us;
  {
    Trainer timed(model, group, hook.install);
    timed.steps(batches, 0, spec.warmup, nullptr);
    group->barrier()->wait();
    timed.steps(batches, spec.warmup, spec.steps, &us);
  }
  const std::vector<double> slowest =
      bench_common::slowestRankPerStep(group, us);

  // Bytes in a separate run through a counting group, so that the timed
  // run pays nothing for counting.
  std::map<std::string, ranktest::Traffic> traffic;
  {
    auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(group);
    Trainer counted(model, counting, hook.install);
    counted.steps(batches, 0, spec.warmup, nullptr);
    counting->reset();
    counted.steps(batches, spec.warmup, spec.count_steps, nullptr);
    traffic = counting->allTraffic();
  }

  if (rank != 0) return;
  std::ofstream file(out, std::ios::app);
  const std::string key = "cpp\t" + spec.model + "\t" +
                          std::to_string(spec.world_size) + "\t" + spec.hook;
  for (double v : slowest) file << "step\t" << key << "\t" << v << "\n";
  if (traffic.empty()) file << "bytes\t" << key << "\tnone\t0\t0\n";
  for (const auto& [collective, t] : traffic) {
    file << "bytes\t" << key << "\t" << collective << "\t"
         << static_cast<double>(t.calls) / spec.count_steps << "\t"
         << static_cast<double>(t.bytes) / spec.count_steps << "\n";
  }
  if (!file.flush()) throw std::runtime_error("cannot write " + out);
}

}  // namespace

int runCell(const CellSpec& spec, const std::string& out) {
  if (!findModel(spec.model)) {
    throw std::invalid_argument("unknown model " + spec.model);
  }
  if (!findHook(spec.hook)) {
    throw std::invalid_argument("unknown hook " + spec.hook);
  }
  return bench_common::forkRanks(spec.world_size, "ddp_step",
                                 [&](int rank, const std::string& store_path) {
                                   runRank(spec, rank, store_path, out);
                                 });
}

}  // namespace ddp_step
