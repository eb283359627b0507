// bench_ddp_step: time per DDP training step, C++ (distalgo's DDP over
// c10d::Reducer) for reference DDP and each hook of hooks.cpp, on the
// fixture models; and the report that sets it beside PyTorch's Python DDP.
//
// Usually run through bench/run_ddp_step, which runs every cell on both
// sides, interleaved, and writes bench/results/ddp_step.md.
//
//   bench_ddp_step --bench_list
//       the cells' hooks and models: "hook <name>" and "model <name>" lines
//   bench_ddp_step --bench_cell=MODEL,WORLD_SIZE,HOOK --bench_out=FILE
//       [--bench_warmup=10] [--bench_steps=200] [--bench_count_steps=10]
//       [--bench_rows=32]
//       one cell: forks the ranks, appends its lines to FILE (report.h)
//   bench_ddp_step --bench_report=FILE [--bench_markdown=FILE]
//       [--bench_command=TXT] [--bench_note=TXT]... [--bench_python_note=TXT]
//       [--bench_start_loadavg=TXT] and the cell flags above (for the text)
//       the tables from FILE, on the console and as markdown

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "bench_common/args.h"
#include "bench_common/models.h"
#include "ddp_step/cell.h"
#include "ddp_step/hooks.h"
#include "ddp_step/report.h"

namespace {

int run(int argc, char** argv) {
  ddp_step::CellSpec cell;
  ddp_step::ReportConfig report;
  std::string cell_text, out;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--bench_list") {
      list = true;
      continue;
    }
    const auto [key, value] = bench_common::splitBenchArg(arg);
    if (key == "cell") {
      cell_text = value;
    } else if (key == "out") {
      out = value;
    } else if (key == "warmup") {
      cell.warmup = std::stoi(value);
    } else if (key == "steps") {
      cell.steps = std::stoi(value);
    } else if (key == "count_steps") {
      cell.count_steps = std::max(1, std::stoi(value));
    } else if (key == "rows") {
      cell.rows = std::stoi(value);
    } else if (key == "python_note") {
      report.python_note = value;
    } else if (bench_common::readReportFlag({key, value}, report)) {
    } else {
      throw std::invalid_argument("unknown flag " + arg);
    }
  }

  if (list) {
    for (const auto& row : ddp_step::hookRows()) {
      std::printf("hook %s\n", row.name.c_str());
    }
    for (const auto& row : bench_common::modelRows()) {
      std::printf("model %s\n", row.name.c_str());
    }
    return 0;
  }
  if (!cell_text.empty()) {
    // MODEL,WORLD_SIZE,HOOK; the hook's name may hold commas.
    const std::size_t a = cell_text.find(',');
    const std::size_t b = cell_text.find(',', a + 1);
    if (a == std::string::npos || b == std::string::npos || out.empty()) {
      throw std::invalid_argument(
          "--bench_cell=MODEL,WORLD_SIZE,HOOK needs --bench_out=FILE");
    }
    cell.model = cell_text.substr(0, a);
    cell.world_size = std::stoi(cell_text.substr(a + 1, b - a - 1));
    cell.hook = cell_text.substr(b + 1);
    return ddp_step::runCell(cell, out);
  }
  if (!report.samples.empty()) {
    report.warmup = cell.warmup;
    report.steps = cell.steps;
    report.count_steps = cell.count_steps;
    report.rows = cell.rows;
    return ddp_step::report(report);
  }
  throw std::invalid_argument(
      "give --bench_list, --bench_cell=... or --bench_report=FILE");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "[bench_ddp_step] %s\n", error.what());
    return 2;
  }
}
