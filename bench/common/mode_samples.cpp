#include "bench_common/mode_samples.h"

#include <algorithm>
#include <fstream>
#include <utility>

#include "bench_common/stats.h"
#include "bench_common/summary.h"
#include "bench_common/table.h"

namespace bench_common {
namespace {

ModeSamples& modeOf(ModeCell& c, const std::string& mode) {
  if (!c.modes.count(mode)) c.order.push_back(mode);
  return c.modes[mode];
}

}  // namespace

std::vector<ModeCell> readModeCells(const std::string& path,
                                    const std::string& tag) {
  return readCells<ModeCell>(
      path,
      [](const std::string& key, int world_size) {
        return ModeCell{key, world_size, {}, {}, {}};
      },
      [&](ModeCell& c, const std::vector<std::string>& f) {
        if (f[0] == "step" && f.size() >= 6) {
          modeOf(c, f[3]).rounds[std::stoi(f[4])].push_back(std::stod(f[5]));
        } else if (f[0] == tag && f.size() >= 6) {
          std::vector<std::int64_t>& values = modeOf(c, f[3]).per_rank;
          const std::size_t rank = std::stoul(f[4]);
          values.resize(std::max(values.size(), rank + 1));
          values[rank] = std::stoll(f[5]);
        } else if (f[0] == "failed") {
          c.failed = f[3];
        }
      });
}

std::optional<double> maxPerRank(const ModeSamples& m) {
  if (m.per_rank.empty()) return std::nullopt;
  return static_cast<double>(
      *std::max_element(m.per_rank.begin(), m.per_rank.end()));
}

std::optional<double> meanPerRank(const ModeSamples& m) {
  if (m.per_rank.empty()) return std::nullopt;
  double sum = 0;
  for (std::int64_t v : m.per_rank) sum += static_cast<double>(v);
  return sum / static_cast<double>(m.per_rank.size());
}

const ModeSamples* modeNamed(const ModeCell& c, const std::string& baseline) {
  const auto it = c.modes.find(baseline);
  return it == c.modes.end() ? nullptr : &it->second;
}

std::vector<std::string> timingColumns(const Rounds& mode, const Rounds* base) {
  const std::vector<double> us = allSamples(mode);
  std::optional<double> base_ms;
  if (base) base_ms = medianMs(allSamples(*base));
  return {ms(medianMs(us)), spreadMs(us), ratio(medianMs(us), base_ms),
          base ? ratioSpread(roundRatios(mode, *base)) : "–"};
}

Table modeTable(
    const std::vector<ModeCell>& cells, const std::string& baseline,
    const std::vector<std::string>& extra_headers,
    const std::function<std::vector<std::string>(
        const ModeCell&, const ModeSamples&, const ModeSamples*)>& extra) {
  std::vector<std::string> headers{"model",
                                   "ranks",
                                   "mode",
                                   "step ms",
                                   "p10–p90",
                                   "/ " + baseline,
                                   "per round p10–p90"};
  headers.insert(headers.end(), extra_headers.begin(), extra_headers.end());
  Table t(headers);
  for (const ModeCell& c : cells) {
    const std::string ranks = std::to_string(c.world_size);
    if (!c.failed.empty()) {
      std::vector<std::string> row(headers.size());
      row[0] = c.model;
      row[1] = ranks;
      row[2] = "failed: " + c.failed;
      t.add(row);
      continue;
    }
    const ModeSamples* base = modeNamed(c, baseline);
    for (const std::string& mode : c.order) {
      const ModeSamples& m = c.modes.at(mode);
      std::vector<std::string> row{c.model, ranks, mode};
      for (std::string& column :
           timingColumns(m.rounds, base ? &base->rounds : nullptr)) {
        row.push_back(std::move(column));
      }
      for (std::string& column : extra(c, m, base)) {
        row.push_back(std::move(column));
      }
      t.add(row);
    }
  }
  return t;
}

bool anySteps(const std::vector<ModeCell>& cells) {
  for (const ModeCell& c : cells) {
    for (const auto& [mode, m] : c.modes) {
      if (!m.rounds.empty()) return true;
    }
  }
  return false;
}

std::string timingMethod(const ModeReportConfig& config,
                         const std::string& baseline) {
  return "Each mode has its own DDP of the same model. Each ran " +
         std::to_string(config.warmup) + " warm-up steps, then " +
         std::to_string(config.steps) + " timed steps in blocks of " +
         std::to_string(config.block) +
         "; a round runs one block of each mode, the order rotating from "
         "round to round, so that the machine's noise falls on all alike. "
         "Medians and 10th–90th percentiles of the steps; */ " +
         baseline +
         "* is the ratio of the medians, its spread the 10th–90th percentile "
         "of the same ratio taken per round.";
}

}  // namespace bench_common
