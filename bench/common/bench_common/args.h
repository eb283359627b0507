#pragma once

// The benchmark binaries' options: --bench_<key>=<value>.

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace bench_common {

struct BenchArg {
  std::string key;
  std::string value;
};

// Splits "--bench_<key>=<value>"; throws std::invalid_argument otherwise.
inline BenchArg splitBenchArg(const std::string& arg) {
  constexpr std::string_view kPrefix = "--bench_";
  const std::size_t eq = arg.find('=');
  if (arg.rfind(kPrefix, 0) != 0 || eq == std::string::npos) {
    throw std::invalid_argument("unknown argument " + arg);
  }
  return {arg.substr(kPrefix.size(), eq - kPrefix.size()), arg.substr(eq + 1)};
}

}  // namespace bench_common
