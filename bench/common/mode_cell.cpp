#include "bench_common/mode_cell.h"

#include <ATen/ATen.h>

#include <fstream>
#include <stdexcept>

#include "bench_common/args.h"
#include "bench_common/interleave.h"
#include "bench_common/mode_samples.h"
#include "bench_common/ranks.h"

namespace bench_common {
namespace {

const ModelRow& modelNamed(const std::string& name) {
  const ModelRow* model = findModel(name);
  if (!model) throw std::invalid_argument("unknown model " + name);
  return *model;
}

std::vector<const ModeRow*> modesNamed(const std::vector<ModeRow>& rows,
                                       const std::vector<std::string>& names) {
  std::vector<const ModeRow*> modes;
  for (const std::string& name : names) {
    const ModeRow* mode = nullptr;
    for (const ModeRow& row : rows) {
      if (row.name == name) mode = &row;
    }
    if (!mode) throw std::invalid_argument("unknown mode " + name);
    modes.push_back(mode);
  }
  if (modes.empty()) throw std::invalid_argument("no modes");
  return modes;
}

// Every rank's `mine`, in rank order. Collective.
std::vector<std::int64_t> everyRanks(const Group& group, std::int64_t mine) {
  std::vector<at::Tensor> all{at::zeros({group->getSize()}, at::kLong)};
  all[0][group->getRank()] = mine;
  group->allreduce(all)->wait();
  const std::int64_t* data = all[0].data_ptr<std::int64_t>();
  return {data, data + group->getSize()};
}

void writeModeLines(std::ostream& out, const ModeCellSpec& spec,
                    const std::string& mode, const std::vector<double>& us,
                    const std::vector<int>& round_of, const std::string& tag,
                    const std::vector<std::int64_t>& per_rank) {
  const std::string key =
      spec.model + "\t" + std::to_string(spec.world_size) + "\t" + mode + "\t";
  for (std::size_t i = 0; i < us.size(); ++i) {
    out << "step\t" << key << round_of[i] << "\t" << us[i] << "\n";
  }
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    out << tag << "\t" << key << r << "\t" << per_rank[r] << "\n";
  }
}

void runRank(const ModeCellSpec& spec, const std::vector<const ModeRow*>& modes,
             const std::string& tag, int rank, const std::string& store_path,
             const std::string& out) {
  const ModelRow& model = modelNamed(spec.model);
  const auto [group, batches] =
      setUpRank(model, store_path, rank, spec.world_size, spec.rows);
  distalgo::ddp::DdpOptions ddp_options;
  ddp_options.bucket_cap_mb = spec.bucket_cap_mb;

  const std::size_t n_modes = modes.size();
  std::vector<std::unique_ptr<ModeRunner>> runners;
  for (const ModeRow* mode : modes) {
    runners.push_back(mode->make(model, group, ddp_options));
    ModeRunner& runner = *runners.back();
    trainSteps(runner.ddp, runner.step, batches, 0, spec.warmup, nullptr);
    if (runner.after_warmup) runner.after_warmup();
  }
  group->barrier()->wait();

  const InterleavedSteps timed = interleaveBlocks(
      n_modes, spec.steps, spec.block,
      [&](std::size_t m, int done, int n, std::vector<double>* us) {
        trainSteps(runners[m]->ddp, runners[m]->step, batches,
                   spec.warmup + done, n, us);
      });
  std::vector<std::vector<double>> slowest(n_modes);
  std::vector<std::vector<std::int64_t>> values(n_modes);
  for (std::size_t m = 0; m < n_modes; ++m) {
    slowest[m] = slowestRankPerStep(group, timed.us[m]);
    values[m] = everyRanks(group, runners[m]->per_rank_value());
  }

  if (rank != 0) return;
  std::ofstream file(out, std::ios::app);
  for (std::size_t m = 0; m < n_modes; ++m) {
    writeModeLines(file, spec, modes[m]->name, slowest[m], timed.round_of[m],
                   tag, values[m]);
  }
  if (!file.flush()) throw std::runtime_error("cannot write " + out);
}

}  // namespace

int runModeCell(const std::string& bench, const ModeCellSpec& spec,
                const std::vector<ModeRow>& rows, const std::string& tag,
                const std::string& out) {
  modelNamed(spec.model);
  const std::vector<const ModeRow*> modes = modesNamed(rows, spec.modes);
  checkModeCellSpec(spec);
  return forkRanks(spec.world_size, bench,
                   [&](int rank, const std::string& store_path) {
                     runRank(spec, modes, tag, rank, store_path, out);
                   });
}

std::string modesSection(const std::vector<ModeRow>& rows,
                         const ModeReportConfig& config,
                         const std::string& baseline) {
  std::string text = "Modes:\n\n";
  for (const ModeRow& row : rows) {
    text += "- `" + row.name + "`: " + row.description + "\n";
  }
  return text + "\n" + timingMethod(config, baseline);
}

int modeBenchMain(int argc, char** argv, const std::string& bench,
                  const std::vector<ModeRow>& rows, const std::string& tag,
                  ModeCellSpec defaults,
                  const std::function<int(const ModeReportConfig&)>& report) {
  const std::string tool = "bench_" + bench;
  return guardedMain(tool.c_str(), [&] {
    for (const ModeRow& row : rows) defaults.modes.push_back(row.name);
    return runModeBench(
        argc, argv, defaults,
        [&](const ModeCellSpec& spec, const std::string& out) {
          return runModeCell(bench, spec, rows, tag, out);
        },
        report);
  });
}

}  // namespace bench_common
