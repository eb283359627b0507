// bench_join: distalgo's DDP step time inside an enabled Join with even
// inputs, and inside a disabled one, against plain DDP, side by side; and
// with rank 0 joining early, the time per iteration it shadows.
//
// Usually run through bench/run_join, which runs every cell and writes
// bench/results/join.md.
//
//   bench_join --bench_cell=MODEL,WORLD_SIZE --bench_kind=even|uneven
//       --bench_out=FILE [--bench_warmup=10] [--bench_rows=32]
//       [--bench_steps=600] [--bench_block=20]           (even)
//       [--bench_repeats=20] [--bench_early=10] [--bench_steps_uneven=30]
//                                                        (uneven)
//       one cell: forks the ranks, appends its lines to FILE (report.h)
//   bench_join --bench_report=FILE [--bench_markdown=FILE]
//       [--bench_command=TXT] [--bench_note=TXT]... [--bench_start_loadavg=TXT]
//       and the cell flags above (for the text)
//       the tables from FILE, on the console and as markdown

#include <cstdio>
#include <stdexcept>
#include <string>

#include "bench_common/args.h"
#include "join/cell.h"
#include "join/report.h"

namespace {

int run(int argc, char** argv) {
  join_bench::CellSpec cell;
  join_bench::ReportConfig report;
  std::string cell_text, kind, out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto [key, value] = bench_common::splitBenchArg(arg);
    if (key == "cell") {
      cell_text = value;
    } else if (key == "kind") {
      kind = value;
    } else if (key == "out") {
      out = value;
    } else if (key == "warmup") {
      cell.warmup = std::stoi(value);
    } else if (key == "rows") {
      cell.rows = std::stoi(value);
    } else if (key == "steps") {
      cell.steps = std::stoi(value);
    } else if (key == "block") {
      cell.block = std::stoi(value);
    } else if (key == "repeats") {
      cell.repeats = std::stoi(value);
    } else if (key == "early") {
      cell.early = std::stoi(value);
    } else if (key == "steps_uneven") {
      cell.steps_uneven = std::stoi(value);
    } else if (bench_common::readReportFlag({key, value}, report)) {
    } else {
      throw std::invalid_argument("unknown flag " + arg);
    }
  }

  if (!cell_text.empty()) {
    if (out.empty() || (kind != "even" && kind != "uneven")) {
      throw std::invalid_argument(
          "--bench_cell needs --bench_kind=even|uneven and --bench_out=FILE");
    }
    const bench_common::CellName name = bench_common::splitCell(cell_text);
    cell.model = name.model;
    cell.world_size = name.world_size;
    return kind == "even" ? join_bench::runEvenCell(cell, out)
                          : join_bench::runUnevenCell(cell, out);
  }
  if (!report.samples.empty()) {
    report.warmup = cell.warmup;
    report.rows = cell.rows;
    report.steps = cell.steps;
    report.block = cell.block;
    report.repeats = cell.repeats;
    report.early = cell.early;
    report.steps_uneven = cell.steps_uneven;
    return join_bench::report(report);
  }
  throw std::invalid_argument("give --bench_cell=... or --bench_report=FILE");
}

}  // namespace

int main(int argc, char** argv) {
  return bench_common::guardedMain("bench_join",
                                   [&] { return run(argc, argv); });
}
