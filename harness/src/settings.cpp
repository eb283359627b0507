#include "ranktest/settings.h"

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <utility>

#include "ranktest/backends.h"
#include "ranktest/internal/launcher_env.h"

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
    complain(s, std::string(name) + "='" + text +
                    "' is not an integer >= " + std::to_string(min));
    return std::nullopt;
  }
  return value;
}

// A positive number of `name`, at least `min` where a smaller one cannot
// work (saying why).
std::optional<double> positive(Settings& s, const char* name, double min = 0,
                               const char* why = "") {
  const char* text = get(name);
  if (!text) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !(value > 0)) {
    complain(s, std::string(name) + "='" + text + "' is not a positive number");
    return std::nullopt;
  }
  if (value < min) {
    complain(s, std::string(name) + "='" + text + "' is below " +
                    std::to_string(static_cast<int>(min)) + " " + why);
    return std::nullopt;
  }
  return value;
}

// The value named by variable `name`, one of `names`.
template <typename T>
std::optional<T> choice(
    Settings& s, const char* name,
    std::initializer_list<std::pair<const char*, T>> names) {
  const char* text = get(name);
  if (!text) return std::nullopt;
  std::string allowed;
  for (const auto& [word, value] : names) {
    if (std::string(text) == word) return value;
    if (!allowed.empty()) allowed += " or ";
    allowed += word;
  }
  // Appended piece by piece: GCC 12 warns falsely (-Warray-bounds) on the
  // chain of temporaries once this is inlined.
  std::string message = name;
  message.append("='").append(text).append("' is not ").append(allowed);
  complain(s, message);
  return std::nullopt;
}

// Whether the command line asks gtest for a listing.
bool listingTests() {
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::string argument;
  while (std::getline(cmdline, argument, '\0')) {
    if (argument == "--gtest_list_tests" ||
        argument.rfind("--gtest_list_tests=", 0) == 0) {
      return argument != "--gtest_list_tests=0";
    }
  }
  return false;
}

Settings parse() {
  Settings s;
  if (auto ws = integer(s, "WORLD_SIZE", 1)) {
    s.world_size = static_cast<int>(*ws);
  } else {
    // mpirun, srun and PMI launchers set no WORLD_SIZE: their job's size
    // chooses the cell as well (a bad environment is init()'s to report).
    try {
      if (auto launched =
              internal::detectLauncher(&internal::processEnvironment))
        s.world_size = launched->world_size;
    } catch (const std::invalid_argument&) {
    }
  }
  s.backend = backendFromEnvironment();
  if (s.backend != "gloo" && s.backend != "nccl") {
    complain(s, "BACKEND='" + s.backend + "' is not one of gloo, nccl");
  }
  s.start_method = choice<StartMethod>(
      s, "RANKTEST_START_METHOD",
      {{"fork", StartMethod::kFork}, {"spawn", StartMethod::kSpawn}});
  s.store =
      choice<StoreKind>(s, "RANKTEST_STORE",
                        {{"file", StoreKind::kFile}, {"tcp", StoreKind::kTcp}});
  if (auto t = positive(s, "RANKTEST_TIMEOUT")) {
    s.default_timeout = std::chrono::milliseconds(static_cast<long>(*t * 1000));
  }
  if (auto scale = positive(s, "RANKTEST_TIMEOUT_SCALE"))
    s.timeout_scale = *scale;
  if (auto reuse = integer(s, "RANKTEST_REUSE", 0))
    s.reuse_processes = *reuse != 0;
  if (auto check = integer(s, "RANKTEST_CHECK_COLLECTIVES", 0))
    s.check_collectives = *check != 0;
  s.verbose = integer(s, "RANKTEST_VERBOSE", 0).value_or(0) != 0;
  if (auto r = integer(s, "RANKTEST_DEBUG_RANK", 0))
    s.debug_rank = static_cast<int>(*r);
  if (auto lines = integer(s, "RANKTEST_OUTPUT_LINES", 0)) {
    s.output_lines = static_cast<std::size_t>(*lines);
  }
  s.all_ranks_report =
      integer(s, "RANKTEST_ALL_RANKS_REPORT", 0).value_or(0) != 0;
  // A rank's heartbeat moves every 0.2 s, and a busy machine delays it.
  if (auto silence = positive(s, "RANKTEST_PEER_SILENCE", 1,
                              "s: a rank's heartbeat moves every 0.2 s, and "
                              "a shorter silence would give up on ranks "
                              "that are only busy")) {
    s.peer_silence =
        std::chrono::milliseconds(static_cast<long>(*silence * 1000));
  }
  s.listing_tests = listingTests();
  return s;
}

}  // namespace

std::chrono::milliseconds Settings::scaled(
    std::chrono::milliseconds deadline) const {
  return std::chrono::milliseconds(static_cast<long long>(
      static_cast<double>(deadline.count()) * timeout_scale));
}

const Settings& settings() {
  static const Settings parsed = parse();
  return parsed;
}

}  // namespace ranktest
