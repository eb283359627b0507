#include "bench_common/mode_bench.h"

#include <ATen/ATen.h>

#include <sstream>
#include <stdexcept>

namespace bench_common {
namespace {

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  return out;
}

}  // namespace

void checkModeCellSpec(const ModeCellSpec& spec) {
  if (spec.steps < 1 || spec.block < 1 || spec.warmup < 0 ||
      spec.bucket_cap_mb <= 0) {
    throw std::invalid_argument(
        "steps and block must be positive, warmup not negative, the bucket "
        "cap positive");
  }
}

const ModelRow& modelNamed(const std::string& name) {
  const ModelRow* model = findModel(name);
  if (!model) throw std::invalid_argument("unknown model " + name);
  return *model;
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

std::vector<std::int64_t> everyRanks(const Group& group, std::int64_t mine) {
  std::vector<at::Tensor> all{at::zeros({group->getSize()}, at::kLong)};
  all[0][group->getRank()] = mine;
  group->allreduce(all)->wait();
  const std::int64_t* data = all[0].data_ptr<std::int64_t>();
  return {data, data + group->getSize()};
}

int runModeBench(
    int argc, char** argv, ModeCellSpec spec,
    const std::function<int(const ModeCellSpec&, const std::string&)>& run_cell,
    const std::function<int(const ModeReportConfig&)>& report) {
  ModeReportConfig config;
  std::string cell_text, out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto [key, value] = splitBenchArg(arg);
    if (key == "cell") {
      cell_text = value;
    } else if (key == "out") {
      out = value;
    } else if (key == "modes") {
      spec.modes = splitCommas(value);
    } else if (key == "warmup") {
      spec.warmup = std::stoi(value);
    } else if (key == "rows") {
      spec.rows = std::stoi(value);
    } else if (key == "steps") {
      spec.steps = std::stoi(value);
    } else if (key == "block") {
      spec.block = std::stoi(value);
    } else if (key == "bucket_cap_mb") {
      spec.bucket_cap_mb = std::stod(value);
    } else if (readReportFlag({key, value}, config)) {
    } else {
      throw std::invalid_argument("unknown flag " + arg);
    }
  }

  if (!cell_text.empty()) {
    if (out.empty()) {
      throw std::invalid_argument("--bench_cell needs --bench_out=FILE");
    }
    const CellName name = splitCell(cell_text);
    spec.model = name.model;
    spec.world_size = name.world_size;
    return run_cell(spec, out);
  }
  if (!config.samples.empty()) {
    config.warmup = spec.warmup;
    config.rows = spec.rows;
    config.steps = spec.steps;
    config.block = spec.block;
    config.bucket_cap_mb = spec.bucket_cap_mb;
    return report(config);
  }
  throw std::invalid_argument("give --bench_cell=... or --bench_report=FILE");
}

}  // namespace bench_common
