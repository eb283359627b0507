#pragma once

// The PyTorch side of the comparison, as bench/pytorch_overhead.py wrote it:
// tab-separated "meta <key> <value>" and
// "sample <mode> <world size> <test> <microseconds> <ok|failed|skipped>".

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace harness_overhead {

struct PyTorchSamples {
  bool present = false;
  std::map<std::string, std::string> meta;
  std::vector<std::string> notes;
  // ms of the passed tests, by ("fork" or "spawn", world size).
  std::map<std::pair<std::string, int>, std::vector<double>> samples;
  int failed = 0;

  std::optional<double> medianMs(const std::string& mode, int world_size) const;
};

// Nothing present when `path` is empty or unreadable.
PyTorchSamples readPyTorchSamples(const std::string& path);

}  // namespace harness_overhead
