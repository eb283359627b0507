#include "ranktest/settings.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <utility>

#include "job/launcher_env.h"
#include "ranktest/backends.h"
#include "wire/number_text.h"

namespace ranktest {
namespace {

const char* get(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

void complain(Settings& s, const std::string& message) {
  s.error += (s.error.empty() ? "" : "; ") + message;
}

// An integer from `min` to `max` in variable `name`.
std::optional<long> integer(Settings& s, const char* name, long min, long max) {
  const char* text = get(name);
  if (!text) return std::nullopt;
  const std::optional<std::int64_t> value =
      internal::parseInteger(text, min, max);
  if (!value) {
    complain(s, std::string(name) + "='" + text + "' is not an integer from " +
                    std::to_string(min) + " to " + std::to_string(max));
    return std::nullopt;
  }
  return static_cast<long>(*value);
}

// 0 or 1 in variable `name`.
std::optional<bool> flag(Settings& s, const char* name) {
  const char* text = get(name);
  if (!text) return std::nullopt;
  if (std::string(text) == "0" || std::string(text) == "1") {
    return std::string(text) == "1";
  }
  complain(s, std::string(name) + "='" + text + "' is not 0 or 1");
  return std::nullopt;
}

// A number of `unit` in (0, max] in variable `name`, at least `min` where a
// smaller one cannot work (saying why).
std::optional<double> positive(Settings& s, const char* name, double max,
                               const char* unit, double min = 0,
                               const char* why = "") {
  const char* text = get(name);
  if (!text) return std::nullopt;
  const std::optional<double> value = internal::parseNumber(text, 0, max);
  if (!value || !(*value > 0)) {
    std::ostringstream range;
    range << "' is not a number of " << unit << " in (0, " << max << "]";
    complain(s, std::string(name) + "='" + text + range.str());
    return std::nullopt;
  }
  if (*value < min) {
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
  if (auto ws = integer(s, "WORLD_SIZE", 1, kLargestWorldSize)) {
    s.world_size = static_cast<int>(*ws);
  }
  // mpirun, srun and PMI launchers set no WORLD_SIZE: their job's size
  // chooses the cell (a bad environment is init()'s to report). One set by
  // hand to another size is refused: it would skip every test of the job.
  try {
    if (auto launched =
            internal::detectLauncher(&internal::processEnvironment)) {
      if (s.world_size && *s.world_size != launched->world_size) {
        complain(s, "WORLD_SIZE=" + std::to_string(*s.world_size) + ", but " +
                        launched->launcher + " started " +
                        std::to_string(launched->world_size) +
                        " ranks: under a launcher the job's size chooses "
                        "the tests' world size; unset WORLD_SIZE, or start " +
                        std::to_string(*s.world_size) + " ranks");
      }
      s.world_size = launched->world_size;
    }
  } catch (const std::invalid_argument&) {
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
  if (auto t =
          positive(s, "RANKTEST_TIMEOUT", kLongestTimeoutSeconds, "seconds")) {
    s.default_timeout =
        std::chrono::milliseconds(std::max(1L, std::lround(*t * 1000)));
  }
  if (auto scale =
          positive(s, "RANKTEST_TIMEOUT_SCALE", kLargestTimeoutScale, "times"))
    s.timeout_scale = *scale;
  s.reuse_processes = flag(s, "RANKTEST_REUSE");
  s.check_collectives = flag(s, "RANKTEST_CHECK_COLLECTIVES");
  s.verbose = flag(s, "RANKTEST_VERBOSE").value_or(false);
  if (auto r = integer(s, "RANKTEST_DEBUG_RANK", 0, kLargestWorldSize - 1))
    s.debug_rank = static_cast<int>(*r);
  if (auto lines = integer(s, "RANKTEST_OUTPUT_LINES", 0, kMostOutputLines)) {
    s.output_lines = static_cast<std::size_t>(*lines);
  }
  s.all_ranks_report = flag(s, "RANKTEST_ALL_RANKS_REPORT").value_or(false);
  // A rank's heartbeat moves every 0.2 s, and a busy machine delays it.
  if (auto silence = positive(s, "RANKTEST_PEER_SILENCE",
                              kLongestPeerSilenceSeconds, "seconds", 1,
                              "s: a rank's heartbeat moves every 0.2 s, and "
                              "a shorter silence would give up on ranks "
                              "that are only busy")) {
    s.peer_silence = std::chrono::milliseconds(std::lround(*silence * 1000));
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
