// bench_averaging: bytes sent and time per step of DDP with SGD, of
// post-local SGD (period 4) and of SGD inside the hook, side by side.
//
// Usually run through bench/run_averaging, which runs every cell and writes
// bench/results/averaging.md.
//
//   bench_averaging --bench_cell=MODEL,WORLD_SIZE --bench_out=FILE
//       [--bench_modes=ddp,local_sgd_4,...] [--bench_warmup=8]
//       [--bench_rows=32]
//       [--bench_steps=200] [--bench_block=8] [--bench_bucket_cap_mb=4]
//       one cell: forks the ranks, appends its lines to FILE (report.h)
//   bench_averaging --bench_report=FILE [--bench_markdown=FILE]
//       [--bench_command=TXT] [--bench_note=TXT]... [--bench_start_loadavg=TXT]
//       and the cell flags above (for the text)
//       the table from FILE, on the console and as markdown

#include "averaging/modes.h"
#include "averaging/report.h"
#include "bench_common/mode_cell.h"

int main(int argc, char** argv) {
  // Warm-up and blocks in multiples of the averaging period, so that every
  // block holds the same averaging steps.
  bench_common::ModeCellSpec defaults;
  defaults.warmup = 2 * averaging_bench::kPeriod;
  defaults.block = 2 * averaging_bench::kPeriod;
  return bench_common::modeBenchMain(argc, argv, "averaging",
                                     averaging_bench::modeRows(), "bytes",
                                     defaults, &averaging_bench::report);
}
