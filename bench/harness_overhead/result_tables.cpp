#include "harness_overhead/result_tables.h"

#include "harness_overhead/stats.h"

namespace harness_overhead {
namespace {

const std::vector<std::string> kStatsHeader{
    "mode", "ranks", "runs", "median ms", "min", "p25", "p75", "p90", "max"};

// A row under kStatsHeader, the median in bold.
std::vector<std::string> statsRow(const std::string& label, int world_size,
                                  const Stats& s) {
  return {label,
          std::to_string(world_size),
          std::to_string(s.n),
          "**" + ms(s.median) + "**",
          ms(s.min),
          ms(s.p25),
          ms(s.p75),
          ms(s.p90),
          ms(s.max)};
}

}  // namespace

Table ranktestTable(const Measurements& m) {
  std::vector<std::string> header = kStatsHeader;
  header.push_back("parent CPU ms");
  Table t(header);
  auto addRow = [&](const std::string& label, int cell, bool pool_start) {
    const Stats s = stats(m.totalsMs(cell, pool_start));
    if (s.n == 0) return;
    std::vector<std::string> row =
        statsRow(label, m.cells()[cell].world_size, s);
    row.push_back(ms(median(m.valuesMs(cell, pool_start, parentCpu))));
    t.add(row);
  };
  for (std::size_t c = 0; c < m.cells().all().size(); ++c) {
    const int cell = static_cast<int>(c);
    const Mode mode = m.cells()[cell].mode;
    addRow(modeLabel(mode), cell, false);
    if (isReuse(mode)) {
      addRow(mode == Mode::kReuse ? "reuse: pool start"
                                  : "reuse, TCPStore: pool start",
             cell, true);
    }
  }
  return t;
}

Table pytorchTable(const PyTorchSamples& py) {
  Table t(kStatsHeader);
  for (const std::string mode : {"fork", "spawn"}) {
    for (const auto& [key, values] : py.samples) {
      if (key.first != mode) continue;
      t.add(statsRow("PyTorch " + mode, key.second, stats(values)));
    }
  }
  return t;
}

Table comparisonTable(const Measurements& m, const PyTorchSamples& py) {
  Table t({"ranks", "fork: ranktest", "fork: PyTorch", "ratio",
           "spawn: ranktest", "spawn: PyTorch", "ratio", "reuse: ranktest",
           "reuse / PyTorch fork"});
  for (int ws : m.cells().worldSizes()) {
    const auto fork = m.medianMs(Mode::kFork, ws);
    const auto spawn = m.medianMs(Mode::kSpawn, ws);
    const auto reuse = m.medianMs(Mode::kReuse, ws);
    const auto pfork = py.medianMs("fork", ws);
    const auto pspawn = py.medianMs("spawn", ws);
    if (!fork && !spawn && !reuse) continue;
    t.add({std::to_string(ws), ms(fork), ms(pfork), ratio(fork, pfork),
           ms(spawn), ms(pspawn), ratio(spawn, pspawn), ms(reuse),
           ratio(reuse, pfork)});
  }
  return t;
}

}  // namespace harness_overhead
