#include "harness_overhead/report.h"

#include <torch/version.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness_overhead/breakdown.h"
#include "harness_overhead/pytorch_samples.h"
#include "harness_overhead/result_tables.h"
#include "harness_overhead/table.h"
#include "harness_overhead/targets.h"

namespace harness_overhead {
namespace {

// Everything the console and the markdown file show, computed once.
struct Findings {
  PyTorchSamples py;
  Machine end;
  std::string foreign_cpu;
  Table ranktest;
  Table pytorch;
  Table comparison;
  Table breakdown;
  Table targets;
};

Findings find(const Config& config, const RunStart& start,
              const Measurements& m) {
  PyTorchSamples py = readPyTorchSamples(config.pytorch);
  const Machine end = describeMachine();
  const std::string foreign = foreignCpu(start.cpu, readCpuClock(), end.online);
  return {py,
          end,
          foreign,
          ranktestTable(m),
          pytorchTable(py),
          comparisonTable(m, py),
          breakdownTable(m),
          targetTable(targets(m, py))};
}

void print(const Config& config, const Findings& f) {
  std::printf("\nranktest (ms per test, OnTestStart..OnTestEnd):\n%s",
              f.ranktest.text().c_str());
  if (f.py.present) {
    std::printf("\nPyTorch MultiProcessTestCase (ms per test):\n%s",
                f.pytorch.text().c_str());
  } else {
    std::printf("\nPyTorch: not measured%s%s\n",
                config.pytorch_note.empty() ? "" : ": ",
                config.pytorch_note.c_str());
  }
  std::printf("\nComparison (medians, ms):\n%s", f.comparison.text().c_str());
  std::printf("\nBreakdown at 2 ranks (medians, ms):\n%s",
              f.breakdown.text().c_str());
  std::printf("\nTargets:\n%s", f.targets.text().c_str());
  std::printf("\nDuring the ranktest part, %s\n", f.foreign_cpu.c_str());
}

void writeRaw(const std::string& path, const Measurements& m) {
  std::ofstream out(path);
  out << "test\tmode\tranks\tpool_start\tok\ttotal_us\tparent_cpu_us\t"
         "forks\tfork_sum_us\tfirst_fork_us\tlast_fork_us\talive_us\t"
         "pg_ready_us\tbody_end_us\tdone_us\n";
  auto us = [](const OptionalNs& v) {
    return v ? std::to_string(*v / 1000) : std::string("");
  };
  for (const Sample& s : m.samples()) {
    const Timeline l = timeline(s);
    const Cell& cell = m.cells()[s.cell];
    out << s.test << "\t" << modeName(cell.mode) << "\t" << cell.world_size
        << "\t" << s.pool_start << "\t" << s.ok << "\t" << s.total_ns / 1000
        << "\t" << s.cpu_ns / 1000 << "\t" << s.forks.count << "\t"
        << us(l.fork_sum) << "\t" << us(l.first_fork) << "\t" << us(l.last_fork)
        << "\t" << us(l.alive) << "\t" << us(l.pg_ready) << "\t"
        << us(l.body_end) << "\t" << us(l.done) << "\n";
  }
}

std::string describeRuns(const Config& config) {
  std::ostringstream out;
  out << config.runs << " per fork, fork-TCPStore and bare fork cell; "
      << config.runs << " per reuse cell (in " << config.reuse_pools
      << " pools, whose first tests are reported apart as \"pool start\"); "
      << config.spawn_runs << " per spawn and bare spawn cell";
  return out.str();
}

void writeRunSection(std::ostream& md, const Config& config,
                     const RunStart& start, const Findings& f,
                     int failed_tests) {
  md << "## Run\n\n"
     << "- date: " << utcNow() << "\n"
     << "- command: `"
     << (config.command.empty() ? "bench_harness_overhead" : config.command)
     << "`\n"
     << "- machine: nproc " << start.machine.nproc << " (online CPUs "
     << start.machine.online << "), CPU `" << start.machine.cpu_model << "`, "
     << start.machine.kernel << "\n"
     << "- load average (1, 5, 15 min) when the ranktest part started / "
        "ended: "
     << start.machine.loadavg << " / " << f.end.loadavg << "\n"
     << "- during the ranktest part, " << f.foreign_cpu << "\n"
     << "- libtorch (C++): " << TORCH_VERSION << "\n";
  for (const auto& [key, value] : f.py.meta) {
    md << "- " << key << ": " << value << "\n";
  }
  for (const std::string& note : config.notes) md << "- " << note << "\n";
  md << "- samples: " << describeRuns(config) << "; PyTorch: as in its table\n";
  if (failed_tests > 0) {
    md << "- **" << failed_tests
       << " ranktest test(s) failed**; their samples are left out\n";
  }
  if (f.py.failed > 0) {
    md << "- **" << f.py.failed
       << " PyTorch test(s) failed**; their samples are left out\n";
  }
}

void writeBreakdownSection(std::ostream& md, const Findings& f,
                           const Measurements& m) {
  md << "## Where the time goes, 2 ranks\n\n"
     << "Medians of each segment over the cell's samples (so they need not "
        "add up exactly to the total). Points: parent test start and end "
        "(listener), parent fork() entry and return (pthread_atfork), rank "
        "alive (fork: atfork child handler; spawn: the binary's static "
        "initialisers, after libtorch is loaded), group ready (fixture "
        "constructor, run once the rank has its group; a reused worker "
        "built it ahead, during the tests before), body end (after the "
        "barrier), TearDown done; for each rank point the latest rank "
        "counts. All on CLOCK_MONOTONIC.\n\n"
     << f.breakdown.markdown() << "\n";
  const HarnessWork fork_work = harnessWork(m, Mode::kFork, Mode::kBareFork);
  const HarnessWork spawn_work = harnessWork(m, Mode::kSpawn, Mode::kBareSpawn);
  md << "The harness's own work at 2 ranks. Wall time, ranktest minus the "
        "bare baseline, of the median test outside \"last fork() returned → "
        "all ranks alive\" (exec and loading of the same binary in both; "
        "either side spreads over several ms, and the FileStore's 10 ms "
        "polling makes rendezvous times jump in steps): fork "
     << ms(fork_work.wall) << " ms, spawn " << ms(spawn_work.wall)
     << " ms. CPU of the parent's test thread outside fork(): fork "
     << ms(fork_work.parent_cpu) << " ms, spawn " << ms(spawn_work.parent_cpu)
     << " ms.\n\n";
}

void writeNotesSection(std::ostream& md, const Config& config,
                       const Findings& f) {
  md << "## Notes\n\n"
     << "- Fixed costs outside the harness, from the code of the libraries "
        "used: `c10d::FileStore::wait` polls every 10 ms; Gloo's TCP "
        "transport runs an epoll loop with a 10 ms timeout, and destroying a "
        "group waits for one loop tick per pair and for the device's loop "
        "thread (one-shot ranks, bare or ranktest, skip it by exiting with "
        "the group alive; reused workers do it on a background thread after "
        "reporting); PyTorch's "
        "`MultiProcessTestCase` polls its ranks every 100 ms "
        "(`time.sleep(0.1)` in `_join_processes`). The TCPStore "
        "rows are not targets: they show how much of a test the FileStore's "
        "polling takes.\n"
     << "- Reuse rows: a worker starts building a test's group two tests "
        "ahead. The test here takes far less than a group build, so the "
        "builds fall behind and a test mostly waits for its group (the "
        "reuse columns of \"test start → all groups ready\"): these rows "
        "measure how fast workers build groups back to back, the worst case; "
        "a test whose body outlasts a group build finds its group ready.\n";
  for (const std::string& note : f.py.notes) md << "- " << note << "\n";
  if (!config.pytorch_note.empty() && !f.py.present) {
    md << "- PyTorch: " << config.pytorch_note << "\n";
  }
  md << "- Raw ranktest samples (one line per test, with the timeline "
        "points): `bench_harness_overhead --bench_raw=FILE`.\n";
}

}  // namespace

int report(const Config& config, const RunStart& start, int failed_tests,
           const Measurements& m) {
  const Findings f = find(config, start, m);
  print(config, f);
  if (!config.raw.empty()) writeRaw(config.raw, m);
  if (config.markdown.empty()) return 0;

  std::ofstream md(config.markdown);
  if (!md) {
    std::fprintf(stderr, "[bench] cannot write %s\n", config.markdown.c_str());
    return 1;
  }
  md << "# Harness overhead: the fixed cost of one distributed test\n\n"
     << "Generated by `bench/run_harness_overhead` (do not edit by hand).\n\n"
     << "Each test starts its ranks, meets on a `c10d::FileStore`, builds a "
        "Gloo process group (loopback), runs one barrier and reports. "
        "ranktest tests are timed by a googletest listener from "
        "`OnTestStart` to `OnTestEnd` (`std::chrono::steady_clock`); the "
        "PyTorch tests (the same body in `MultiProcessTestCase`, "
        "`bench/pytorch_overhead.py`) around `TestCase.run` "
        "(`time.monotonic_ns`), i.e. setUp, test and tearDown alike.\n\n";
  writeRunSection(md, config, start, f, failed_tests);
  md << "\n## ranktest\n\n"
     << "Milliseconds per test. \"bare\" rows do the work of a test with no "
        "harness (fork or exec of this binary, FileStore, Gloo group, "
        "barrier, `_exit` with the group alive, `waitpid`), as ranktest's "
        "one-shot ranks do; reused workers build the groups of the next two "
        "tests ahead, each "
        "on its own store connection, and tear used ones down in the "
        "background after reporting. \"parent CPU\" is the test runner "
        "thread's CPU time (fork() included).\n\n"
     << f.ranktest.markdown() << "\n";
  md << "## PyTorch `MultiProcessTestCase` (python3-torch)\n\n";
  if (f.py.present) {
    md << f.pytorch.markdown() << "\n";
  } else {
    md << "Not measured"
       << (config.pytorch_note.empty() ? "." : ": " + config.pytorch_note)
       << "\n\n";
  }
  md << "## Comparison (medians, ms; ratio = ranktest / PyTorch)\n\n"
     << f.comparison.markdown() << "\n"
     << "## Targets\n\n"
     << f.targets.markdown() << "\n";
  writeBreakdownSection(md, f, m);
  writeNotesSection(md, config, f);
  std::printf("\n[bench] wrote %s\n", config.markdown.c_str());
  return 0;
}

}  // namespace harness_overhead
