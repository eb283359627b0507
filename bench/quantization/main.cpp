// bench_quantization: time per call and bytes on the wire of each quantized
// collective (fp16, bfp16) against the exact float32 one.
//
// Usually run through bench/run_quantization, which runs every cell and
// writes bench/results/quantization.md.
//
//   bench_quantization --bench_cell=SIZE_MIB,WORLD_SIZE --bench_out=FILE
//       [--bench_collectives=all_gather,...] [--bench_warmup=2]
//       [--bench_calls=30] [--bench_block=5]
//       one cell: forks the ranks, appends its lines to FILE (report.h)
//   bench_quantization --bench_report=FILE [--bench_markdown=FILE]
//       [--bench_command=TXT] [--bench_note=TXT]... [--bench_start_loadavg=TXT]
//       and the cell flags above (for the text)
//       the table from FILE, on the console and as markdown

#include <stdexcept>
#include <string>

#include "bench_common/args.h"
#include "quantization/calls.h"
#include "quantization/cell.h"
#include "quantization/report.h"

namespace {

int run(int argc, char** argv) {
  quant_bench::CellSpec cell;
  for (const quant_bench::CollectiveRow& row : quant_bench::collectiveRows()) {
    cell.collectives.push_back(row.name);
  }
  quant_bench::ReportConfig report;
  std::string cell_text, out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto [key, value] = bench_common::splitBenchArg(arg);
    if (key == "cell") {
      cell_text = value;
    } else if (key == "out") {
      out = value;
    } else if (key == "collectives") {
      cell.collectives = bench_common::splitCommas(value);
    } else if (key == "warmup") {
      cell.warmup = std::stoi(value);
    } else if (key == "calls") {
      cell.calls = std::stoi(value);
    } else if (key == "block") {
      cell.block = std::stoi(value);
    } else if (bench_common::readReportFlag({key, value}, report)) {
    } else {
      throw std::invalid_argument("unknown flag " + arg);
    }
  }

  if (!cell_text.empty()) {
    if (out.empty()) {
      throw std::invalid_argument("--bench_cell needs --bench_out=FILE");
    }
    // splitCell's first field is the payload size here.
    const bench_common::CellName name = bench_common::splitCell(cell_text);
    cell.size_mb = std::stod(name.model);
    cell.world_size = name.world_size;
    return quant_bench::runCell(cell, out);
  }
  if (!report.samples.empty()) {
    report.warmup = cell.warmup;
    report.calls = cell.calls;
    report.block = cell.block;
    return quant_bench::report(report);
  }
  throw std::invalid_argument("give --bench_cell=... or --bench_report=FILE");
}

}  // namespace

int main(int argc, char** argv) {
  return bench_common::guardedMain("bench_quantization",
                                   [&] { return run(argc, argv); });
}
