#include "ranktest/settings.h"

#include <cstdlib>
#include <stdexcept>

#include "ranktest/backends.h"

namespace ranktest {
namespace {

const char* get(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

void complain(Settings& s, const std::string& message) {
  s.error += (s.error.empty() ? "" : "; ") + message;
}

std::optional<long> integer(Settings& s, const char* name, long min) {
  const char* text = get(name);
  if (!text) return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < min) {
    complain(s, std::string(name) + "='" + text + "' is not an integer >= " +
                    std::to_string(min));
    return std::nullopt;
  }
  return value;
}

std::optional<double> positive(Settings& s, const char* name) {
  const char* text = get(name);
  if (!text) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !(value > 0)) {
    complain(s, std::string(name) + "='" + text + "' is not a positive number");
    return std::nullopt;
  }
  return value;
}

Settings parse() {
  Settings s;
  if (auto ws = integer(s, "WORLD_SIZE", 1)) s.world_size = static_cast<int>(*ws);
  s.backend = backendFromEnvironment();
  if (s.backend != "gloo" && s.backend != "nccl") {
    complain(s, "BACKEND='" + s.backend + "' is not one of gloo, nccl");
  }
  if (const char* method = get("RANKTEST_START_METHOD")) {
    const std::string m(method);
    if (m == "fork") s.start_method = StartMethod::kFork;
    else if (m == "spawn") s.start_method = StartMethod::kSpawn;
    else complain(s, "RANKTEST_START_METHOD='" + m + "' is not fork or spawn");
  }
  if (const char* kind = get("RANKTEST_STORE")) {
    const std::string k(kind);
    if (k == "file") s.store = StoreKind::kFile;
    else if (k == "tcp") s.store = StoreKind::kTcp;
    else complain(s, "RANKTEST_STORE='" + k + "' is not file or tcp");
  }
  if (auto t = positive(s, "RANKTEST_TIMEOUT")) {
    s.default_timeout = std::chrono::milliseconds(static_cast<long>(*t * 1000));
  }
  if (auto scale = positive(s, "RANKTEST_TIMEOUT_SCALE")) s.timeout_scale = *scale;
  if (auto reuse = integer(s, "RANKTEST_REUSE", 0)) s.reuse_processes = *reuse != 0;
  s.verbose = integer(s, "RANKTEST_VERBOSE", 0).value_or(0) != 0;
  if (auto r = integer(s, "RANKTEST_DEBUG_RANK", 0)) s.debug_rank = static_cast<int>(*r);
  if (auto lines = integer(s, "RANKTEST_OUTPUT_LINES", 0)) {
    s.output_lines = static_cast<std::size_t>(*lines);
  }
  return s;
}

}  // namespace

const Settings& settings() {
  static const Settings parsed = parse();
  return parsed;
}

}  // namespace ranktest
