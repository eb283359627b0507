#include "harness_overhead/config.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "bench_common/args.h"
#include "harness_overhead/fixtures.h"

namespace harness_overhead {
std::vector<int> parseInts(const std::string& text) {
  std::vector<int> out;
  for (const std::string& item : bench_common::splitCommas(text)) {
    out.push_back(std::stoi(item));
  }
  return out;
}

Config parseConfig(int argc, char** argv) {
  Config config;
  config.program = argv[0];
  constexpr std::string_view kPrefix = "--bench_";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::size_t eq = arg.find('=');
    if (arg.rfind(kPrefix, 0) != 0 || eq == std::string::npos) continue;
    const std::string key = arg.substr(kPrefix.size(), eq - kPrefix.size());
    const std::string value = arg.substr(eq + 1);
    if (key == "runs") {
      config.runs = std::stoi(value);
    } else if (key == "spawn_runs") {
      config.spawn_runs = std::stoi(value);
    } else if (key == "reuse_pools") {
      config.reuse_pools = std::max(1, std::stoi(value));
    } else if (key == "world_sizes") {
      config.world_sizes = parseInts(value);
    } else if (key == "bare_spawn_world_sizes") {
      config.bare_spawn_world_sizes = parseInts(value);
    } else if (key == "modes") {
      config.modes.clear();
      for (const std::string& name : bench_common::splitCommas(value)) {
        config.modes.push_back(parseMode(name));
      }
    } else if (key == "pytorch") {
      config.pytorch = value;
    } else if (key == "pytorch_note") {
      config.pytorch_note = value;
    } else if (key == "markdown") {
      config.markdown = value;
    } else if (key == "command") {
      config.command = value;
    } else if (key == "raw") {
      config.raw = value;
    } else if (key == "note") {
      config.notes.push_back(value);
    } else if (arg.rfind(kBareRankFlag, 0) != 0) {
      throw std::invalid_argument("unknown flag " + arg);
    }
  }
  return config;
}

}  // namespace harness_overhead
