#include "harness_overhead/pytorch_samples.h"

#include <fstream>
#include <sstream>

#include "harness_overhead/stats.h"

namespace harness_overhead {

std::optional<double> PyTorchSamples::medianMs(const std::string& mode,
                                               int world_size) const {
  auto it = samples.find({mode, world_size});
  if (it == samples.end()) return std::nullopt;
  return median(it->second);
}

PyTorchSamples readPyTorchSamples(const std::string& path) {
  PyTorchSamples data;
  if (path.empty()) return data;
  std::ifstream in(path);
  if (!in) return data;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    std::string field;
    while (std::getline(fields, field, '\t')) f.push_back(field);
    if (f.size() >= 3 && f[0] == "meta") {
      if (f[1] == "note") {
        data.notes.push_back(f[2]);
      } else {
        data.meta[f[1]] = f[2];
      }
    } else if (f.size() >= 6 && f[0] == "sample") {
      if (f[5] != "ok") {
        ++data.failed;
        continue;
      }
      data.samples[{f[1], std::stoi(f[2])}].push_back(std::stod(f[4]) / 1000);
    }
  }
  data.present = !data.samples.empty();
  return data;
}

}  // namespace harness_overhead
