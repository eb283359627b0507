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

#include "bench_common/mode_cell.h"
#include "zero/modes.h"
#include "zero/report.h"

int main(int argc, char** argv) {
  return bench_common::modeBenchMain(argc, argv, "zero", zero_bench::modeRows(),
                                     "state", {}, &zero_bench::report);
}
