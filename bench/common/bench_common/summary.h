#pragma once

// Step times in microseconds, summarised for a report's cells in
// milliseconds; and the tab-separated lines of the samples files.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench_common {

// One mode's samples by round (a round runs one block of every mode).
using Rounds = std::map<int, std::vector<double>>;
// Every round's samples, in round order.
std::vector<double> allSamples(const Rounds& rounds);
// For each round that both ran, the ratio of `mode`'s median to `base`'s.
std::vector<double> roundRatios(const Rounds& mode, const Rounds& base);

// The fields of one samples line.
std::vector<std::string> splitTabs(const std::string& line);
// Calls `line` with the fields of each line of the samples file `path`.
void forEachSampleLine(
    const std::string& path,
    const std::function<void(const std::vector<std::string>&)>& line);

// The cells of a samples file whose lines read <kind> <key> <world size>
// ...: for each line of 4 fields or more, `line(cell, fields)` with the
// line's cell, made by make(key, world size) on its first line. The cells
// come back in the order they first appear (the order they ran).
template <typename Cell, typename Make, typename Line>
std::vector<Cell> readCells(const std::string& path, const Make& make,
                            const Line& line) {
  std::vector<Cell> cells;
  std::map<std::string, std::size_t> index;
  forEachSampleLine(path, [&](const std::vector<std::string>& f) {
    if (f.size() < 4) return;
    auto [it, fresh] = index.emplace(f[1] + "\t" + f[2], cells.size());
    if (fresh) cells.push_back(make(f[1], std::stoi(f[2])));
    line(cells[it->second], f);
  });
  return cells;
}

// The median, in ms; nothing for no values.
std::optional<double> medianMs(const std::vector<double>& us);
// "0.48–2.68": the 10th–90th percentile, in ms; "–" for no values.
std::string spreadMs(const std::vector<double>& us);
// "0.90–1.50": the 10th–90th percentile of ratios; "–" for none.
std::string ratioSpread(const std::vector<double>& ratios);

}  // namespace bench_common
