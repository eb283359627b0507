// bench_zero: per-step time and per-rank optimizer state of DDP with Adam,
// with ZeRO over Adam, and with ZeRO's other modes, side by side.
//
// Usually run through bench/run_zero, which runs every cell and writes
// bench/results/zero.md.
//
//   bench_zero --bench_cell=MODEL,WORLD_SIZE --bench_out=FILE
//       [--bench_modes=adam,zero,...] [--bench_warmup=5] [--bench_rows=32]
//       [--bench_steps=200] [--bench_block=10] [--bench_bucket_cap_mb=4]
//       one cell: forks the ranks, appends its lines to FILE (report.h)
//   bench_zero --bench_report=FILE [--bench_markdown=FILE]
//       [--bench_command=TXT] [--bench_note=TXT]... [--bench_start_loadavg=TXT]
//       and the cell flags above (for the text)
//       the table from FILE, on the console and as markdown

#include <cstdio>
#include <stdexcept>
#include <string>

#include "bench_common/args.h"
#include "zero/cell.h"
#include "zero/modes.h"
#include "zero/report.h"

namespace {

int run(int argc, char** argv) {
  zero_bench::CellSpec cell;
  for (const zero_bench::ModeRow& mode : zero_bench::modeRows()) {
    cell.modes.push_back(mode.name);
  }
  zero_bench::ReportConfig report;
  std::string cell_text, out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto [key, value] = bench_common::splitBenchArg(arg);
    if (key == "cell") {
      cell_text = value;
    } else if (key == "out") {
      out = value;
    } else if (key == "modes") {
      cell.modes = bench_common::splitCommas(value);
    } else if (key == "warmup") {
      cell.warmup = std::stoi(value);
    } else if (key == "rows") {
      cell.rows = std::stoi(value);
    } else if (key == "steps") {
      cell.steps = std::stoi(value);
    } else if (key == "block") {
      cell.block = std::stoi(value);
    } else if (key == "bucket_cap_mb") {
      cell.bucket_cap_mb = std::stod(value);
    } else if (bench_common::readReportFlag({key, value}, report)) {
    } else {
      throw std::invalid_argument("unknown flag " + arg);
    }
  }

  if (!cell_text.empty()) {
    if (out.empty()) {
      throw std::invalid_argument("--bench_cell needs --bench_out=FILE");
    }
    const bench_common::CellName name = bench_common::splitCell(cell_text);
    cell.model = name.model;
    cell.world_size = name.world_size;
    return zero_bench::runCell(cell, out);
  }
  if (!report.samples.empty()) {
    report.warmup = cell.warmup;
    report.rows = cell.rows;
    report.steps = cell.steps;
    report.block = cell.block;
    report.bucket_cap_mb = cell.bucket_cap_mb;
    return zero_bench::report(report);
  }
  throw std::invalid_argument("give --bench_cell=... or --bench_report=FILE");
}

}  // namespace

int main(int argc, char** argv) {
  return bench_common::guardedMain("bench_zero",
                                   [&] { return run(argc, argv); });
}
