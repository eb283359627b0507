#include "ddp_step/report.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bench_common/machine.h"
#include "bench_common/report_file.h"
#include "bench_common/stats.h"
#include "bench_common/summary.h"
#include "bench_common/table.h"

namespace ddp_step {
namespace {

using bench_common::splitTabs;
using bench_common::Stats;
using bench_common::Table;

struct Traffic {
  std::string collective;
  double calls = 0;
  double bytes = 0;
};

struct Side {
  std::vector<double> us;
  std::vector<Traffic> traffic;
  bool has_traffic = false;
  std::string na;
  std::string failed;
};

struct Cell {
  std::string model;
  int world_size = 0;
  std::string hook;
  Side cpp, py;
};

struct Samples {
  std::vector<Cell> cells;  // in the order they ran
  std::vector<std::pair<std::string, std::string>> meta;
};

Samples readSamples(const std::string& path) {
  Samples s;
  std::map<std::string, std::size_t> index;
  bench_common::forEachSampleLine(path, [&](const std::vector<std::string>& f) {
    if (f[0] == "meta" && f.size() >= 3) {
      s.meta.emplace_back(f[1], f[2]);
      return;
    }
    if (f.size() < 6 || (f[1] != "cpp" && f[1] != "python")) return;
    const std::string key = f[2] + "\t" + f[3] + "\t" + f[4];
    auto [it, fresh] = index.emplace(key, s.cells.size());
    if (fresh) s.cells.push_back({f[2], std::stoi(f[3]), f[4], {}, {}});
    Side& side =
        f[1] == "cpp" ? s.cells[it->second].cpp : s.cells[it->second].py;
    if (f[0] == "step") {
      side.us.push_back(std::stod(f[5]));
    } else if (f[0] == "bytes" && f.size() >= 8) {
      side.has_traffic = true;
      if (f[5] != "none") {
        side.traffic.push_back({f[5], std::stod(f[6]), std::stod(f[7])});
      }
    } else if (f[0] == "na") {
      side.na = f[5];
    } else if (f[0] == "failed") {
      side.failed = f[5];
    }
  });
  return s;
}

std::optional<double> medianMs(const Side& side) {
  return bench_common::medianMs(side.us);
}

std::string spread(const Side& side) { return bench_common::spreadMs(side.us); }

std::string timeOf(const Side& side) {
  if (!side.failed.empty()) return "failed";
  if (!side.na.empty()) return "not available";
  return bench_common::ms(medianMs(side));
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

// "1184 (allreduce ×1)"; "0" when the side sent nothing; "n/a" unknown.
std::string bytesOf(const Side& side) {
  if (!side.has_traffic) return "n/a";
  double total = 0;
  std::string parts;
  for (const Traffic& t : side.traffic) {
    total += t.bytes;
    if (!parts.empty()) parts += ", ";
    parts += t.collective + " ×" + number(t.calls);
  }
  return parts.empty() ? number(total) : number(total) + " (" + parts + ")";
}

std::optional<double> ratioOf(const Cell& c) {
  const auto a = medianMs(c.cpp);
  const auto b = medianMs(c.py);
  if (!a || !b || *b <= 0) return std::nullopt;
  return *a / *b;
}

Table stepTable(const Samples& s) {
  Table t({"model", "ranks", "hook", "C++ ms", "C++ p10–p90", "Python ms",
           "Python p10–p90", "C++ / Python", "bytes/step/rank (C++, counted)",
           "bytes/step/rank (Python, expected)"});
  for (const Cell& c : s.cells) {
    t.add({c.model, std::to_string(c.world_size), c.hook, timeOf(c.cpp),
           spread(c.cpp), timeOf(c.py), spread(c.py),
           bench_common::ratio(medianMs(c.cpp), medianMs(c.py)), bytesOf(c.cpp),
           bytesOf(c.py)});
  }
  return t;
}

// Per model and world size: the range of C++ / Python over the hooks both
// sides ran.
Table summaryTable(const Samples& s) {
  Table t({"model", "ranks", "cells", "C++ / Python, min", "median", "max",
           "C++ slower in"});
  std::vector<std::pair<std::string, int>> groups;
  for (const Cell& c : s.cells) {
    const std::pair<std::string, int> g{c.model, c.world_size};
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) {
      groups.push_back(g);
    }
  }
  for (const auto& [model, world] : groups) {
    std::vector<double> ratios;
    std::string slower;
    for (const Cell& c : s.cells) {
      if (c.model != model || c.world_size != world) continue;
      const auto r = ratioOf(c);
      if (!r) continue;
      ratios.push_back(*r);
      if (*r > 1) slower += (slower.empty() ? "" : ", ") + c.hook;
    }
    if (ratios.empty()) continue;
    const Stats st = bench_common::stats(ratios);
    t.add({model, std::to_string(world), std::to_string(st.n),
           bench_common::ratio(st.min, 1.0),
           bench_common::ratio(st.median, 1.0),
           bench_common::ratio(st.max, 1.0), slower.empty() ? "none" : slower});
  }
  return t;
}

// Bytes the Python side is expected to send but C++ counted otherwise.
std::vector<std::string> byteMismatches(const Samples& s) {
  std::vector<std::string> out;
  for (const Cell& c : s.cells) {
    if (!c.cpp.has_traffic || !c.py.has_traffic) continue;
    double a = 0, b = 0;
    for (const Traffic& t : c.cpp.traffic) a += t.bytes;
    for (const Traffic& t : c.py.traffic) b += t.bytes;
    if (std::fabs(a - b) > 0.5) {
      out.push_back(c.model + ", " + std::to_string(c.world_size) + " ranks, " +
                    c.hook + ": C++ " + number(a) + ", Python expected " +
                    number(b));
    }
  }
  return out;
}

void writeMarkdown(std::ostream& md, const ReportConfig& config,
                   const Samples& s, const Table& steps, const Table& summary) {
  md << "# DDP step: C++ (distalgo) against PyTorch's Python DDP\n\n"
     << "Generated by `bench/run_ddp_step` (do not edit by hand).\n\n"
     << "Wall time of one training step (zero the gradients, forward, MSE "
        "loss, backward with DDP's gradient reduction, SGD step with lr "
        "0.01) for the fixture models (`fixtures/models.h`: `mlp` "
        "Linear(8,16)-ReLU-Linear(16,4), 212 parameters; `convnet` "
        "Unflatten-Conv2d(1,3,2)-ReLU-Flatten-Linear(9,4), 55 parameters), "
     << config.rows
     << " rows per rank, one process per rank, Gloo on loopback, CPU. C++: "
        "`distalgo::ddp::DistributedDataParallel` over `c10d::Reducer` "
        "(`bench_ddp_step`); Python: `torch.nn.parallel."
        "DistributedDataParallel` (`bench/ddp_step.py`), the same model, "
        "step and hook. Each cell runs its C++ side and then its Python "
        "side, cell after cell, so that the machine's noise falls on both "
        "alike; compare sides within a row, not across runs.\n\n"
     << "## Time per step\n\n"
     << "Median and 10th–90th percentile of " << config.steps
     << " timed steps after " << config.warmup
     << " warm-up steps; a step's time is that of its slowest rank (each "
        "rank times its own steps, the times are gathered at the end). "
        "C++ / Python is the ratio of the medians: below 1, the C++ step is "
        "faster. Bytes are per step and rank, what the rank puts into "
        "collectives: counted for C++ by `ranktest::CountingProcessGroup` in "
        "a separate run of "
     << config.count_steps
     << " steps after the warm-up (the timed run does not go through it); "
        "for Python computed from the parameter count and the hook's wire "
        "type (n/a where the hook's traffic is not known ahead).\n\n"
     << steps.markdown() << "\n"
     << "## Summary\n\n"
     << "C++ / Python over the hooks that both sides ran, per model and "
        "world size; \"C++ slower in\" lists the hooks whose ratio is above "
        "1.\n\n"
     << summary.markdown() << "\n";
  const std::vector<std::string> mismatches = byteMismatches(s);
  if (!mismatches.empty()) {
    md << "Cells whose counted C++ bytes differ from the Python side's "
          "expected bytes:\n\n";
    for (const std::string& m : mismatches) md << "- " << m << "\n";
    md << "\n";
  }
  md << "## Run\n\n"
     << bench_common::runLines(
            config.command.empty() ? "bench/run_ddp_step" : config.command,
            config.start_loadavg)
     << "- libtorch (C++): " << TORCH_VERSION << "\n";
  for (const auto& [key, value] : s.meta) {
    md << "- " << key << ": " << value << "\n";
  }
  for (const std::string& note : config.notes) md << "- " << note << "\n";
  if (!config.python_note.empty()) {
    md << "- Python side: " << config.python_note << "\n";
  }
  md << "- both sides: one intra-op thread per rank (`at::set_num_threads(1)`"
        ", `torch.set_num_threads(1)`), the batches made before timing, "
        "rank processes forked from an initialised parent, a "
        "`FileStore` rendezvous, DDP's default options (25 MiB buckets)\n";
}

}  // namespace

int report(const ReportConfig& config) {
  const Samples s = readSamples(config.samples);
  const Table steps = stepTable(s);
  const Table summary = summaryTable(s);
  std::printf(
      "\nTime per step (ms, slowest rank), bytes per step and rank:\n"
      "%s\nC++ / Python by model and world size:\n%s",
      steps.text().c_str(), summary.text().c_str());
  const bool any = std::any_of(s.cells.begin(), s.cells.end(),
                               [](const Cell& c) { return !c.cpp.us.empty(); });
  return bench_common::finishReport(
      "bench_ddp_step", any, config.samples, config.markdown,
      [&](std::ostream& md) { writeMarkdown(md, config, s, steps, summary); });
}

}  // namespace ddp_step
