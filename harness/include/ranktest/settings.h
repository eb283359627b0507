#pragma once

// The environment variables ranktest reads, parsed in one place. A value
// outside its range (below) is refused, never wrapped or clamped: the
// binary exits with code 10 before any test (ranktest::init), naming it.
//
//   WORLD_SIZE             runs every test at this world size only (1 to
//                          65536; under a launcher, the job's size if set)
//   BACKEND                gloo (default) or nccl
//   RANKTEST_START_METHOD  fork or spawn (a test's own trait wins)
//   RANKTEST_STORE         file or tcp (a test's own trait wins)
//   RANKTEST_TIMEOUT       default deadline in seconds, in (0, 86400]
//                          (default 60)
//   RANKTEST_TIMEOUT_SCALE multiplies every deadline (slow machines), in
//                          (0, 1000]
//   RANKTEST_REUSE         1/0: force process reuse on or off
//   RANKTEST_CHECK_COLLECTIVES 1/0: the collective-mismatch check on or off
//   RANKTEST_VERBOSE       1/0: stream every rank's output live and print
//                          stacks unfolded (every library frame)
//   RANKTEST_DEBUG_RANK    r: rank r waits for a debugger before its body
//                          (0 to 65535)
//   RANKTEST_OUTPUT_LINES  lines of output kept per rank for reports (60;
//                          0 to 1000000)
//   RANKTEST_ALL_RANKS_REPORT 1/0: under a launcher, every rank prints its
//                          report and writes XML, not only rank 0
//   RANKTEST_PEER_SILENCE  under a launcher, seconds of a silent heartbeat
//                          or store after which a rank gives up (10; 1 to
//                          3600)
//
// WORLD_SIZE and BACKEND choose the matrix cell that runs; they never rename
// tests (see internal/instance_plan.h).

#include <chrono>
#include <optional>
#include <string>

#include "ranktest/test_options.h"

namespace ranktest {

// The ranges above, where a number has one.
inline constexpr int kLargestWorldSize = 65536;
inline constexpr double kLongestTimeoutSeconds = 86400;  // a day
inline constexpr double kLargestTimeoutScale = 1000;
inline constexpr double kLongestPeerSilenceSeconds = 3600;
inline constexpr long kMostOutputLines = 1000000;

struct Settings {
  std::optional<int> world_size;
  std::string backend = "gloo";
  std::optional<StartMethod> start_method;
  std::optional<StoreKind> store;
  std::chrono::milliseconds default_timeout{60000};
  double timeout_scale = 1.0;
  std::optional<bool> reuse_processes;
  std::optional<bool> check_collectives;
  bool verbose = false;
  std::optional<int> debug_rank;
  std::size_t output_lines = 60;
  bool all_ranks_report = false;
  // Under a launcher: a peer whose heartbeat, or a store that, has not
  // answered for this long is given up on.
  std::chrono::milliseconds peer_silence{10000};
  // The process only lists tests (--gtest_list_tests), read from the command
  // line itself: tests register before main() runs.
  bool listing_tests = false;
  // Non-empty when a variable holds a value we cannot use: ranktest::init
  // refuses to run (and every distributed test of a binary without it, and
  // runRanks, fail with this message) instead of guessing.
  std::string error;

  // `deadline` times RANKTEST_TIMEOUT_SCALE: every deadline ranktest keeps
  // (a test's, runRanks', the wait for a launched job to form).
  std::chrono::milliseconds scaled(std::chrono::milliseconds deadline) const;
};

// Parsed once, on first use.
const Settings& settings();

}  // namespace ranktest
