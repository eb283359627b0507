#include "join/report.h"

#include <torch/version.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_common/machine.h"
#include "bench_common/report_file.h"
#include "bench_common/stats.h"
#include "bench_common/summary.h"
#include "bench_common/table.h"
#include "join/cell.h"

namespace join_bench {
namespace {

using bench_common::allSamples;
using bench_common::medianMs;
using bench_common::ratioSpread;
using bench_common::roundRatios;
using bench_common::splitTabs;
using bench_common::spreadMs;
using bench_common::Table;

constexpr double kTarget = 1.05;

struct Cell {
  std::string model;
  int world_size = 0;
  // Even inputs, per mode (cell.h's kModes): per round, the step times.
  std::array<std::map<int, std::vector<double>>, 3> rounds;
  // Uneven inputs.
  std::vector<double> shadow, before, after;
  // Per Join: the training ranks' steps after rank 0 joined, summed.
  std::map<int, double> after_sum;
  std::map<int, int> after_count;
  std::string failed_even, failed_uneven;
};

int modeIndex(const std::string& name) {
  for (int i = 0; i < 3; ++i) {
    if (name == kModes[i]) return i;
  }
  return -1;
}

// In the order the cells ran.
std::vector<Cell> readSamples(const std::string& path) {
  return bench_common::readCells<Cell>(
      path,
      [](const std::string& key, int world_size) {
        return Cell{key, world_size, {}, {}, {}, {}, {}, {}};
      },
      [&](Cell& c, const std::vector<std::string>& f) {
        if (f[0] == "step" && f.size() >= 6 && modeIndex(f[3]) >= 0) {
          c.rounds[modeIndex(f[3])][std::stoi(f[4])].push_back(std::stod(f[5]));
        } else if (f[0] == "shadow") {
          c.shadow.push_back(std::stod(f[3]));
        } else if (f[0] == "train" && f.size() >= 6) {
          const double us = std::stod(f[5]);
          if (f[4] == "after") {
            c.after.push_back(us);
            c.after_sum[std::stoi(f[3])] += us;
            ++c.after_count[std::stoi(f[3])];
          } else {
            c.before.push_back(us);
          }
        } else if (f[0] == "failed" && f.size() >= 5) {
          (f[3] == "even" ? c.failed_even : c.failed_uneven) = f[4];
        }
      });
}

// "0.15"; "–" unless both are there.
std::string difference(const std::optional<double>& a,
                       const std::optional<double>& b) {
  if (!a || !b) return "–";
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", *a - *b);
  return text;
}

// Per Join, the mean step of the training ranks after rank 0 joined: what
// a shadowed round (a mean too) compares with.
std::vector<double> afterMeans(const Cell& c) {
  std::vector<double> out;
  for (const auto& [join, sum] : c.after_sum) {
    out.push_back(sum / c.after_count.at(join));
  }
  return out;
}

bool hasEven(const Cell& c) { return !allSamples(c.rounds[0]).empty(); }
bool hasUneven(const Cell& c) { return !c.shadow.empty(); }

std::optional<double> ratioOfMedians(const std::vector<double>& a,
                                     const std::vector<double>& b) {
  const auto x = bench_common::median(a);
  const auto y = bench_common::median(b);
  if (!x || !y || *y <= 0) return std::nullopt;
  return *x / *y;
}

Table evenTable(const std::vector<Cell>& cells) {
  Table t({"model", "ranks", "no Join ms", "p10–p90", "Join ms", "p10–p90",
           "Join / no Join", "per round p10–p90", "Join − no Join ms",
           "Join(enable=false) ms", "p10–p90", "disabled / no Join",
           "per round p10–p90"});
  for (const Cell& c : cells) {
    if (!c.failed_even.empty()) {
      t.add({c.model, std::to_string(c.world_size), "failed", "", "", "", "",
             "", "", "", "", "", ""});
      continue;
    }
    if (!hasEven(c)) continue;
    const auto a = allSamples(c.rounds[0]), b = allSamples(c.rounds[1]),
               d = allSamples(c.rounds[2]);
    t.add({c.model, std::to_string(c.world_size), bench_common::ms(medianMs(a)),
           spreadMs(a), bench_common::ms(medianMs(b)), spreadMs(b),
           bench_common::ratio(medianMs(b), medianMs(a)),
           ratioSpread(roundRatios(c.rounds[1], c.rounds[0])),
           difference(medianMs(b), medianMs(a)), bench_common::ms(medianMs(d)),
           spreadMs(d), bench_common::ratio(medianMs(d), medianMs(a)),
           ratioSpread(roundRatios(c.rounds[2], c.rounds[0]))});
  }
  return t;
}

Table unevenTable(const std::vector<Cell>& cells) {
  Table t({"model", "ranks", "training step before ms", "p10–p90", "after ms",
           "p10–p90", "after / before", "after, mean per Join ms",
           "shadowed round ms (rank 0)", "p10–p90", "shadowed / after mean"});
  for (const Cell& c : cells) {
    if (!c.failed_uneven.empty()) {
      t.add({c.model, std::to_string(c.world_size), "failed", "", "", "", "",
             "", "", "", ""});
      continue;
    }
    if (!hasUneven(c)) continue;
    t.add({c.model, std::to_string(c.world_size),
           bench_common::ms(medianMs(c.before)), spreadMs(c.before),
           bench_common::ms(medianMs(c.after)), spreadMs(c.after),
           bench_common::ratio(medianMs(c.after), medianMs(c.before)),
           bench_common::ms(medianMs(afterMeans(c))),
           bench_common::ms(medianMs(c.shadow)), spreadMs(c.shadow),
           bench_common::ratio(medianMs(c.shadow), medianMs(afterMeans(c)))});
  }
  return t;
}

// "Join / no Join within 5%: 3 of 4 cells (over: convnet 4 ranks 1.08)".
std::string verdict(const std::vector<Cell>& cells) {
  int n = 0, within = 0;
  std::string over;
  for (const Cell& c : cells) {
    if (!hasEven(c)) continue;
    const auto r =
        ratioOfMedians(allSamples(c.rounds[1]), allSamples(c.rounds[0]));
    if (!r) continue;
    ++n;
    if (*r <= kTarget) {
      ++within;
    } else {
      over += (over.empty() ? "" : ", ") + c.model + " " +
              std::to_string(c.world_size) + " ranks " +
              bench_common::ratio(*r, 1.0);
    }
  }
  return "Join / no Join within 5% (ratio of medians <= 1.05): " +
         std::to_string(within) + " of " + std::to_string(n) + " cells" +
         (over.empty() ? "" : " (over: " + over + ")");
}

void writeMarkdown(std::ostream& md, const ReportConfig& config,
                   const Table& even, const Table& uneven,
                   const std::string& verdict_line) {
  md << "# Join: DDP step time with and without a Join\n\n"
     << "Generated by `bench/run_join` (do not edit by hand).\n\n"
     << "distalgo's C++ DDP (`distalgo::ddp::DistributedDataParallel` over "
        "`c10d::Reducer`) on the fixture models (`fixtures/models.h`: `mlp` "
        "Linear(8,16)-ReLU-Linear(16,4); `convnet` "
        "Unflatten-Conv2d(1,3,2)-ReLU-Flatten-Linear(9,4)), "
     << config.rows
     << " rows per rank, one process per rank, Gloo on loopback, CPU, one "
        "intra-op thread per rank. A step: zero the gradients, forward, MSE "
        "loss, backward with DDP's gradient reduction, SGD step (lr 0.01); "
        "its time is that of its slowest rank (each rank times its own "
        "steps, the times are gathered at the end).\n\n"
     << "## Even inputs\n\n"
     << "Three DDPs of the same model in one run: *no Join* (plain DDP), "
        "*Join* (the steps inside `ddp.join()`, enabled: per step a "
        "heartbeat allreduce and an allreduce telling joined ranks whether "
        "the step reduces, on top of DDP's own) and *Join(enable=false)* "
        "(inside a disabled Join: nothing extra is sent). Each mode ran "
     << config.warmup << " warm-up steps, then " << config.steps
     << " timed steps in blocks of " << config.block
     << "; a round runs one block of each mode, the order rotating from "
        "round to round, so that the machine's noise falls on all three "
        "alike. Creating and finishing a Join lie between blocks and are not "
        "timed. Medians and 10th–90th percentiles of the steps; a ratio is "
        "that of the medians, its spread the 10th–90th percentile of the "
        "same ratio taken per round; *Join − no Join* is the difference of "
        "the medians, the time an enabled Join adds to a step.\n\n"
     << even.markdown() << "\n"
     << verdict_line << ".\n\n"
     << "## Uneven inputs: one rank joins early\n\n"
     << config.repeats
     << " Joins one after another on one DDP (after a warm-up): in each, "
        "rank 0 trains "
     << config.early << " steps and calls `join.finish()`, the other ranks "
     << "train " << config.steps_uneven
     << " steps and then finish. *Shadowed round*: on rank 0, the time of "
        "its `join.finish()` divided by the number of iterations it "
        "shadowed ("
     << config.steps_uneven - config.early
     << "); it contains those rounds (heartbeat allreduce, the "
        "requires-sync allreduce, an allreduce of zero gradients per bucket, "
        "each waiting for the training ranks' step), the closing round and "
        "the final model sync; median and spread over the Joins. *Before* / "
        "*after*: the step time of the slowest training rank (rank 0 "
        "excluded) in the steps before and after rank 0 joined, median and "
        "spread over the steps; since a shadowed round is a mean, it compares "
        "with *after, mean per Join* (the mean of those steps in each Join, "
        "median over the Joins): a ratio near 1 means that rank 0 keeps pace "
        "with the training ranks and slows them down by nothing.\n\n"
     << uneven.markdown() << "\n";
  bench_common::writeRunSection(md, config, "bench/run_join", TORCH_VERSION);
}

}  // namespace

int report(const ReportConfig& config) {
  const std::vector<Cell> cells = readSamples(config.samples);
  const Table even = evenTable(cells);
  const Table uneven = unevenTable(cells);
  const std::string verdict_line = verdict(cells);
  std::printf(
      "\nEven inputs, time per step (ms, slowest rank):\n%s%s\n"
      "\nUneven inputs (rank 0 joins early):\n%s",
      even.text().c_str(), verdict_line.c_str(), uneven.text().c_str());
  bool any = false;
  for (const Cell& c : cells) any = any || hasEven(c) || hasUneven(c);
  return bench_common::finishReport("bench_join", any, config.samples,
                                    config.markdown, [&](std::ostream& md) {
                                      writeMarkdown(md, config, even, uneven,
                                                    verdict_line);
                                    });
}

}  // namespace join_bench
