#include "bench_common/mode_bench.h"

#include <stdexcept>

namespace bench_common {

void checkModeCellSpec(const ModeCellSpec& spec) {
  if (spec.steps < 1 || spec.block < 1 || spec.warmup < 0 ||
      spec.bucket_cap_mb <= 0) {
    throw std::invalid_argument(
        "steps and block must be positive, warmup not negative, the bucket "
        "cap positive");
  }
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
