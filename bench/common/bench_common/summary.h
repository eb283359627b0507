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

// The median, in ms; nothing for no values.
std::optional<double> medianMs(const std::vector<double>& us);
// "0.48–2.68": the 10th–90th percentile, in ms; "–" for no values.
std::string spreadMs(const std::vector<double>& us);
// "0.90–1.50": the 10th–90th percentile of ratios; "–" for none.
std::string ratioSpread(const std::vector<double>& ratios);

}  // namespace bench_common
