// bench_checkpoint: activation memory and time per training step of a deep
// MLP, plain and with every block checkpointed, side by side.
//
// Usually run through bench/run_checkpoint, which runs every depth and
// writes bench/results/checkpoint.md.
//
//   bench_checkpoint --bench_depth=D --bench_out=FILE [--bench_width=128]
//       [--bench_rows=128] [--bench_warmup=3] [--bench_steps=60]
//       [--bench_block=5]
//       one cell: appends its lines to FILE (report.h)
//   bench_checkpoint --bench_report=FILE [--bench_markdown=FILE]
//       [--bench_command=TXT] [--bench_note=TXT]... [--bench_start_loadavg=TXT]
//       and the cell flags above (for the text)
//       the table from FILE, on the console and as markdown

#include <stdexcept>
#include <string>

#include "bench_common/args.h"
#include "checkpoint/cell.h"
#include "checkpoint/report.h"

namespace {

int run(int argc, char** argv) {
  checkpoint_bench::ReportConfig report;
  checkpoint_bench::CellSpec& spec = report.spec;
  std::string out;
  bool cell = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto [key, value] = bench_common::splitBenchArg(arg);
    if (key == "depth") {
      spec.depth = std::stoi(value);
      cell = true;
    } else if (key == "out") {
      out = value;
    } else if (key == "width") {
      spec.width = std::stoi(value);
    } else if (key == "rows") {
      spec.rows = std::stoi(value);
    } else if (key == "warmup") {
      spec.warmup = std::stoi(value);
    } else if (key == "steps") {
      spec.steps = std::stoi(value);
    } else if (key == "block") {
      spec.block = std::stoi(value);
    } else if (bench_common::readReportFlag({key, value}, report)) {
    } else {
      throw std::invalid_argument("unknown flag " + arg);
    }
  }
  if (cell) {
    if (out.empty()) {
      throw std::invalid_argument("--bench_depth needs --bench_out=FILE");
    }
    return checkpoint_bench::runCell(spec, out);
  }
  if (!report.samples.empty()) return checkpoint_bench::report(report);
  throw std::invalid_argument("give --bench_depth=D or --bench_report=FILE");
}

}  // namespace

int main(int argc, char** argv) {
  return bench_common::guardedMain("bench_checkpoint",
                                   [&] { return run(argc, argv); });
}
